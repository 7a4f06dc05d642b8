import Papa from 'papaparse';

/**
 * CSV as the service writes it (docs/exports.md): RFC 4180 — CRLF after every record, a field
 * quoted when it holds a quote, a comma, a line break or a space at either end, quotes doubled —
 * by PapaParse's `unparse`. (csv-stringify, which the imports read with its sister csv-parse,
 * allocated about 13 KB a record of 30 fields — six short-lived objects a field — and was a third
 * of an export's CPU with the collections it caused; bench/results/2026-11-27-csv-writer.md.)
 */
export function csvRecords(records: readonly (readonly Cell[])[]): string {
  if (records.length === 0) return '';
  return Papa.unparse(records as Cell[][], { header: false, newline: '\r\n', quotes: false, escapeFormulae: false }) + '\r\n';
}

/** A cell's value: text, a number, a boolean (written `true`/`false`, as in JSON), or empty (null). */
export type Cell = string | number | boolean | null;

/**
 * A text cell that a spreadsheet would read as a formula (`= + - @`, or a tab or carriage return
 * first) is written with a single quote before it (OWASP, "CSV Injection"): the cell shows the
 * text, nothing is evaluated. Numbers and booleans are written as themselves.
 */
export function neutralize(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** A member's JSON value as a cell (docs/exports.md): null empty, text neutralized, an object or array as its JSON text. */
export function cellOf(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return neutralize(value);
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  return neutralize(JSON.stringify(value));
}
