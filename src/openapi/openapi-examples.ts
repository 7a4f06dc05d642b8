import { ordinalCompare } from '../http/wire/wire.js';
import { XSI_NS } from '../http/wire/codec.js';
import { listElementOf, PLACEHOLDERS } from '../http/wire/examples.js';

/**
 * What the document shows for a placeholder in a field: its example UUID, or its example integer
 * when the field is an integer (the ids of periods, goals, colors…), or the token itself.
 */
export function exampleValue(token: string, integerField: boolean): unknown {
  const p = PLACEHOLDERS[token];
  if (integerField && p.integer !== undefined) return p.integer;
  return p.uuid ?? p.integer ?? token;
}

/**
 * The placeholder a value of a documented example stands for, if it is one: an example id in an id
 * field (`…ID`; `ID` itself only ever holds the path's id, other id fields the other placeholders,
 * whose example values differ), or a token (a password, a user name) in any field.
 */
export function placeholderOf(field: string, value: unknown): string | undefined {
  const idField = field.endsWith('ID');
  const shows = (token: string) => {
    const p = PLACEHOLDERS[token];
    if (p.uuid === undefined && p.integer === undefined) return value === token;
    return idField && (value === p.uuid || value === p.integer);
  };
  if (field === 'ID') return shows('PATH_ID') ? 'PATH_ID' : undefined;
  return Object.keys(PLACEHOLDERS).find((token) => token !== 'PATH_ID' && shows(token));
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The XML form of a JSON example, as the service reads it and as .NET's DataContractSerializer
 * writes it: root named after the type in the service's namespace, children in ordinal order,
 * nulls as i:nil.
 */
export function xmlExample(root: string, namespace: string, body: Record<string, unknown>): string {
  const nil = JSON.stringify(body).includes(':null');
  return `<${root} xmlns="${namespace}"${nil ? ` xmlns:i="${XSI_NS}"` : ''}>\n${xmlChildren(body, '  ')}\n</${root}>`;
}

/** The members of an object in ordinal order; nested lists one element per item, members likewise. */
function xmlChildren(body: Record<string, unknown>, indent: string): string {
  return Object.keys(body)
    .sort(ordinalCompare)
    .map((k) => {
      const v = body[k];
      if (v === null) return `${indent}<${k} i:nil="true"/>`;
      if (Array.isArray(v)) {
        const item = listElementOf(k);
        const items = v.map((x) => `${indent}  <${item}>\n${xmlChildren(x as Record<string, unknown>, indent + '    ')}\n${indent}  </${item}>`);
        return `${indent}<${k}>\n${items.join('\n')}\n${indent}</${k}>`;
      }
      // A nested record (a bulk item's Record): its members as child elements.
      if (typeof v === 'object') return `${indent}<${k}>\n${xmlChildren(v as Record<string, unknown>, indent + '  ')}\n${indent}</${k}>`;
      return `${indent}<${k}>${escapeXml(String(v))}</${k}>`;
    })
    .join('\n');
}
