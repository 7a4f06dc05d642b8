import { TransformationType, type ClassTransformOptions } from 'class-transformer';
// The storage class-transformer's own plainToInstance reads (its CommonJS build, the package's main).
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
// The defaults plainToInstance merges the caller's options into.
import { defaultOptions } from 'class-transformer/cjs/constants/default-options.constant.js';

type TransformFn = (params: { value: unknown; key: string; obj: unknown; type: TransformationType; options: ClassTransformOptions }) => unknown;

/** Per property of a class: null when it has a nested type (class-transformer builds that one), else its transforms. */
type PropertyPlan = { transforms: TransformFn[]; skip: boolean } | null;

interface ClassPlan {
  properties: Map<string, PropertyPlan>;
}

/** null: a class this pass does not take (exposed or excluded properties): class-transformer answers. */
const PLANS = new WeakMap<Function, ClassPlan | null>();

/**
 * What `plainToInstance(cls, plain, options)` answers, built in one pass (docs/performance.md,
 * "Valid bodies in one pass"), or null when this pass cannot vouch for it and class-transformer
 * is to build it. It takes a flat body — every value a scalar, null or absent — of a class
 * without exposed or excluded properties, under options that only leave implicit conversion and
 * default values off: then class-transformer makes a new instance and sets each own key of the
 * body (but `__proto__` and `constructor`, a getter without a setter, a method) to the value run
 * through the property's `@Transform`s, in key order, undefined included. That is what this does,
 * with the same transform functions and the same arguments, without the metadata look-ups, key
 * lists and filtered arrays class-transformer makes for every property of every body (a person's
 * create body is nine of them, a bulk request's thousand).
 */
export function quickInstance<T extends object>(cls: new () => T, plain: Record<string, unknown>, options: ClassTransformOptions | undefined): T | null {
  const o = optionsOf(options);
  if (!o) return null;
  const plan = planOf(cls);
  if (!plan) return null;
  const keys = Object.keys(plain);
  for (let i = 0; i < keys.length; i++) {
    const v = plain[keys[i]];
    if (typeof v === 'object' && v !== null) return null;
  }
  const out = new cls() as Record<string, unknown>;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === '__proto__' || key === 'constructor') continue;
    const p = propertyOf(cls, plan, key);
    if (p === null) return null;
    if (p.skip || out[key] instanceof Function) continue;
    let value: unknown = plain[key];
    for (const fn of p.transforms) value = fn({ value, key, obj: plain, type: TransformationType.PLAIN_TO_CLASS, options: o });
    if (value !== undefined || o.exposeUnsetFields) out[key] = value;
  }
  return out as T;
}

/** The options merged as plainToInstance merges them, by the caller's options object; null when they change what this pass does. */
const OPTIONS = new WeakMap<object, ClassTransformOptions | null>();

function optionsOf(options: ClassTransformOptions | undefined): ClassTransformOptions | null {
  const key = options ?? defaultOptions;
  let o = OPTIONS.get(key);
  if (o === undefined) {
    const merged: ClassTransformOptions = { ...defaultOptions, ...options };
    const plain =
      !merged.enableCircularCheck &&
      !merged.enableImplicitConversion &&
      !merged.excludeExtraneousValues &&
      !merged.exposeDefaultValues &&
      !merged.ignoreDecorators &&
      !merged.excludePrefixes?.length &&
      !merged.groups?.length &&
      !merged.strategy &&
      !merged.targetMaps &&
      merged.version === undefined;
    OPTIONS.set(key, (o = plain ? merged : null));
  }
  return o;
}

function planOf(cls: Function): ClassPlan | null {
  let plan = PLANS.get(cls);
  if (plan === undefined) {
    const storage = defaultMetadataStorage;
    const plain = storage.getStrategy(cls) === 'none' && storage.getExposedMetadatas(cls).length === 0 && storage.getExcludedMetadatas(cls).length === 0;
    plan = plain ? { properties: new Map() } : null;
    PLANS.set(cls, plan);
  }
  return plan;
}

function propertyOf(cls: Function, plan: ClassPlan, key: string): PropertyPlan {
  let p = plan.properties.get(key);
  if (p === undefined) {
    const storage = defaultMetadataStorage;
    if (storage.findTypeMetadata(cls, key)) p = null;
    else {
      // No groups asked for: class-transformer keeps the transforms that name none.
      const transforms = storage
        .findTransformMetadatas(cls, key, TransformationType.PLAIN_TO_CLASS)
        .filter((m) => !m.options || !m.options.groups || !m.options.groups.length)
        .map((m) => m.transformFn as TransformFn);
      const descriptor = Object.getOwnPropertyDescriptor(cls.prototype as object, key);
      p = { transforms, skip: !!descriptor && !descriptor.set };
    }
    plan.properties.set(key, p);
  }
  return p;
}
