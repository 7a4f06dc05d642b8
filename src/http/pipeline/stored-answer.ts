import type { Type } from '@nestjs/common';
import { Page } from '../wire/pagination.js';
import { toJsonValue } from '../wire/codec.js';
import { UTC } from '../../common/dates.js';
import { RECORD_VERSION } from '../wire/etag.js';
import { RawBody } from './wire-writer.js';
import { wireFields, type WireFieldMeta, type WireResultMeta } from '../wire/wire.js';

/**
 * A handler's answer kept for an Idempotency-Key replay (docs/idempotency.md), independent of
 * the format it was first written in: the JSON value with dates in UTC, plus what the response
 * interceptor needs besides the value (the record version behind the ETag, the page numbers
 * behind X-Total-Count and Link). `reviveAnswer` turns it back into the objects the handler
 * returned — wire classes, dates as Date — so a replay goes through the same encoder and can be
 * JSON or XML, in any `tz`, whatever the first request asked for.
 */
interface StoredAnswer {
  kind: 'value' | 'page' | 'raw';
  /** `toJsonValue(answer, UTC)`; for a page, its items; for a raw body, the text. */
  body: unknown;
  /** The record version of a single record (its ETag's first part). */
  version?: number;
  page?: { total: number; limit: number; offset: number };
  contentType?: string;
}

/** The text stored for a handler's answer. */
export function storeAnswer(result: unknown): string {
  let stored: StoredAnswer;
  if (result instanceof RawBody) stored = { kind: 'raw', body: result.body, contentType: result.contentType };
  else if (result instanceof Page) {
    stored = { kind: 'page', body: toJsonValue(result.items, UTC), page: { total: result.total, limit: result.limit, offset: result.offset } };
  } else {
    stored = { kind: 'value', body: toJsonValue(result ?? {}, UTC) };
    const version = (result as { [RECORD_VERSION]?: unknown } | null | undefined)?.[RECORD_VERSION];
    if (typeof version === 'number') stored.version = version;
  }
  return JSON.stringify(stored);
}

/**
 * The handler's answer back from its stored text, as objects of the route's wire type
 * (`meta.type`, one or a list of them) with dates as Date, so the response interceptor writes it
 * exactly as it wrote the first answer.
 */
export function reviveAnswer(text: string, meta: WireResultMeta | undefined): unknown {
  const stored = JSON.parse(text) as StoredAnswer;
  const type = meta?.type ?? undefined;
  switch (stored.kind) {
    case 'raw':
      return new RawBody(String(stored.body), stored.contentType ?? 'text/plain');
    case 'page': {
      const items = Array.isArray(stored.body) ? stored.body.map((item) => revive(item, type)) : [];
      const p = stored.page ?? { total: items.length, limit: items.length, offset: 0 };
      return new Page(items, p.total, p.limit, p.offset);
    }
    case 'value': {
      const value = Array.isArray(stored.body) ? stored.body.map((item) => revive(item, type)) : revive(stored.body, type);
      if (typeof stored.version === 'number' && value && typeof value === 'object') {
        Object.defineProperty(value, RECORD_VERSION, { value: stored.version, enumerable: false });
      }
      return value;
    }
  }
}

/**
 * Whether `reviveAnswer` gives back what the handler answered: every record of the answer is an
 * instance of exactly the route's wire type (or a plain object where the route declares none), and
 * dates appear only in date fields. The interceptor logs an answer that is not, since its replay
 * could then be written differently.
 */
export function isRevivable(result: unknown, meta: WireResultMeta | undefined): boolean {
  const type = meta?.type ?? undefined;
  if (result instanceof RawBody) return true;
  const value = result instanceof Page ? result.items : result;
  const items = Array.isArray(value) ? value : [value];
  return items.every((item) => matches(item, type));
}

function matches(value: unknown, type: Type<unknown> | undefined): boolean {
  if (value === null || value === undefined || typeof value !== 'object') return true;
  if (value instanceof Date) return false;
  const fields = type ? wireFields(type) : [];
  if (fields.length === 0) return isPlainData(value);
  if (value.constructor !== type) return false;
  const rec = value as Record<string, unknown>;
  return fields.every((f) => fieldMatches(rec[f.name], f));
}

function fieldMatches(value: unknown, field: WireFieldMeta): boolean {
  if (value === null || value === undefined) return true;
  switch (field.kind) {
    case 'date':
    case 'dateTimeOffset':
      return value instanceof Date;
    case 'object':
      return matches(value, field.nested?.());
    case 'array':
      return Array.isArray(value) && value.every((v) => matches(v, field.nested?.()));
    default:
      return typeof value !== 'object';
  }
}

/** JSON-like data without dates or class instances. */
function isPlainData(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(isPlainData);
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every(isPlainData);
}

function revive(json: unknown, type: Type<unknown> | undefined): unknown {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return json;
  const fields = type ? wireFields(type) : [];
  if (!type || fields.length === 0) return json;
  const src = json as Record<string, unknown>;
  const out = Object.create(type.prototype as object) as Record<string, unknown>;
  for (const f of fields) out[f.name] = reviveField(src[f.name], f);
  return out;
}

function reviveField(value: unknown, field: WireFieldMeta): unknown {
  if (value === null || value === undefined) return null;
  switch (field.kind) {
    case 'date':
    case 'dateTimeOffset':
      return typeof value === 'string' ? new Date(value) : value;
    case 'object':
      return revive(value, field.nested?.());
    case 'array':
      return Array.isArray(value) ? value.map((v) => revive(v, field.nested?.())) : value;
    default:
      return value;
  }
}
