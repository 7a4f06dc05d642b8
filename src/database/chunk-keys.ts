import type { BulkItemInput, BulkOutcome } from '../http/wire/bulk.js';

/**
 * Whether a chunk of bulk writes — of a request or of a file import — may be written while the
 * chunk before it commits (docs/bulk.md, "Two chunks at once"): only when the items of the later
 * chunk name none of the records the earlier one wrote. A record is named by its `ID` and by the
 * values of its resource's unique keys (`uniqueKeys` of its bulk plan: `ExternalID`, a person's
 * `UserName`); the later items are searched in every value they hold, references (`ExternalRefs`)
 * included, so an item that updates, refers to or takes the name of such a record waits for the
 * earlier chunk's commit.
 */

/**
 * The key a value is compared under: trimmed, and case and accents folded (at least as coarse as
 * the database's `utf8mb4_unicode_ci` and a user name's key, so two values the unique index takes
 * for one are one key here; a coarser key only makes chunks wait more often).
 */
export function keyOf(value: string): string {
  const v = value.trim();
  // Printable ASCII has no compatibility forms, accents or case beyond A–Z: most values of a
  // chunk (a bulk request's 1,000 items are searched value by value) take this way.
  if (PRINTABLE_ASCII.test(v)) return v.toLowerCase();
  return v.normalize('NFKD').replace(/\p{M}/gu, '').toUpperCase().toLowerCase();
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The keys of the records a chunk wrote: each item's `ID` and unique keys, and each outcome's record ID. */
export function writtenKeys(items: readonly BulkItemInput[], outcomes: readonly BulkOutcome[], uniqueKeys: readonly string[]): Set<string> {
  const keys = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.trim() !== '') keys.add(keyOf(v));
  };
  for (const item of items) {
    add(item.Record.ID);
    for (const k of uniqueKeys) add(item.Record[k]);
  }
  for (const o of outcomes) add(o.id);
  return keys;
}

/**
 * Whether any of the values (a file's records, an item's Record and ExternalRefs), at any depth, is
 * one of `keys`.
 */
export function touches(values: readonly unknown[], keys: ReadonlySet<string>): boolean {
  if (keys.size === 0) return false;
  const seen = (v: unknown): boolean => {
    if (typeof v === 'string') return v.trim() !== '' && keys.has(keyOf(v));
    if (Array.isArray(v)) return v.some(seen);
    if (v !== null && typeof v === 'object') return Object.values(v).some(seen);
    return false;
  };
  return values.some(seen);
}
