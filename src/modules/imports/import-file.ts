import { createInterface } from 'node:readline';
import { rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import { mediaTypeOf } from '../../http/pipeline/negotiation.js';
import { FileError, MAX_ROW_BYTES, type FileRow } from './whole-file.js';
import { wholeFileRows } from './whole-file-reader.js';

export { FileError, IMPORT_FILE_LIMITS, MAX_ROW_BYTES, type FileRow } from './whole-file.js';

/**
 * Reading an import's file (docs/imports.md): its format from the Content-Type, and its rows, one
 * after another, as records of field names → values, each with where it is in the file. Nothing
 * here is a hand-written parser: CSV is csv-parse (RFC 4180), XLSX exceljs's streaming
 * WorkbookReader, NDJSON node:readline and JSON.parse, XML the API's own XML reader.
 */

export type ImportFormat = 'csv' | 'xlsx' | 'ndjson' | 'json' | 'xml';

const FORMATS: Readonly<Record<string, ImportFormat>> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
  'application/json': 'json',
  'text/json': 'json',
  'application/xml': 'xml',
  'text/xml': 'xml',
};

/** The media types a file may be sent as. */
export const IMPORT_MEDIA_TYPES = Object.keys(FORMATS);

export function formatOf(contentType: string | undefined): ImportFormat | null {
  return FORMATS[mediaTypeOf(contentType)] ?? null;
}

/** The most columns a header (or a row) may have. */
export const MAX_COLUMNS = 1_000;
/** The largest JSON or XML file: read whole, unlike the others. */
export const MAX_WHOLE_FILE_BYTES = 16 * 1024 * 1024;

/**
 * A record from a header and a row of cells: an empty cell is null (the field is sent empty: null
 * clears it, or is refused where the field is required), a column the header does not name is
 * absent (an update keeps the field); `ExternalRefs.<Field>` columns go into the record's
 * ExternalRefs (empty: none). Cells are text, kept as they are: one that starts with = + - or @ is
 * that text, never a formula (docs/imports.md).
 */
function recordOf(header: readonly string[], cells: readonly unknown[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (let i = 0; i < header.length; i++) {
    const v = cells[i];
    const name = header[i];
    if (v === undefined || v === null || v === '') {
      if (!name.startsWith('ExternalRefs.')) record[name] = null;
      continue;
    }
    if (name.startsWith('ExternalRefs.')) {
      const refs = (record.ExternalRefs ??= {}) as Record<string, unknown>;
      refs[name.slice('ExternalRefs.'.length)] = v;
    } else record[name] = v;
  }
  return record;
}

/** The header's names, checked: none empty, none twice, at most MAX_COLUMNS. */
function headerOf(cells: readonly unknown[], where: string): string[] {
  if (cells.length > MAX_COLUMNS) throw new FileError(`The header row has ${cells.length} columns; at most ${MAX_COLUMNS} are read`);
  const names = cells.map((c) => String(c ?? '').trim());
  const seen = new Set<string>();
  names.forEach((n, i) => {
    if (n === '') throw new FileError(`Column ${i + 1} of the header row (${where}) has no name`);
    if (seen.has(n)) throw new FileError(`The header row names "${n}" twice`);
    seen.add(n);
  });
  if (names.length === 0) throw new FileError('The file has no header row');
  return names;
}

/** The row's problem when it has more cells than the header (CSV, XLSX). */
const wider = (n: number, header: number) => `The row has ${n} cells; the header names ${header} columns`;

// ------------------------------------------------------------------ CSV

async function* csvRows(source: Readable, onHeader: (names: string[]) => void): AsyncGenerator<FileRow> {
  const parser = source.pipe(parseCsv({ bom: true, raw: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_ROW_BYTES, cast: false }));
  source.on('error', (e) => parser.destroy(e));
  let header: string[] | null = null;
  // Line breaks before the record: a row's line is the line it starts on (csv-parse's own count
  // names a record's last line and counts a CRLF inside quotes twice).
  let breaks = 0;
  try {
    for await (const { record, raw } of parser as AsyncIterable<{ record: string[]; raw: string }>) {
      const at = lineBreaks(raw);
      const line = 1 + breaks + at.leading;
      breaks += at.total;
      if (!header) {
        header = headerOf(record, `line ${line}`);
        onHeader(header);
        continue;
      }
      if (record.length > MAX_COLUMNS || record.length > header.length) {
        yield { line, record: null, problem: wider(record.length, header.length) };
        continue;
      }
      yield { line, record: recordOf(header, record), problem: null };
    }
  } catch (e) {
    if (e instanceof FileError) throw e;
    const err = e as { code?: string; message?: string; lines?: number };
    if (err.code === 'CSV_MAX_RECORD_SIZE')
      throw new FileError(`A row is longer than ${MAX_ROW_BYTES} bytes (line ${err.lines ?? '?'}); is it CSV with a header row?`);
    if (typeof err.code === 'string' && err.code.startsWith('CSV_')) throw new FileError(`The CSV cannot be read on: ${err.message ?? err.code}`);
    throw e;
  }
  if (!header) throw new FileError('The file has no header row');
}

/**
 * The line breaks in a record's raw text as csv-parse gives it (CRLF, CR or LF, each one; the
 * empty lines skipped before it come first): those before its first cell, and all of them.
 */
function lineBreaks(raw: string): { leading: number; total: number } {
  let total = 0;
  let leading = 0;
  let content = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 13 || c === 10) {
      if (c === 13 && raw.charCodeAt(i + 1) === 10) i++;
      total++;
      if (!content) leading++;
    } else {
      content = true;
    }
  }
  return { leading, total };
}

