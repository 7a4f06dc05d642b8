/**
 * Limits a request body must meet before any work is done on it (docs/operations.md, "Input
 * limits"). Both checks scan the raw text once, without recursion, so a hostile body cannot
 * exhaust the stack of the parser, of validation, or of this check itself.
 */

/**
 * The deepest nesting a body may have: JSON objects/arrays inside one another, or XML elements
 * (the root element counts as one level). No request of the API comes near it.
 */
export const MAX_BODY_DEPTH = 64;

const OPEN_BRACE = 0x7b; // {
const OPEN_BRACKET = 0x5b; // [
const CLOSE_BRACE = 0x7d; // }
const CLOSE_BRACKET = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * Whether JSON text (bytes of UTF-8, or a string) nests objects/arrays deeper than `limit`.
 * Brackets inside strings do not count. Malformed text is left to the parser.
 */
export function jsonDepthExceeds(text: Uint8Array | string, limit = MAX_BODY_DEPTH): boolean {
  const at = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i];
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = at(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/**
 * Whether XML text nests elements deeper than `limit`. Comments, CDATA sections, processing
 * instructions and declarations are skipped, as are `>` inside quoted attribute values; an
 * element closed by `/>` adds no level. Malformed text is left to the parser.
 */
export function xmlDepthExceeds(text: string, limit = MAX_BODY_DEPTH): boolean {
  let depth = 0;
  let i = text.indexOf('<');
  while (i !== -1 && i < text.length - 1) {
    const next = text[i + 1];
    let end: number;
    if (next === '/') {
      depth--;
      end = text.indexOf('>', i);
    } else if (next === '?') {
      end = text.indexOf('?>', i + 2);
      if (end !== -1) end += 1;
    } else if (text.startsWith('<!--', i)) {
      end = text.indexOf('-->', i + 4);
      if (end !== -1) end += 2;
    } else if (text.startsWith('<![CDATA[', i)) {
      end = text.indexOf(']]>', i + 9);
      if (end !== -1) end += 2;
    } else if (next === '!') {
      end = text.indexOf('>', i);
    } else {
      // A start tag: find its '>' outside quoted attribute values.
      let quote = '';
      end = -1;
      for (let j = i + 1; j < text.length; j++) {
        const c = text[j];
        if (quote) {
          if (c === quote) quote = '';
        } else if (c === '"' || c === "'") {
          quote = c;
        } else if (c === '>') {
          end = j;
          break;
        }
      }
      if (end !== -1 && text[end - 1] !== '/' && ++depth > limit) return true;
    }
    if (end === -1) return false;
    i = text.indexOf('<', end + 1);
  }
  return false;
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
