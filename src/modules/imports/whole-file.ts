import { BODY_LIMITS, checkJsonBody, checkXmlBody, type BodyLimits } from '../../http/wire/body-limits.js';
import { decodeXmlText } from '../../http/wire/xml-input.js';

/**
 * The JSON and XML files of an import, which are read whole (docs/imports.md, "The file"): checked
 * against the scan limits, parsed, and cut into rows. Pure (no service state, no parser of the other
 * formats), so an import's parse worker (whole-file-worker.ts) runs it off the event loop.
 */

/** The longest row (a CSV record, an NDJSON line, a string of a JSON or XML file), in bytes. */
export const MAX_ROW_BYTES = 1024 * 1024;

/** A row of the file: where it is, and its record (or why it cannot be one). */
export interface FileRow {
  /** The file's line (the header is line 1 of a CSV), the sheet's row number (XLSX), the item's position from 1 (JSON, XML). */
  line: number;
  record: Record<string, unknown> | null;
  /** Why the row is no record (a cell too many, not a JSON object); the row fails with 400. */
  problem: string | null;
}

/** The file cannot be read on (its header, or a syntax error that ends it): 400 when received, the job fails when met later. */
export class FileError extends Error {}

/**
 * The scan limits of a JSON or XML file (the request body's, src/http/wire/body-limits.ts), checked
 * before it is parsed: a file nested deeper than a body may be (a 14 MB XML file nested two million
 * levels took 1.28 GB and exhausted the parser's stack) or holding more than a 16 MiB file of
 * records holds is refused with a problem naming the bound. A record's members are held to
 * MAX_COLUMNS as its row is read.
 */
export const IMPORT_FILE_LIMITS: BodyLimits = { ...BODY_LIMITS, membersPerObject: 1_000_000, totalMembers: 2_000_000, stringBytes: MAX_ROW_BYTES };

function checkWhole(breach: ReturnType<typeof checkJsonBody>): void {
  if (breach) throw new FileError(breach.detail.replace(/\bbody\b/g, 'file'));
}

function itemsOf(value: unknown): FileRow[] {
  // One object is a file of one record.
  const items = value && typeof value === 'object' && !Array.isArray(value) ? [value] : value;
  if (!Array.isArray(items)) throw new FileError('The file holds no list of records (a JSON array, or an XML ArrayOf… element)');
  return items.map((item: unknown, k) =>
    !item || typeof item !== 'object' || Array.isArray(item)
      ? { line: k + 1, record: null, problem: 'The item is not an object' }
      : { line: k + 1, record: item as Record<string, unknown>, problem: null },
  );
}

/**
 * The rows of a whole JSON or XML file's text; FileError when it breaks a scan limit or does not
 * parse. `namespace` is the service's XML namespace (a root in another is refused, as for a body).
 */
export async function parseWholeFile(format: 'json' | 'xml', text: string, namespace: string): Promise<FileRow[]> {
  if (format === 'json') {
    const json = text.replace(/^\uFEFF/, '');
    checkWhole(checkJsonBody(json, IMPORT_FILE_LIMITS));
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch (e) {
      throw new FileError(`Malformed JSON: ${(e as Error).message}`);
    }
    return itemsOf(value);
  }
  checkWhole(checkXmlBody(text, IMPORT_FILE_LIMITS));
  let value: unknown;
  try {
    value = await decodeXmlText(text, namespace);
  } catch (e) {
    throw new FileError((e as Error).message);
  }
  return itemsOf(value);
}