// ------------------------------------------------------------------ XLSX

/** A cell's value as text: a formula is its text (`=SUM(A1:A3)`), never its result; dates ISO 8601. */
function cellText(v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  const o = v as { formula?: string; sharedFormula?: string; richText?: { text: string }[]; text?: unknown; error?: string };
  if (typeof o.formula === 'string') return `=${o.formula}`;
  if (typeof o.sharedFormula === 'string') return `=${o.sharedFormula}`;
  if (Array.isArray(o.richText)) return o.richText.map((t) => t.text).join('');
  if (o.text !== undefined) return cellText(o.text);
  if (typeof o.error === 'string') return o.error;
  return String(v);
}

/**
 * The items of `items`, until `failed` rejects: then that error, without waiting for the next item
 * (which may never come).
 */
async function* until<T>(items: AsyncIterable<T>, failed: Promise<never>): AsyncGenerator<T> {
  const it = items[Symbol.asyncIterator]();
  let broken = false;
  try {
    for (;;) {
      const next = await Promise.race([it.next(), failed]).catch((e: unknown) => {
        broken = true;
        throw e;
      });
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Left early by the reader of the rows (the first sheet only): the workbook's reader is closed.
    // Not after a failure: its next item is still pending, and its close would wait for it.
    if (!broken) await it.return?.();
  }
}

/**
 * exceljs's streaming reader (4.4) now and then loses the workbook's last entries (its model, the
 * shared strings) and then fails on the first sheet with "Cannot read properties of undefined
 * (reading 'sheets')", before any row: about one read in 200 of a workbook exceljs wrote (exceljs
 * issue #3064). Nothing is wrong with the file, so it is read again from its start, up to
 * XLSX_READS times, before the reading fails as a file that cannot be read.
 */
class LostWorkbookEntries extends FileError {}
const XLSX_READS = 5;

async function* xlsxRows(open: () => Readable, onHeader: (names: string[]) => void, unpackedSheetBytes: number): AsyncGenerator<FileRow> {
  for (let read = 1; ; read++) {
    const source = open();
    try {
      // LostWorkbookEntries comes before the header row, so before any row was given.
      yield* xlsxRowsOnce(source, onHeader, unpackedSheetBytes);
      return;
    } catch (e) {
      if (!(e instanceof LostWorkbookEntries) || read >= XLSX_READS) throw e;
      source.destroy();
    }
  }
}

async function* xlsxRowsOnce(source: Readable, onHeader: (names: string[]) => void, unpackedSheetBytes: number): AsyncGenerator<FileRow> {
  // The file's bytes come from the database, part after part: an error there (a connection lost)
  // is the source's, not the file's. ExcelJS pipes the source without listening for its errors
  // (an unhandled 'error' event ends the process) and would wait for its end for ever, so the
  // error is taken here and ends the reading as itself: a job is then resumed, not failed.
  let sourceError: Error | null = null;
  let refuse!: (e: FileError) => void;
  const failed = new Promise<never>((_, reject) => {
    source.on('error', (e: Error) => {
      sourceError ??= e;
      reject(e);
    });
    // A sheet that unpacks past its bound (capUnpackedSheets): exceljs would wait for ever for its temporary file.
    refuse = reject;
  });
  failed.catch(() => undefined);
  // The temporary files exceljs unpacks sheets to: removed when this reading ends, however it ends.
  // exceljs removes one only once its sheet is read to the end, and the reading stops after the first
  // sheet (or, when a POST checks the file, after its header row), so exceljs would never remove
  // them: each would stay on the replica's disk, as large as its sheet unpacks, until the process exits.
  // A file exceljs makes after the reading ended (its unzipping goes on while the source fails) is
  // removed as soon as it is open (`countUnpacked`, `removeOnceOpen`).
  const unpacked: Unpacked = { files: [], ended: false };
  // Loaded on the first XLSX file a replica reads: a replica that never reads one never holds exceljs and what it loads (docs/imports.md, "Memory").
  const { default: ExcelJS } = await import('exceljs');
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(source, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    entries: 'ignore',
  });
  capSharedStrings(reader);
  capUnpackedSheets(source, unpackedSheetBytes, refuse, unpacked);
  let header: string[] | null = null;
  try {
    for await (const sheet of until(reader, failed)) {
      for await (const row of until(sheet as AsyncIterable<{ number: number; values: unknown[] }>, failed)) {
        const cells = (Array.isArray(row.values) ? row.values.slice(1) : []).map(cellText);
        if (!header) {
          header = headerOf(cells, `row ${row.number}`);
          onHeader(header);
          continue;
        }
        while (cells.length && (cells[cells.length - 1] === undefined || cells[cells.length - 1] === '')) cells.pop();
        if (cells.length === 0) continue;
        if (cells.length > header.length) {
          yield { line: row.number, record: null, problem: wider(cells.length, header.length) };
          continue;
        }
        yield { line: row.number, record: recordOf(header, cells), problem: null };
      }
      // The first sheet only.
      break;
    }
  } catch (e) {
    if (sourceError) throw sourceError;
    if (e instanceof FileError) throw e;
    const message = `The XLSX file cannot be read: ${(e as Error).message}`;
    if (!header && e instanceof TypeError && /reading 'sheets'/.test(e.message)) throw new LostWorkbookEntries(message);
    throw new FileError(message);
  } finally {
    unpacked.ended = true;
    await Promise.all(unpacked.files.map(removeOnceOpen));
  }
  if (!header) throw new FileError('The first sheet has no header row');
}

