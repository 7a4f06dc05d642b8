/**
 * Limits a request body must meet before any work is done on it (docs/operations.md, "Input
 * limits"). Each check scans the raw text once, without recursion and with constant work per
 * character, so a hostile body cannot exhaust the stack or the CPU of the parser, of the
 * transform and validation that follow, or of this check itself. A body within these limits
 * holds at most a few thousand values: everything after the scan is bounded by them.
 */

/**
 * The deepest nesting a body may have: JSON objects/arrays inside one another, or XML elements
 * (the root element counts as one level). No request of the API comes near it.
 */
export const MAX_BODY_DEPTH = 64;

/** The limits of one body. The largest request of the API (an assessment with 200 ratings) uses a tenth of each. */
export interface BodyLimits {
  /** Nesting depth (see MAX_BODY_DEPTH). */
  depth: number;
  /** Members of one JSON object or items of one JSON array; child elements and attributes of one XML element. */
  membersPerObject: number;
  /** Keys and array items of the whole JSON body; elements and attributes of the whole XML document. */
  totalMembers: number;
  /** Bytes of one string as sent: a JSON string or key with its escapes, an XML text or attribute value. */
  stringBytes: number;
}

export const BODY_LIMITS: BodyLimits = {
  depth: MAX_BODY_DEPTH,
  membersPerObject: 1_000,
  totalMembers: 10_000,
  // The longest text field holds 10,000 characters; written as JSON \u escapes or XML character
  // references such a text takes up to ~80,000 bytes.
  stringBytes: 100_000,
};

/** Why a body was refused before parsing: a problem code and a detail naming the limit. */
export interface BodyLimitBreach {
  code: 'body-too-deep' | 'body-too-complex' | 'malformed-body';
  detail: string;
}

const fmt = (n: number) => n.toLocaleString('en-US');

const tooDeep = (limits: BodyLimits = BODY_LIMITS): BodyLimitBreach => ({
  code: 'body-too-deep',
  detail: `The body is nested deeper than ${limits.depth} levels`,
});
const tooManyMembers = (limits: BodyLimits, xml: boolean): BodyLimitBreach => ({
  code: 'body-too-complex',
  detail: xml
    ? `An XML element of the body has more than ${fmt(limits.membersPerObject)} child elements and attributes`
    : `An object or array of the body has more than ${fmt(limits.membersPerObject)} members`,
});
const tooManyInAll = (limits: BodyLimits, xml: boolean): BodyLimitBreach => ({
  code: 'body-too-complex',
  detail: xml
    ? `The body has more than ${fmt(limits.totalMembers)} XML elements and attributes`
    : `The body has more than ${fmt(limits.totalMembers)} keys and array items`,
});
const stringTooLong = (limits: BodyLimits): BodyLimitBreach => ({
  code: 'body-too-complex',
  detail: `A string of the body is longer than ${fmt(limits.stringBytes)} bytes`,
});

const OPEN_BRACE = 0x7b; // {
const OPEN_BRACKET = 0x5b; // [
const CLOSE_BRACE = 0x7d; // }
const CLOSE_BRACKET = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const COLON = 0x3a; // :
const COMMA = 0x2c; // ,

/**
 * Checks JSON text (bytes of UTF-8, or a string) against the limits in one pass: nesting depth,
 * members per object (its `:`s) or array (its `,`s + 1), keys and items in all, and the length
 * of each string. Brackets, colons and commas inside strings do not count. Malformed text is
 * left to the parser: the scan only has to bound what a well-formed body can hold.
 */
export function checkJsonBody(text: Uint8Array | string, limits: BodyLimits = BODY_LIMITS): BodyLimitBreach | null {
  const at = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i];
  // For each open container: members counted so far, and whether it is an array.
  const counts: number[] = [];
  const arrays: boolean[] = [];
  let total = 0;
  let inString = false;
  let stringStart = 0;
  for (let i = 0; i < text.length; i++) {
    const c = at(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        if (i - stringStart > limits.stringBytes) return stringTooLong(limits);
      }
    } else if (c === QUOTE) {
      inString = true;
      stringStart = i + 1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (counts.length >= limits.depth) return tooDeep(limits);
      // An object counts its members by their colons, an array its items by its commas + 1.
      arrays.push(c === OPEN_BRACKET);
      counts.push(c === OPEN_BRACKET ? 1 : 0);
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      counts.pop();
      arrays.pop();
    } else if (c === COLON || c === COMMA) {
      const top = counts.length - 1;
      if (top < 0 || (c === COLON) === arrays[top]) continue;
      if (++counts[top] > limits.membersPerObject) return tooManyMembers(limits, false);
      if (++total > limits.totalMembers) return tooManyInAll(limits, false);
    }
  }
  if (inString && text.length - stringStart > limits.stringBytes) return stringTooLong(limits);
  return null;
}

/** Characters XML 1.0 does not allow in a document, raw or as a character reference. */
// eslint-disable-next-line no-control-regex -- finding these characters is the point
const XML_FORBIDDEN_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const XML_FORBIDDEN_REF = /&#(?:[xX]0*(?:[0-8bBcCeEfF]|1[0-9a-fA-F]|[fF]{3}[eEfF])|0*(?:[0-8]|1[124-9]|2\d|3[01]|6553[45]));/;
const XML_DECLARATION = /^\uFEFF?<\?xml\s[^?]*?\bencoding\s*=\s*(?:"([^"]*)"|'([^']*)')/;

const malformed = (detail: string): BodyLimitBreach => ({ code: 'malformed-body', detail });

