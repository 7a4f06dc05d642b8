import { decodeXmlText } from './xml-input.js';
import { formatDate, formatUtcInstant, offsetAt, TimeZone, UTC } from '../../common/dates.js';
import { ordinalCompare, wireFields, wireFieldsOrdinal, wireTypeName, type WireFieldMeta, type WireResultMeta } from './wire.js';
import type { ProblemDetails } from '../../common/errors/errors.js';

/**
 * The one place that turns answers into JSON or XML text and XML request bodies into plain
 * objects (docs/http-and-xml.md). It knows nothing of HTTP frameworks: the interceptor and the error filter
 * call it with a negotiated format.
 */
export type WireFormat = 'json' | 'xml';

export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';
export const SYSTEM_NS = 'http://schemas.datacontract.org/2004/07/System';
export const PROBLEM_XML_NS = 'urn:ietf:rfc:7807';

// Characters XML 1.0 cannot carry at all; they are dropped from text rather than producing a
// document no client can read.
// eslint-disable-next-line no-control-regex
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#xD;' };

/** Text content: markup characters escaped, CR kept as &#xD; (parsers fold raw CRLF to LF). */
function xmlText(text: string): string {
  if (!XML_SPECIAL.test(text)) return text;
  return text.replace(XML_INVALID, '').replace(/[&<>\r]/g, (c) => ESCAPES[c]);
}
// eslint-disable-next-line no-control-regex
const XML_SPECIAL = /[&<>\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

type XmlElementWriter = (name: string, value: unknown, tz: TimeZone, field?: WireFieldMeta) => string;
type XmlBodyWriter = (value: object, tz: TimeZone, element: XmlElementWriter) => string;
const xmlBodies = new WeakMap<Function, XmlBodyWriter>();

/**
 * The children of a wire class's element in ordinal order, compiled once per class
 * (docs/performance.md): nil and text members are written inline, anything else (dates, lists,
 * nested records) by the codec's element writer. Only declared names (JSON-quoted, and checked
 * to be XML names) reach the generated source.
 */
function xmlBodyOf(cls: Function): XmlBodyWriter {
  let body = xmlBodies.get(cls);
  if (!body) {
    const fields = wireFieldsOrdinal(cls);
    const lines = fields.map((f, i) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(f.name)) throw new Error(`wire field ${f.name} is not an XML name`);
      const q = (text: string) => JSON.stringify(text);
      return (
        `x = v[${q(f.name)}]; out += x == null ? ${q(`<${f.name} i:nil="true"/>`)} : typeof x === 'string' ? ` +
        `((t = xmlText(x)) === '' ? ${q(`<${f.name}/>`)} : ${q(`<${f.name}>`)} + t + ${q(`</${f.name}>`)}) : element(${q(f.name)}, x, tz, fields[${i}]);`
      );
    });
    body = new Function('xmlText', 'fields', `return function xmlBody(v, tz, element) {\n  let x, t, out = '';\n  ${lines.join('\n  ')}\n  return out;\n};`)(
      xmlText,
      fields,
    ) as XmlBodyWriter;
    xmlBodies.set(cls, body);
  }
  return body;
}

function isWireClassInstance(v: unknown): v is object {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && shaperOf(v.constructor) !== null;
}

function scalarText(v: unknown, tz: TimeZone): string {
  if (v instanceof Date) return formatDate(v, tz);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  return String(v);
}

function element(name: string, inner: string): string {
  return inner === '' ? `<${name}/>` : `<${name}>${inner}</${name}>`;
}

/** A JSON-ready value: wire classes in declaration order, dates rendered in `tz`. */
export function toJsonValue(value: unknown, tz: TimeZone = UTC): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object') return value;
  if (value instanceof Date) return formatDate(value, tz);
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = toJsonValue(value[i], tz);
    return out;
  }
  const shape = shaperOf(value.constructor);
  if (shape) return shape(value, tz);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = toJsonValue(v, tz);
  return out;
}

type Shaper = (value: object, tz: TimeZone) => Record<string, unknown>;
/** Per class: its compiled shaper, or null for a class without wire fields (plain objects). */
const shapers = new WeakMap<Function, Shaper | null>();

/**
 * The JSON-ready object of a wire class, compiled once per class from its declared fields
 * (docs/performance.md): one object literal with the members in declaration order, so a page of
 * 500 records costs 500 allocations of one shape instead of a generic walk over metadata. The
 * generated source holds only the declared member names (JSON-quoted); no input reaches it.
 */