/** The most characters of a workbook's shared strings an XLSX import keeps (in memory, as exceljs reads the sheet). */
export const MAX_SHARED_STRING_CHARS = 32_000_000;
/** The most shared strings an XLSX import keeps (each costs its text and about 40 bytes more). */
export const MAX_SHARED_STRINGS = 1_000_000;

/**
 * Holds a workbook's shared strings to MAX_SHARED_STRING_CHARS characters and MAX_SHARED_STRINGS
 * strings (docs/imports.md, "Bad files"). exceljs keeps them all in memory to read the sheet's cells
 * (`sharedStrings: 'cache'`), and a small file can unpack into a great many: a 1 MB workbook whose
 * strings unpack to 1 GiB took a replica from 278 MB to 1.39 GB. They are counted as exceljs adds
 * each one (the array it sets on the reader when it starts on them), and the file is refused
 * (FileError: 400 on the POST, the job failed) at the first past the bound, before any row is read.
 */
function capSharedStrings(reader: object): void {
  let strings: unknown[] | undefined;
  Object.defineProperty(reader, 'sharedStrings', {
    configurable: true,
    enumerable: true,
    get: () => strings,
    set: (list: unknown[]) => {
      let chars = 0;
      list.push = (...items: unknown[]): number => {
        for (const item of items) chars += sharedTextLength(item);
        if (chars > MAX_SHARED_STRING_CHARS || list.length + items.length > MAX_SHARED_STRINGS)
          throw new FileError(
            `The workbook's shared strings are more than ${MAX_SHARED_STRINGS.toLocaleString('en-US')} texts or ${MAX_SHARED_STRING_CHARS.toLocaleString('en-US')} characters, which an XLSX import holds in memory: send a file this large as CSV or NDJSON`,
          );
        return Array.prototype.push.apply(list, items);
      };
      strings = list;
    },
  });
}