/**
 * Checks XML text against the limits in one pass — nesting depth, child elements plus attributes
 * of one element, elements plus attributes in all, the length of each text and attribute value —
 * and against what the parser would let through although it is not one well-formed XML 1.0
 * document in UTF-8: a character XML forbids (U+0000–U+001F but tab, newline and return;
 * U+FFFE, U+FFFF), raw or as a reference; a declared encoding other than UTF-8 (the bytes were
 * read as UTF-8); a second root element. Comments, CDATA sections, processing instructions and
 * declarations are skipped (a CDATA section counts as text), as are `>` inside quoted attribute
 * values; an element closed by `/>` adds no level. Other malformed text is left to the parser.
 */
export function checkXmlBody(text: string, limits: BodyLimits = BODY_LIMITS): BodyLimitBreach | null {
  const forbidden = XML_FORBIDDEN_CHAR.exec(text) ?? XML_FORBIDDEN_REF.exec(text);
  if (forbidden) {
    const ch = forbidden[0].length === 1 ? `U+${forbidden[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : forbidden[0];
    return malformed(`The XML body contains a character that XML 1.0 does not allow (${ch})`);
  }
  const decl = XML_DECLARATION.exec(text);
  const encoding = decl ? (decl[1] ?? decl[2] ?? '').trim() : null;
  if (encoding !== null && encoding.toLowerCase() !== 'utf-8') {
    return malformed(`The XML declaration names the encoding "${encoding}", but bodies are read as UTF-8: declare encoding="utf-8" or none`);
  }
  // Child elements and attributes counted so far in each open element.
  const counts: number[] = [];
  let total = 0;
  let roots = 0;
  let i = text.indexOf('<');
  while (i !== -1 && i < text.length - 1) {
    const next = text[i + 1];
    let end: number;
    if (next === '/') {
      counts.pop();
      end = text.indexOf('>', i);
    } else if (next === '?') {
      end = text.indexOf('?>', i + 2);
      if (end !== -1) end += 1;
    } else if (text.startsWith('<!--', i)) {
      end = text.indexOf('-->', i + 4);
      if (end !== -1) end += 2;
    } else if (text.startsWith('<![CDATA[', i)) {
      end = text.indexOf(']]>', i + 9);
      if (end !== -1 && end - (i + 9) > limits.stringBytes) return stringTooLong(limits);
      if (end !== -1) end += 2;
    } else if (next === '!') {
      end = text.indexOf('>', i);
    } else {
      // A start tag: its '>' outside quoted attribute values; each '=' outside them is an attribute.
      if (counts.length === 0 && ++roots > 1) return malformed('The XML body has more than one root element');
      let quote = '';
      let quoteStart = 0;
      let attributes = 0;
      end = -1;
      for (let j = i + 1; j < text.length; j++) {
        const c = text[j];
        if (quote) {
          if (c === quote) {
            quote = '';
            if (j - quoteStart > limits.stringBytes) return stringTooLong(limits);
          }
        } else if (c === '"' || c === "'") {
          quote = c;
          quoteStart = j + 1;
        } else if (c === '=') {
          attributes++;
        } else if (c === '>') {
          end = j;
          break;
        }
      }
      if (end === -1) return null;
      const top = counts.length - 1;
      if (top >= 0 && ++counts[top] > limits.membersPerObject) return tooManyMembers(limits, true);
      if (attributes > limits.membersPerObject) return tooManyMembers(limits, true);
      total += 1 + attributes;
      if (total > limits.totalMembers) return tooManyInAll(limits, true);
      if (text[end - 1] !== '/') {
        if (counts.length >= limits.depth) return tooDeep(limits);
        counts.push(attributes);
      }
    }
    if (end === -1) return null;
    i = text.indexOf('<', end + 1);
    // The text between two tags is one string.
    if (i - end - 1 > limits.stringBytes || (i === -1 && text.length - end - 1 > limits.stringBytes)) return stringTooLong(limits);
  }
  return null;
}

/**
 * The namespace the root element of an XML body is in, as its start tag declares it: the default
 * namespace (`xmlns="…"`) for an unprefixed root, `xmlns:p="…"` for a root `p:Name`; null when the
 * tag declares none. A namespace declared on the root is the only one a root can be in.
 */
export function xmlRootNamespace(text: string): string | null {
  let i = text.indexOf('<');
  while (i !== -1 && (text[i + 1] === '?' || text[i + 1] === '!')) {
    const close = text.startsWith('<!--', i) ? text.indexOf('-->', i) : text.indexOf('>', i);
    if (close === -1) return null;
    i = text.indexOf('<', close + 1);
  }
  if (i === -1) return null;
  const tag = /^<([^\s/>]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/.exec(text.slice(i, i + 4096));
  if (!tag) return null;
  const colon = tag[1].indexOf(':');
  const attr = colon === -1 ? 'xmlns' : `xmlns:${tag[1].slice(0, colon)}`;
  const re = /([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
  for (let m = re.exec(tag[2]); m; m = re.exec(tag[2])) if (m[1] === attr) return m[2] ?? m[3] ?? '';
  return null;
}

/**
 * The charset a Content-Type names, lower-cased and unquoted, or null when it names none.
 * Bodies are read as UTF-8 only: `charset=utf-8` (any case, quoted or not) and no charset at all
 * are accepted.
 */
export function charsetOf(contentType: string | undefined): string | null {
  const m = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  if (!m) return null;
  return (m[1] ?? m[2] ?? '').trim().toLowerCase();
}

export function isAcceptedCharset(charset: string | null): boolean {
  return charset === null || charset === 'utf-8';
}
