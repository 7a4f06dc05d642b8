import { getMetadataStorage } from 'class-validator';
import { inputNestedClass } from './wire.js';

/**
 * The first step of input validation (docs/operations.md, "Input limits"): a body or query is cut
 * to the fields its input class declares before class-transformer and class-validator see it.
 * Unknown fields are dropped either way (the pipe whitelists); doing it first, in one walk over
 * the keys, keeps their number out of every later step — class-transformer compares each key of
 * an object with every other, so a body of 100,000 unknown keys cost seconds.
 */
const declared = new WeakMap<Function, Set<string>>();

function declaredFields(cls: Function): Set<string> {
  let names = declared.get(cls);
  if (!names) {
    const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
    names = new Set(metas.map((m) => m.propertyName));
    declared.set(cls, names);
  }
  return names;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A copy of `value` with only the keys `cls` declares, recursively for nested input classes
 * (a JSON array of objects, or the XML list wrapper `{ Item: [...] }` the codec gives). Values
 * other than plain objects are returned as they are, for validation to judge.
 */
export function keepDeclared(value: unknown, cls: Function): unknown {
  if (!isPlainObject(value)) return value;
  const names = declaredFields(cls);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (!names.has(key)) continue;
    const nested = inputNestedClass(cls, key);
    out[key] = nested ? keepNested(value[key], nested) : value[key];
  }
  return out;
}

function keepNested(value: unknown, cls: Function): unknown {
  if (Array.isArray(value)) return value.map((item) => keepDeclared(item, cls));
  if (!isPlainObject(value)) return value;
  const names = declaredFields(cls);
  if (Object.keys(value).some((k) => names.has(k))) return keepDeclared(value, cls);
  // An XML list: one wrapper element whose children are the items.
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, keepNested(v, cls)]));
}