/**
 * The most bytes an XLSX import unpacks a sheet to on disk (docs/imports.md, "Bad files"): a
 * workbook that stores a sheet before its shared strings (as Excel and exceljs save them) has that
 * sheet unpacked by exceljs to a temporary file, to be read once the strings are known.
 */
export const MAX_UNPACKED_SHEET_BYTES = 1024 * 1024 * 1024;

/** The temporary files exceljs made for one reading (the streams it writes them with), and whether that reading has ended. */
interface Unpacked {
  files: TempFile[];
  ended: boolean;
}

/** The write stream exceljs unpacks a sheet with (fs.createWriteStream of the temporary file's path). */
type TempFile = NodeJS.WritableStream & { path: string; pending?: boolean; closed?: boolean; destroy?: () => void };

/** The longest a temporary file's removal waits for its stream to open it. */
const OPEN_WAIT_MS = 10_000;

/**
 * Removes a temporary file once its write stream has opened it. The stream opens its path
 * asynchronously, with O_CREAT: a file removed before that open completes would be made again
 * by it and left behind (a CI run under load saw exactly that). Once opened (or failed), the
 * removal is final: exceljs's writes and reads go on to the unlinked file. One already gone, or
 * any error, changes nothing.
 */
async function removeOnceOpen(file: TempFile): Promise<void> {
  // `pending` (no descriptor) holds before the open and again after the close: only a stream not closed waits.
  // The wait is bounded (OPEN_WAIT_MS): a reading's end never hangs on a file, at worst one is left.
  if (file.pending && !file.closed)
    await new Promise<void>((settled) => {
      ['ready', 'close', 'error'].forEach((event) => file.once(event, () => settled()));
      setTimeout(settled, OPEN_WAIT_MS).unref();
    });
  await rm(file.path, { force: true }).catch(() => undefined);
}

/** A worksheet's entry, as exceljs's reader names it. */
const SHEET_ENTRY = /xl\/worksheets\/sheet\d+[.]xml/;

/**
 * Holds what exceljs unpacks of a sheet to a temporary file to `limit` bytes. exceljs pipes the
 * workbook's bytes (`source`) to its unzipper, iterates the entries it pushes, and pipes a sheet
 * that comes before the shared strings to a temporary file, with no bound but what the file unpacks
 * to (a 256 MiB upload can unpack to a thousand times as much). Each sheet entry's pipe goes through a
 * counter here; past `limit` the reading ends as the file's problem (`refuse` with a FileError: 400
 * on the POST, the job failed), which ends the rows (`until`) while exceljs still waits for the
 * temporary file; the file's stream and the source are destroyed. Each temporary file's stream goes
 * to `unpacked`, which the reading removes when it ends (xlsxRowsOnce), or at once after it ended. A sheet read in place (after
 * its strings) is iterated, not piped, and is not counted: it is never on disk.
 */
