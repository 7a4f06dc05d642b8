import Papa from 'papaparse';
import { formatDateOnce, type TimeZone } from '../../common/dates.js';
import { toJsonValue } from './codec.js';
import { wireFields } from './wire.js';

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
 * A text cell that a spreadsheet would read as a formula (`= + - @`, or a tab, carriage return or
 * NUL first: OWASP "CSV Injection", ASVS; and, to be safe, the full-width forms `＝ ＋ － ＠`) is
 * written with a single quote before it: the cell shows the text, nothing is evaluated. Numbers
 * and booleans are written as themselves.
 */
export function neutralize(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

const FORMULA_START = /^[=+\-@\t\r\0\uFF1D\uFF0B\uFF0D\uFF20]/;

/** A member's JSON value as a cell (docs/exports.md): null empty, text neutralized, an object or array as its JSON text. */
export function cellOf(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return neutralize(value);
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  return neutralize(JSON.stringify(value));
}

type CellsWriter = (v: Record<string, unknown>, tz: TimeZone) => Cell[];
/** Per column list (the array an export keeps for its rows), per wire class: its compiled cells writer. */
const cellWriters = new WeakMap<readonly string[], Map<Function, CellsWriter>>();

/** A member that is neither text nor a number nor a boolean: a date's text, or a nested record's or a list's JSON text. */
function otherCell(x: object, tz: TimeZone): Cell {
  return neutralize(x instanceof Date ? formatDateOnce(x, tz) : JSON.stringify(toJsonValue(x, tz)));
}

/**
 * The cells of one exported record (CSV and XLSX, docs/exports.md), in `columns`' order: what
 * `cellOf` makes of each column of the record's JSON value (`toJsonValue`), without building that
 * value first. For a wire class it is compiled once per column list (the one array an export
 * passes for all its rows) and class, like the codec's shapers (only declared member names,
 * JSON-quoted, reach the generated source); dates are written
 * without the kept texts (formatDateOnce: an export reads each record once). Anything else (a
 * plain object) goes through its JSON value.
 */
export function exportCells(record: unknown, columns: readonly string[], tz: TimeZone): Cell[] {
  if (typeof record !== 'object' || record === null) return columns.map(() => null);
  const cls = record.constructor;
  let writers = cellWriters.get(columns);
  if (!writers) cellWriters.set(columns, (writers = new Map()));
  let write = writers.get(cls);
  if (!write) {
    const declared = new Set(wireFields(cls).map((f) => f.name));
    if (declared.size === 0 || !columns.every((c) => declared.has(c))) {
      write = (v, zone) => {
        const json = toJsonValue(v, zone) as Record<string, unknown>;
        return columns.map((c) => cellOf(json[c]));
      };
    } else {
      const cells = columns.map((c) => {
        const q = JSON.stringify(c);
        return `(x = v[${q}]) == null ? null : typeof x === 'string' ? neutralize(x) : typeof x === 'object' ? other(x, tz) : x`;
      });
      write = new Function('neutralize', 'other', `return function cells(v, tz) { let x; return [\n${cells.join(',\n')}\n]; };`)(
        neutralize,
        otherCell,
      ) as CellsWriter;
    }
    writers.set(cls, write);
  }
  return write(record as Record<string, unknown>, tz);
}