function shaperOf(cls: Function | undefined): Shaper | null {
  if (typeof cls !== 'function') return null;
  let shaper = shapers.get(cls);
  if (shaper === undefined) {
    const names = wireFields(cls).map((f) => f.name);
    if (names.length === 0) {
      shaper = null;
    } else {
      const members = names.map((n) => {
        const key = JSON.stringify(n);
        return `${key}: (x = v[${key}]) == null ? null : typeof x === 'object' ? convert(x, tz) : x`;
      });
      shaper = new Function('convert', `return function shape(v, tz) { let x; return {\n${members.join(',\n')}\n}; };`)(toJsonValue) as Shaper;
    }
    shapers.set(cls, shaper);
  }
  return shaper;
}

/**
 * The texts a kept answer (a frozen record from a RecordMemo, src/http/wire/record-memo.ts) was
 * rendered to: per format, for the zone it was last rendered in, and its ETag. An answer that is
 * read again unchanged is then written without rendering it again (docs/performance.md, "Record
 * memo"). Weakly held: they go with the answer.
 */
export interface KeptRenders {
  jsonZone?: string;
  json?: string;
  /** The UTF-8 bytes of `json`, once a list was written from them (WireCodec.encodeBytes). */
  jsonBytes?: Buffer;
  xmlZone?: string;
  xml?: string;
  /** The UTF-8 bytes of `xml`, likewise. */
  xmlBytes?: Buffer;
  etag?: string;
}
const kept = new WeakMap<object, KeptRenders>();

/** Marks a frozen answer whose rendered texts are kept with it (RecordMemo calls this). */
export function keepRenders(value: object): void {
  if (!Object.isFrozen(value)) throw new Error('only a frozen answer can keep its rendered texts');
  if (!kept.has(value)) kept.set(value, {});
}

/** The kept texts of an answer, or undefined when it keeps none. */
export function keptRendersOf(value: unknown): KeptRenders | undefined {
  return typeof value === 'object' && value !== null ? kept.get(value) : undefined;
}

/**
 * The same text as one flat string. A body written by `+=` is a tree of a hundred or so pieces
 * (V8's cons strings), and a kept body would be walked piece by piece on every page it is joined
 * into: an XML page of 500 spent 3.7 ms doing that (docs/performance.md). Converting to a number
 * makes V8 flatten the string in place, once.
 */
function flat(text: string): string {
  void Number(text);
  return text;
}

function zoneKey(tz: TimeZone): string {
  return tz.kind === 'fixed' ? String(tz.offsetMinutes) : tz.name;
}

function renderJson(value: unknown, tz: TimeZone): string {
  return JSON.stringify(toJsonValue(value, tz)) ?? 'null';
}

/** A kept text in one format for the zone `tz`: the kept one when it was rendered for that zone. */
function keptText(renders: KeptRenders, format: WireFormat, tz: TimeZone, render: () => string): string {
  const zone = zoneKey(tz);
  const zoneField = format === 'json' ? 'jsonZone' : 'xmlZone';
  let text = renders[format];
  if (renders[zoneField] !== zone || text === undefined) {
    text = renders[format] = render();
    renders[zoneField] = zone;
    renders[format === 'json' ? 'jsonBytes' : 'xmlBytes'] = undefined;
  }
  return text;
}

/** The UTF-8 bytes of a kept text (see keptText), encoded once per text. */
function keptBytes(renders: KeptRenders, format: WireFormat, tz: TimeZone, render: () => string): Buffer {
  const text = keptText(renders, format, tz, render);
  const field = format === 'json' ? 'jsonBytes' : 'xmlBytes';
  return (renders[field] ??= Buffer.from(text, 'utf8'));
}

const JSON_OPEN = Buffer.from('[');
const JSON_COMMA = Buffer.from(',');
const JSON_CLOSE = Buffer.from(']');

/**
 * `open`, the items' bytes separated by `between`, `close`, copied into one buffer; undefined as
 * soon as an item has none.
 */
function joinedBytes(values: readonly unknown[], open: Buffer, between: Buffer, close: Buffer, item: (v: unknown) => Buffer | undefined): Buffer | undefined {
  const parts = new Array<Buffer>(2 * values.length + 1);
  parts[0] = open;
  for (let i = 0; i < values.length; i++) {
    const bytes = item(values[i]);
    if (bytes === undefined) return undefined;
    parts[2 * i + 1] = bytes;
    parts[2 * i + 2] = i === values.length - 1 ? close : between;
  }
  return Buffer.concat(parts);
}

/** One record's JSON text, from its kept texts when it has them. */
function recordJson(value: unknown, tz: TimeZone): string {
  const renders = keptRendersOf(value);
  return renders === undefined ? renderJson(value, tz) : keptText(renders, 'json', tz, () => renderJson(value, tz));
}

