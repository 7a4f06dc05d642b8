import { createHash } from 'node:crypto';
import { ValidationError } from '../../common/errors/errors.js';

/**
 * The pure parts of Idempotency-Key handling (docs/idempotency.md): what a valid key is, and what
 * "the same request" means.
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set to `true` on an answer that is a replay of a stored one. */
export const IDEMPOTENCY_REPLAYED_HEADER = 'Idempotency-Replayed';

export const KEY_MAX_LENGTH = 128;
/** Printable and URL/base64-safe: UUIDs, ULIDs, base64 and hex digests all fit. */
export const KEY_RE = /^[A-Za-z0-9\-_.:~+/=]+$/;
export const KEY_RULE = `1 to ${KEY_MAX_LENGTH} characters of A-Z a-z 0-9 - _ . : ~ + / =`;

/**
 * The key of a request header value, or a 400 naming the header. A header sent twice arrives
 * joined by ", " and is refused as well.
 */
export function parseIdempotencyKey(raw: string | string[]): string {
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (value.length === 0 || value.length > KEY_MAX_LENGTH || !KEY_RE.test(value)) {
    throw new ValidationError([{ field: IDEMPOTENCY_KEY_HEADER, message: `must be ${KEY_RULE}, sent once` }]);
  }
  return value;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The fingerprint of a request: method, path (without the query string, so `tz` or other
 * rendering options may differ on a retry) and the parsed body, hashed in a canonical form in
 * which object key order does not matter.
 */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return sha256Hex(canonicalJson([method.toUpperCase(), path, body === undefined ? null : body]));
}

class Token {
  constructor(readonly text: string) {}
}

/**
 * JSON with the keys of every object sorted and undefined members left out. Iterative, so a
 * body nested to any depth cannot overflow the stack.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v instanceof Token) {
      out.push(v.text);
      continue;
    }
    if (v === null || typeof v !== 'object') {
      out.push(JSON.stringify(v) ?? 'null');
      continue;
    }
    if (v instanceof Date) {
      out.push(JSON.stringify(v.toISOString()));
      continue;
    }
    const parts: unknown[] = [];
    if (Array.isArray(v)) {
      parts.push(new Token('['));
      v.forEach((item, i) => {
        if (i > 0) parts.push(new Token(','));
        parts.push(item === undefined ? null : item);
      });
      parts.push(new Token(']'));
    } else {
      const rec = v as Record<string, unknown>;
      const keys = Object.keys(rec)
        .filter((k) => rec[k] !== undefined)
        .sort();
      parts.push(new Token('{'));
      keys.forEach((k, i) => {
        parts.push(new Token(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`));
        parts.push(rec[k]);
      });
      parts.push(new Token('}'));
    }
    for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i]);
  }
  return out.join('');
}