function capUnpackedSheets(source: Readable, limit: number, refuse: (e: FileError) => void, unpacked: Unpacked): void {
  const pipe = source.pipe.bind(source) as (dest: NodeJS.WritableStream, opts?: { end?: boolean }) => NodeJS.WritableStream;
  source.pipe = ((zip: NodeJS.WritableStream, opts?: { end?: boolean }) => {
    const intake = zip as unknown as { push: (entry: unknown) => boolean };
    const push = intake.push.bind(zip);
    intake.push = (entry: unknown): boolean => {
      const path = (entry as { path?: unknown } | null)?.path;
      if (typeof path === 'string' && SHEET_ENTRY.test(path)) countUnpacked(entry as Readable, source, limit, refuse, unpacked);
      return push(entry);
    };
    return pipe(zip, opts);
  }) as typeof source.pipe;
}

function countUnpacked(entry: Readable, source: Readable, limit: number, refuse: (e: FileError) => void, unpacked: Unpacked): void {
  const pipe = entry.pipe.bind(entry) as (dest: NodeJS.WritableStream, opts?: { end?: boolean }) => NodeJS.WritableStream;
  entry.pipe = ((disk: NodeJS.WritableStream & { path?: unknown; destroy?: () => void }, opts?: { end?: boolean }) => {
    if (typeof disk.path === 'string') {
      const file = disk as TempFile;
      unpacked.files.push(file);
      // Unlinked as soon as it is open, the file's bytes go nowhere that lasts, and exceljs still sees its write end.
      if (unpacked.ended) void removeOnceOpen(file);
    }
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes <= limit) return done(null, chunk);
        done();
        entry.unpipe(counter);
        entry.resume();
        disk.destroy?.();
        source.destroy();
        refuse(
          new FileError(
            `The workbook stores its sheet before its shared strings (as Excel saves it), so the sheet is unpacked to disk before it is read, and it unpacks to more than ${limit.toLocaleString('en-US')} bytes: send a file this large as CSV`,
          ),
        );
      },
    });
    pipe(counter);
    return counter.pipe(disk, opts);
  }) as typeof entry.pipe;
}

/** The characters of a shared string as exceljs keeps it: a text, or rich text's runs. */
function sharedTextLength(item: unknown): number {
  if (typeof item === 'string') return item.length;
  const runs = (item as { richText?: { text?: unknown }[] } | null)?.richText;
  return Array.isArray(runs) ? runs.reduce((n, r) => n + (typeof r?.text === 'string' ? r.text.length : 0), 0) : 0;
}

// ------------------------------------------------------------------ NDJSON

async function* ndjsonRows(source: Readable): AsyncGenerator<FileRow> {
  const lines = createInterface({ input: source, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    if (Buffer.byteLength(text) > MAX_ROW_BYTES) {
      yield { line, record: null, problem: `The line is longer than ${MAX_ROW_BYTES} bytes` };
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      yield { line, record: null, problem: `The line is not JSON: ${(e as Error).message}` };
      continue;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      yield { line, record: null, problem: 'The line is not a JSON object' };
      continue;
    }
    if (Object.keys(value).length > MAX_COLUMNS) {
      yield { line, record: null, problem: `The object has more than ${MAX_COLUMNS} members` };
      continue;
    }
    yield { line, record: value as Record<string, unknown>, problem: null };
  }
}

/** The rows of a file of `format` read from `source`; `onHeader` is shown a CSV's or a sheet's header row (it may throw FileError). */
export function rowsOf(
  format: ImportFormat,
  open: () => Readable,
  xmlNamespace: string,
  onHeader: (names: string[]) => void = () => undefined,
  limits: { unpackedSheetBytes?: number } = {},
): AsyncGenerator<FileRow> {
  switch (format) {
    case 'csv':
      return csvRows(open(), onHeader);
    case 'xlsx':
      // Opened again when exceljs loses the workbook's entries (xlsxRows).
      return xlsxRows(open, onHeader, limits.unpackedSheetBytes ?? MAX_UNPACKED_SHEET_BYTES);
    case 'ndjson':
      return ndjsonRows(open());
    case 'json':
    case 'xml':
      return wholeFileRows(format, open(), xmlNamespace, MAX_WHOLE_FILE_BYTES);
  }
}

/** Whether a format is text (UTF-8 is checked as it is received). */
export const isTextFormat = (format: ImportFormat): boolean => format !== 'xlsx';
