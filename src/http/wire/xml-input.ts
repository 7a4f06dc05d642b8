import xml2js from 'xml2js';
import { xmlRootNamespace } from './body-limits.js';

/**
 * Reading an XML body or file into plain values (docs/http-and-xml.md). Pure: no service state, so
 * the API's codec (WireCodec.decodeXml) and an import's parse worker (whole-file-worker.ts) read
 * XML the same way.
 */

export class XmlInputError extends Error {}

/**
 * Parses an XML text into the plain object a JSON body would give: element local names as keys
 * (namespaces ignored, element order ignored), `i:nil="true"` and absent both null, text values as
 * strings (the DTOs coerce them). A collection root (ArrayOf…, List, Dashboards) gives an array.
 * DOCTYPE and entity declarations are refused outright, which rules out entity expansion and
 * external entities. A root element declared in a namespace other than `namespace` is refused (a
 * DataContractSerializer would not read it either); a root that declares no namespace is read as
 * if it were in ours.
 */
export async function decodeXmlText(text: string, namespace: string): Promise<unknown> {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) {
    throw new XmlInputError('XML document type declarations and entities are not allowed');
  }
  const ns = xmlRootNamespace(text);
  if (ns !== null && ns !== namespace) {
    throw new XmlInputError(`The root element is in the namespace "${ns}"; bodies are read in the namespace "${namespace}"`);
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = (await xml2js.parseStringPromise(text, {
      explicitArray: true,
      explicitRoot: true,
      strict: true,
      tagNameProcessors: [xml2js.processors.stripPrefix],
      attrNameProcessors: [xml2js.processors.stripPrefix],
      xmlns: false,
    })) as Record<string, unknown>;
  } catch (e) {
    throw new XmlInputError(`Malformed XML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!parsed || typeof parsed !== 'object') throw new XmlInputError('The XML body is empty');
  const [rootName] = Object.keys(parsed);
  const root = parsed[rootName];
  if (/^ArrayOf|^List$|^Dashboards$/.test(rootName)) {
    if (typeof root !== 'object' || root === null) return [];
    const keys = Object.keys(root).filter((k) => k !== '$' && k !== '_');
    return keys.length ? ((root as Record<string, unknown[]>)[keys[0]] ?? []).map((n) => convertXmlNode(n)) : [];
  }
  const value = convertXmlNode(root);
  return value === '' ? {} : value;
}

function convertXmlNode(node: unknown): unknown {
  if (typeof node === 'string') return node;
  if (typeof node !== 'object' || node === null) return node;
  const n = node as Record<string, unknown>;
  const attrs = (n.$ ?? {}) as Record<string, string>;
  if (attrs.nil === 'true' || attrs.nil === '1') return null;
  const childKeys = Object.keys(n).filter((k) => k !== '$' && k !== '_');
  if (childKeys.length === 0) return typeof n._ === 'string' ? n._ : '';
  const out: Record<string, unknown> = {};
  for (const k of childKeys) {
    const arr = n[k] as unknown[];
    out[k] = arr.length === 1 ? convertXmlNode(arr[0]) : arr.map((x) => convertXmlNode(x));
  }
  return out;
}