/**
 * The JSON text of a value: `JSON.stringify(toJsonValue(value, tz))` (the ETag relies on it
 * being exactly that), with wire classes through their compiled shapers and the text written by
 * V8's native serializer. A kept answer, or a list of them, is written from the kept texts (a
 * list's text is its members' texts joined, as JSON.stringify writes it).
 */
export function jsonText(value: unknown, tz: TimeZone = UTC): string {
  if (Array.isArray(value)) {
    if (value.length === 0 || keptRendersOf(value[0]) === undefined) return renderJson(value, tz);
    const parts = new Array<string>(value.length);
    for (let i = 0; i < value.length; i++) parts[i] = recordJson(value[i], tz);
    return '[' + parts.join(',') + ']';
  }
  return recordJson(value, tz);
}

export class WireCodec {
  /** xmlElement, bound once for the compiled bodies. */
  private readonly element: XmlElementWriter = (name, value, tz, field) => this.xmlElement(name, value, tz, field);

  constructor(readonly namespace: string) {}

  // ------------------------------------------------------------------ XML output
  //
  // Written directly from the wire metadata (no intermediate tree): a 500-record page is written
  // about three times faster than through xml2js's builder (bench/RESULTS.md).

  /** One element for a value: nil, a DateTimeOffset, a list, a nested record, or text. */
  private xmlElement(name: string, value: unknown, tz: TimeZone, field?: WireFieldMeta): string {
    if (value === undefined || value === null) return `<${name} i:nil="true"/>`;
    if (field?.kind === 'dateTimeOffset' && value instanceof Date) {
      return `<${name} xmlns:a="${SYSTEM_NS}"><a:DateTime>${formatUtcInstant(value)}</a:DateTime><a:OffsetMinutes>${offsetAt(tz, value)}</a:OffsetMinutes></${name}>`;
    }
    if (Array.isArray(value)) {
      const itemName = field?.nested ? (wireTypeName(field.nested()) ?? field.nested().name) : 'Item';
      return element(name, value.map((v) => this.xmlElement(itemName, v, tz)).join(''));
    }
    if (value instanceof Date || typeof value !== 'object') return element(name, xmlText(scalarText(value, tz)));
    return element(name, this.xmlBody(value, tz));
  }

  /** The children of a record: wire classes in ordinal order, plain objects by sorted key. */
  private xmlBody(obj: object, tz: TimeZone): string {
    const rec = obj as Record<string, unknown>;
    let out = '';
    const renders = kept.get(obj);
    if (renders !== undefined) return keptText(renders, 'xml', tz, () => this.keptXmlBody(obj, tz));
    if (isWireClassInstance(obj)) return xmlBodyOf(obj.constructor)(obj, tz, this.element);
    for (const k of Object.keys(rec).sort(ordinalCompare)) {
      const v = rec[k];
      if (v === undefined) continue;
      out += Array.isArray(v) ? v.map((x) => this.xmlElement(k, x, tz)).join('') : this.xmlElement(k, v, tz);
    }
    return out;
  }

  private xmlRoot(root: string, inner: string): string {
    const open = `${root} xmlns="${this.namespace}" xmlns:i="${XSI_NS}"`;
    return inner === '' ? `${XML_DECLARATION}<${open}/>` : `${XML_DECLARATION}<${open}>${inner}</${root}>`;
  }

  /** Encodes a handler's answer. `meta` says the type, whether it is a collection, and the root. */
  encode(value: unknown, format: WireFormat, tz: TimeZone = UTC, meta?: WireResultMeta): string {
    if (format === 'json') return jsonText(value ?? {}, tz);
    if (Array.isArray(value)) {
      const first = value.find((v) => isWireClassInstance(v)) as object | undefined;
      const typeName = meta?.type ? (wireTypeName(meta.type) ?? meta.type.name) : first ? (wireTypeName(first.constructor) ?? 'Object') : 'Object';
      const root = meta?.root ?? `ArrayOf${typeName}`;
      return this.xmlRoot(root, value.map((v) => this.xmlElement(typeName, v, tz)).join(''));
    }
    const root = value && isWireClassInstance(value) ? (wireTypeName(value.constructor) ?? meta?.root ?? 'Object') : (meta?.root ?? 'Object');
    if (value === undefined || value === null || typeof value !== 'object') return this.xmlRoot(root, '');
    return this.xmlRoot(root, this.xmlBody(value, tz));
  }

