import { hash as digest } from 'node:crypto';
import { jsonText, keptRendersOf } from './codec.js';

/**
 * The stored version of the record a response object was built from. Set by the wire mapping
 * (not a wire field: it never appears in JSON or XML) and read here to make the ETag.
 */
export const RECORD_VERSION: unique symbol = Symbol('pms:record-version');

/**
 * The ETag of a record's representation: `"<version>-<hash>"`. The version is the row's
 * optimistic-concurrency counter, which every write bumps; `If-Match` is checked against it in
 * the UPDATE itself (docs/architecture.md). The hash covers the representation rendered in UTC
 * (so `tz` does not change it), so derived members such as LastComment still change the tag for
 * caches. Objects without a stored version (built-in defaults) carry the hash only.
 */
export function etagOf(value: unknown): string {
  // A kept answer's tag is computed once: no need to write its text again.
  return keptRendersOf(value)?.etag ?? etagOfJson(jsonText(value), value);
}

/**
 * The same ETag from the record's JSON text in UTC, when the answer already is that text (the
 * version comes from the record the text was written from).
 */
export function etagOfJson(json: string, record: unknown): string {
  // A kept answer (src/http/wire/record-memo.ts) is hashed once.
  const renders = keptRendersOf(record);
  if (renders?.etag !== undefined) return renders.etag;
  // One-shot: no Hash object per answer (the same digest as createHash's).
  const hash = digest('sha256', json, 'base64url').slice(0, 22);
  const version = (record as { [RECORD_VERSION]?: unknown } | null)?.[RECORD_VERSION];
  const etag = typeof version === 'number' ? `"${version}-${hash}"` : `"${hash}"`;
  if (renders) renders.etag = etag;
  return etag;
}
