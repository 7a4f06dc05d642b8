import type { WireFormat } from './codec.js';

/** The media types a body may be written in (docs/http-and-xml.md). */
export const JSON_TYPES = ['application/json', 'text/json'] as const;
export const XML_TYPES = ['application/xml', 'text/xml'] as const;
export const FORM_TYPE = 'application/x-www-form-urlencoded';
/** JSON Merge Patch (RFC 7396): read only on PATCH (docs/http-and-xml.md, "PATCH"). */
export const MERGE_PATCH_JSON = 'application/merge-patch+json';
/** Not registered with IANA: the XML counterpart of application/merge-patch+json, read by the same rules, only on PATCH. */
export const MERGE_PATCH_XML = 'application/merge-patch+xml';
const MERGE_PATCH_TYPES: Readonly<Record<string, WireFormat>> = { [MERGE_PATCH_JSON]: 'json', [MERGE_PATCH_XML]: 'xml' };

export interface Negotiated {
  format: WireFormat;
  /** The response Content-Type: the media type the client named, or application/json. */
  contentType: string;
}

const JSON_DEFAULT: Negotiated = { format: 'json', contentType: 'application/json' };

/** The bare media type of a Content-Type header, lower-cased, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * The format of a request body by its media type and the request's method: exactly the types
 * above, and on PATCH the merge-patch types too (any other `+json` or `+xml` type, such as
 * `application/vnd.api+json`, `application/problem+json` or `application/json-patch+json`, names
 * a different document format, so it is 415 like any other type; so are the merge-patch types on
 * POST and PUT, whose bodies are whole records).
 */
export function requestFormat(contentType: string | undefined, method?: string): WireFormat | 'form' | null {
  const t = mediaTypeOf(contentType);
  if ((JSON_TYPES as readonly string[]).includes(t)) return 'json';
  if ((XML_TYPES as readonly string[]).includes(t)) return 'xml';
  if (t === FORM_TYPE) return 'form';
  if (method === 'PATCH' && Object.hasOwn(MERGE_PATCH_TYPES, t)) return MERGE_PATCH_TYPES[t];
  return null;
}

const SUPPORTED: Record<string, Negotiated> = {
  'application/json': { format: 'json', contentType: 'application/json' },
  'text/json': { format: 'json', contentType: 'text/json' },
  'application/xml': { format: 'xml', contentType: 'application/xml' },
  'text/xml': { format: 'xml', contentType: 'text/xml' },
  'application/problem+json': { format: 'json', contentType: 'application/json' },
  'application/problem+xml': { format: 'xml', contentType: 'application/xml' },
};

/**
 * Picks the response format from an Accept header, honouring q-values. The highest-q supported
 * type wins; on a tie the one listed first. `*∕*`, a missing header or only unknown types answer
 * JSON (a 406 is never sent).
 */
export function negotiate(accept: string | undefined): Negotiated {
  if (!accept) return JSON_DEFAULT;
  let best: { n: Negotiated; q: number; index: number } | null = null;
  accept.split(',').forEach((part, index) => {
    const [rawType, ...params] = part.split(';');
    const type = rawType.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=').map((s) => s.trim());
      if (k === 'q') {
        const parsed = Number(v);
        q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      }
    }
    if (q <= 0) return;
    const n = SUPPORTED[type] ?? (type === '*/*' || type === 'application/*' ? JSON_DEFAULT : undefined);
    if (!n) return;
    if (!best || q > best.q) best = { n, q, index };
  });
  return (best as { n: Negotiated } | null)?.n ?? JSON_DEFAULT;
}
