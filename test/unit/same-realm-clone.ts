/**
 * A deep copy made in the test's own realm, undefined values kept: structuredClone's objects
 * have another realm's Object.prototype under Jest, which the one-pass DTO builder (rightly)
 * leaves to class-transformer, so its own path would never be the one tested.
 */
export function clone<T>(value: T): T {
  if (Array.isArray(value)) return value.map(clone) as T;
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = clone(v);
  return out as T;
}
