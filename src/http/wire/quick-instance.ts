import { TransformationType, type ClassTransformOptions } from 'class-transformer';
// The storage class-transformer's own plainToInstance reads (its CommonJS build, the package's main).
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
// The defaults plainToInstance merges the caller's options into.
import { defaultOptions } from 'class-transformer/cjs/constants/default-options.constant.js';

type TransformFn = (params: { value: unknown; key: string; obj: unknown; type: TransformationType; options: ClassTransformOptions }) => unknown;
type TypeFn = (options: { newObject: unknown; object: unknown; property: string }) => unknown;

/**
 * Per property of a class: its transforms, whether a getter without a setter skips it, and the
 * type its `@Type` names (a function of the object, as class-transformer calls it). null when
 * its `@Type` does what this pass does not (a discriminator, a Map, a Set or other list class).
 */
type PropertyPlan = { transforms: TransformFn[]; skip: boolean; type: TypeFn | null } | null;

interface ClassPlan {
  properties: Map<string, PropertyPlan>;
}

/** null: a class this pass does not take (exposed or excluded properties): class-transformer answers. */
const PLANS = new WeakMap<Function, ClassPlan | null>();

/** What this pass does not build: class-transformer does. */
const NOT_HERE = Symbol('not here');

/** Types class-transformer converts a value to (String, Date…) or builds otherwise (a Map): left to it. */
const BUILT_INS: ReadonlySet<unknown> = new Set([String, Number, Boolean, Date, Buffer, Object, Array, Map, Set, Promise]);

/**
 * Whether an object has an own `__proto__`, `constructor` or `prototype` key: ValidationPipe's own
 * path strips them before class-transformer runs, so a body with one is left to that path.
 */
export function hasPrototypeKey(object: object): boolean {
  return Object.hasOwn(object, '__proto__') || Object.hasOwn(object, 'constructor') || Object.hasOwn(object, 'prototype');
}

/**
 * What `plainToInstance(cls, plain, options)` answers, built in one pass (docs/performance.md,
 * "A body's DTO in one pass"), or null when this pass cannot vouch for it and class-transformer
 * is to build it. It takes a body parsed from JSON or XML — scalars, null, lists and plain
 * objects — of classes without exposed or excluded properties, under options that only leave
 * implicit conversion and default values off. Then class-transformer makes a new instance and
 * sets each own key of the body (but `__proto__` and `constructor`, a getter without a setter, a
 * method) to the value run through the property's `@Transform`s, in key order, undefined
 * included; a value whose property has a `@Type` class is built as an instance of that class the
 * same way, a list item by item (each of the class), and any other plain object as a new plain
 * object with its keys copied the same way (but those `Object.prototype` has: `toString`…).
 * That is what this does, with the same transform functions and the same arguments, without the
 * metadata look-ups, key lists and filtered arrays class-transformer makes for every property of
 * every object (a person's create body is nine of them, a bulk request's items thousands).
 *
 * It leaves to class-transformer a nested object with an own `__proto__`, `constructor` or
 * `prototype` key, and a list with gaps: ValidationPipe's own path strips the one and closes the
 * other before class-transformer runs (AppValidationPipe.quickEntity checks the body's own keys).
 */
export function quickInstance<T extends object>(cls: new () => T, plain: Record<string, unknown>, options: ClassTransformOptions | undefined): T | null {
  const o = optionsOf(options);
  if (!o) return null;
  const out = instanceOf(cls, plain, o);
  return out === NOT_HERE ? null : (out as T);
}

function instanceOf(cls: new () => object, plain: Record<string, unknown>, o: ClassTransformOptions): object | typeof NOT_HERE {
  const plan = planOf(cls);
  if (!plan) return NOT_HERE;
  const out = new cls() as Record<string, unknown>;
  const keys = Object.keys(plain);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === '__proto__' || key === 'constructor') continue;
    const p = propertyOf(cls, plan, key);
    if (p === null) return NOT_HERE;
    if (p.skip || out[key] instanceof Function) continue;
    let value: unknown = plain[key];
    // A scalar without a @Type is taken as it is; anything else as valueOf builds it.
    if (p.type || (typeof value === 'object' && value !== null)) {
      value = valueOf(value, p.type ? p.type({ newObject: out, object: plain, property: key }) : undefined, o);
      if (value === NOT_HERE) return NOT_HERE;
    }
    for (const fn of p.transforms) value = fn({ value, key, obj: plain, type: TransformationType.PLAIN_TO_CLASS, options: o });
    if (value !== undefined || o.exposeUnsetFields) out[key] = value;
  }
  return out;
}

/**
 * A value as class-transformer builds it for a property of type `type` (undefined: none): a scalar
 * as it is (a class leaves it so; a built-in type would convert it), an object or a list anew.
 */
function valueOf(value: unknown, type: unknown, o: ClassTransformOptions): unknown {
  if (typeof value !== 'object' || value === null) {
    if (value === null || value === undefined || type === undefined || isClass(type)) return value;
    return NOT_HERE;
  }
  if (type !== undefined && !isClass(type)) return NOT_HERE;
  if (Array.isArray(value)) {
    const list: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return NOT_HERE;
      const item = valueOf(value[i], type, o);
      if (item === NOT_HERE) return NOT_HERE;
      list.push(item);
    }
    return list;
  }
  const object = value as Record<string, unknown>;
  if (Object.getPrototypeOf(object) !== Object.prototype || typeof object.then === 'function' || hasPrototypeKey(object)) return NOT_HERE;
  if (type !== undefined) return instanceOf(type as new () => object, object, o);
  // A plain object: a new one, each key but those Object.prototype has, values copied the same way.
  const out: Record<string, unknown> = {};
  const keys = Object.keys(object);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key in Object.prototype) continue;
    let v = object[key];
    if (typeof v === 'object' && v !== null) {
      v = valueOf(v, undefined, o);
      if (v === NOT_HERE) return NOT_HERE;
    }
    if (v !== undefined || o.exposeUnsetFields) out[key] = v;
  }
  return out;
}

/** A class of the API's (not a type class-transformer converts to, nor an arrow function). */
function isClass(type: unknown): type is new () => object {
  return typeof type === 'function' && type.prototype !== undefined && !BUILT_INS.has(type);
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
    const typed = storage.findTypeMetadata(cls, key);
    // A discriminator picks the class by a value; a Map, a Set or a list class is built otherwise.
    const reflected = typed?.reflectedType as unknown;
    if (typed && (typed.options?.discriminator || (reflected !== undefined && reflected !== Array && reflected !== Object) || !typed.typeFunction)) p = null;
    else {
      // No groups asked for: class-transformer keeps the transforms that name none.
      const transforms = storage
        .findTransformMetadatas(cls, key, TransformationType.PLAIN_TO_CLASS)
        .filter((m) => !m.options || !m.options.groups || !m.options.groups.length)
        .map((m) => m.transformFn as TransformFn);
      const descriptor = Object.getOwnPropertyDescriptor(cls.prototype as object, key);
      p = { transforms, skip: !!descriptor && !descriptor.set, type: typed ? (typed.typeFunction as TypeFn) : null };
    }
    plan.properties.set(key, p);
  }
  return p;
}
