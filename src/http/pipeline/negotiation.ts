import type { WireFormat } from '../wire/codec.js';

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

/** The media types an Accept header names, lower-cased, each with its q (0 to 1); those at q=0 left out. */
function acceptedTypes(accept: string): { type: string; q: number }[] {
  const out: { type: string; q: number }[] = [];
  for (const part of accept.split(',')) {
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
    if (q > 0) out.push({ type, q });
  }
  return out;
}

/**
 * Picks the response format from an Accept header, honouring q-values. The highest-q supported
 * type wins; on a tie the one listed first. `*∕*`, a missing header or only unknown types answer
 * JSON (a 406 is never sent).
 */
export function negotiate(accept: string | undefined): Negotiated {
  if (!accept) return JSON_DEFAULT;
  let best: { n: Negotiated; q: number; index: number } | null = null;
  acceptedTypes(accept).forEach(({ type, q }, index) => {
    const n = SUPPORTED[type] ?? (type === '*/*' || type === 'application/*' ? JSON_DEFAULT : undefined);
    if (!n) return;
    if (!best || q > best.q) best = { n, q, index };
  });
  return (best as { n: Negotiated } | null)?.n ?? JSON_DEFAULT;
}

/** The media types a list may be exported in, as one stream of the whole collection (docs/exports.md). */
export const EXPORT_TYPES = {
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ndjson: 'application/x-ndjson',
} as const;
export type ExportFormat = keyof typeof EXPORT_TYPES;
const EXPORT_BY_TYPE: ReadonlyMap<string, ExportFormat> = new Map(Object.entries(EXPORT_TYPES).map(([f, t]) => [t as string, f as ExportFormat]));

/** Whether an Accept header may name an export type at all (a cheap look before negotiating it). */
export function mayAskExport(accept: string | undefined): boolean {
  return accept !== undefined && (accept.includes('csv') || accept.includes('spreadsheetml') || accept.includes('ndjson'));
}

/**
 * What an Accept header asks of a list: an export format when one of the export types has the
 * highest q of every type the service answers (JSON, XML, the export types, and `*∕*` or
 * `application/*` as JSON), the first listed on a tie; `body` whether JSON or XML would also do
 * (an explicit type or a wildcard with q > 0), so a list that cannot be exported answers that
 * instead of 406.
 */
export function negotiateExport(accept: string | undefined): { format: ExportFormat | null; body: boolean } {
  if (!accept) return { format: null, body: true };
  let best: { format: ExportFormat | null; q: number } | null = null;
  let body = false;
  for (const { type, q } of acceptedTypes(accept)) {
    const format = EXPORT_BY_TYPE.get(type);
    const wire = SUPPORTED[type] !== undefined || type === '*/*' || type === 'application/*';
    if (!format && !wire) continue;
    if (wire) body = true;
    if (!best || q > best.q) best = { format: format ?? null, q };
  }
  return { format: best?.format ?? null, body: body || best === null };
}
