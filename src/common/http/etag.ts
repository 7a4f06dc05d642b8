import { createHash } from 'node:crypto';
import type { RequestContext } from '../context/request-context.js';
import { PreconditionFailedError } from '../errors/errors.js';
import { toJsonValue } from './codec.js';

/** The ETag of a record's representation (rendered in UTC, so `tz` does not change it). */
export function etagOf(value: unknown): string {
  return etagOfJson(JSON.stringify(toJsonValue(value)));
}

/** The same ETag from the record's JSON text in UTC, when the answer already is that text. */
export function etagOfJson(json: string): string {
  return `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
}

/**
 * Optimistic concurrency for PUT and DELETE: when the request carries If-Match, it must name the
 * current ETag of the record (or `*`), else 412.
 */
export function assertIfMatch(ctx: RequestContext, current: unknown): void {
  if (!ctx.ifMatch) return;
  const wanted = ctx.ifMatch.split(',').map((s) => s.trim().replace(/^W\//, ''));
  if (wanted.includes('*')) return;
  if (!wanted.includes(etagOf(current))) throw new PreconditionFailedError();
}