  /**
   * A list answered with only some of its fields (`fields=`, docs/queries.md): each record's members
   * of `fields` — already checked names of the record's wire class, ID among them — in declared
   * order in JSON, in ordinal order in XML, written as the full answer writes them (nil, dates in
   * `tz`, DateTimeOffset, nested records); the members left out are absent, not null.
   */
  encodeFields(value: readonly unknown[], fields: readonly string[], format: WireFormat, tz: TimeZone = UTC, meta?: WireResultMeta): string {
    const keep = new Set(fields);
    if (format === 'json') {
      const parts = value.map((v) => {
        const full = toJsonValue(v, tz) as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(full)) if (keep.has(k)) out[k] = full[k];
        return JSON.stringify(out);
      });
      return '[' + parts.join(',') + ']';
    }
    const typeName = meta?.type ? (wireTypeName(meta.type) ?? meta.type.name) : 'Object';
    const root = meta?.root ?? `ArrayOf${typeName}`;
    const items = value.map((v) => {
      if (!isWireClassInstance(v)) return this.xmlElement(typeName, v, tz);
      const rec = v as Record<string, unknown>;
      let inner = '';
      for (const f of wireFieldsOrdinal(v.constructor)) if (keep.has(f.name)) inner += this.xmlElement(f.name, rec[f.name], tz, f);
      return element(typeName, inner);
    });
    return this.xmlRoot(root, items.join(''));
  }

  /**
   * The body of a non-empty list whose first record keeps its rendered texts (a page read through
   * a record memo, src/http/wire/record-memo.ts) as bytes: each kept record's UTF-8 bytes, encoded
   * once, copied with the list's own into one buffer. Byte for byte `Buffer.from(encode(…))`, at a
   * fraction of the cost: joining 500 texts into one string, measuring it and encoding it again for
   * the socket took about 1.5 ms of a page (docs/performance.md, "Record memo"). Undefined for any
   * other value: `encode` it.
   */
  encodeBytes(value: unknown, format: WireFormat, tz: TimeZone = UTC, meta?: WireResultMeta): Buffer | undefined {
    if (!Array.isArray(value) || value.length === 0 || keptRendersOf(value[0]) === undefined) return undefined;
    if (format === 'json') {
      return joinedBytes(value, JSON_OPEN, JSON_COMMA, JSON_CLOSE, (v) => {
        const renders = keptRendersOf(v);
        return renders === undefined ? Buffer.from(renderJson(v, tz), 'utf8') : keptBytes(renders, 'json', tz, () => renderJson(v, tz));
      });
    }
    const typeName = meta?.type ? (wireTypeName(meta.type) ?? meta.type.name) : (wireTypeName((value[0] as object).constructor) ?? 'Object');
    const root = meta?.root ?? `ArrayOf${typeName}`;
    const bytes = joinedBytes(
      value,
      Buffer.from(`${XML_DECLARATION}<${root} xmlns="${this.namespace}" xmlns:i="${XSI_NS}"><${typeName}>`, 'utf8'),
      Buffer.from(`</${typeName}><${typeName}>`, 'utf8'),
      Buffer.from(`</${typeName}></${root}>`, 'utf8'),
      (v) => {
        // Only kept records with a body: anything else (null, an empty record) is written as `encode` writes it.
        const renders = keptRendersOf(v);
        const body = renders && keptBytes(renders, 'xml', tz, () => this.keptXmlBody(v as object, tz));
        return body?.length ? body : undefined;
      },
    );
    return bytes ?? Buffer.from(this.encode(value, format, tz, meta), 'utf8');
  }

  /** The XML body of a kept record, flattened once (see `flat`). */
  private keptXmlBody(obj: object, tz: TimeZone): string {
    return flat(xmlBodyOf(obj.constructor)(obj, tz, this.element));
  }

  /** RFC 9457 problem details; XML per its appendix (namespace urn:ietf:rfc:7807, arrays as <i>). */
  encodeProblem(problem: ProblemDetails, format: WireFormat): string {
    if (format === 'json') return JSON.stringify(problem);
    let inner = '';
    for (const [k, v] of Object.entries(problem)) {
      if (v === undefined) continue;
      if (k === 'errors' && Array.isArray(v)) {
        const items = v
          .map((e: { field: string; message: string }) => element('i', element('field', xmlText(e.field)) + element('message', xmlText(e.message))))
          .join('');
        inner += element('errors', items);
      } else {
        inner += element(k, xmlText(scalarText(v, UTC)));
      }
    }
    return `${XML_DECLARATION}<problem xmlns="${PROBLEM_XML_NS}">${inner}</problem>`;
  }

  // ------------------------------------------------------------------ XML input

  /** Parses an XML request body into the plain object a JSON body would give (xml-input.ts, `decodeXmlText`), in the service's namespace. */
  decodeXml(text: string): Promise<unknown> {
    return decodeXmlText(text, this.namespace);
  }
}

export { XmlInputError } from './xml-input.js';
