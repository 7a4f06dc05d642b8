import fs, { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { jest } from '@jest/globals';
import { tmpdir } from 'node:os';
import { Readable, Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { XlsxSheet } from '../../http/wire/xlsx-sheet.js';
import { FileError, IMPORT_FILE_LIMITS, rowsOf, type FileRow, type ImportFormat } from './import-file.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A job's file is read from the database part after part (ImportsService.fileStream): when the
 * database goes away mid-file, the reading must end with the database's error — which the processor
 * answers by trying the job again once its lease runs out — never as a file that cannot be read (the
 * job would fail for good), never by ending early (rows skipped), never by waiting for ever, and
 * never with an unhandled 'error' event, which ends the replica's process.
 */
const ROWS = 3000;

async function workbook(): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('People');
  ws.addRow(['ExternalID', 'FirstName']);
  // Text that does not compress to nothing, so half the file holds a part of the sheet.
  for (let i = 0; i < ROWS; i++) ws.addRow([`x${i}`, `Name ${i} ${(i * 7919).toString(36)}`]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const lost = () => Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST' });

/** `bytes` as the database hands them, 64 KiB at a time; with `failAt`, the connection is lost after that many bytes. */
function parts(bytes: Buffer, failAt?: number): Readable {
  async function* read(): AsyncGenerator<Buffer> {
    const end = failAt ?? bytes.length;
    for (let o = 0; o < end; o += 65536) yield bytes.subarray(o, Math.min(o + 65536, end));
    if (failAt !== undefined) {
      await sleep(5);
      throw lost();
    }
  }
  return Readable.from(read(), { objectMode: false });
}

/** Every row of the file `open` gives (opened again only where the reading asks it to: XLSX, see import-file.ts). */
async function readAll(format: ImportFormat, open: () => Readable, limits: { unpackedSheetBytes?: number } = {}): Promise<{ rows: FileRow[]; error: unknown }> {
  const rows: FileRow[] = [];
  try {
    for await (const row of rowsOf(format, open, 'urn:pms:v4', undefined, limits)) rows.push(row);
    return { rows, error: null };
  } catch (error) {
    return { rows, error };
  }
}

describe('reading an import file whose source fails (the database lost mid-file)', () => {
  it('XLSX: the whole file gives every row; cut by a lost connection, the reading ends with that error, not a FileError, and the process lives on', async () => {
    const file = await workbook();
    const whole = await readAll('xlsx', () => parts(file));
    expect(whole.error).toBeNull();
    expect(whole.rows).toHaveLength(ROWS);
    expect(whole.rows[ROWS - 1]).toEqual({ line: ROWS + 1, record: { ExternalID: `x${ROWS - 1}`, FirstName: expect.any(String) }, problem: null });

    const cut = await readAll('xlsx', () => parts(file, Math.floor(file.length / 2)));
    expect(cut.error).toBeInstanceOf(Error);
    expect(cut.error).not.toBeInstanceOf(FileError);
    expect((cut.error as { code?: string }).code).toBe('PROTOCOL_CONNECTION_LOST');
    expect(cut.rows.length).toBeLessThan(ROWS);
  });

  it('XLSX: a file that is no workbook is still a FileError', async () => {
    const bad = await readAll('xlsx', () => parts(Buffer.from('PK\u0003\u0004 not a zip at all, just text')));
    expect(bad.error).toBeInstanceOf(FileError);
  });

  it('CSV and NDJSON: the lost connection ends the reading as itself, after the rows before it', async () => {
    const csv = Buffer.from(['ExternalID,FirstName', ...Array.from({ length: ROWS }, (_, i) => `x${i},Name ${i}`)].join('\n') + '\n');
    const ndjson = Buffer.from(Array.from({ length: ROWS }, (_, i) => JSON.stringify({ ExternalID: `x${i}` })).join('\n') + '\n');
    for (const [format, file] of [
      ['csv', csv],
      ['ndjson', ndjson],
    ] as const) {
      const cut = await readAll(format, () => parts(file, 65536));
      expect(cut.error).not.toBeInstanceOf(FileError);
      expect((cut.error as { code?: string }).code).toBe('PROTOCOL_CONNECTION_LOST');
      expect(cut.rows.length).toBeGreaterThan(0);
      expect(cut.rows.length).toBeLessThan(ROWS);
    }
  });
});

describe('reading an XLSX that exceljs wrote (its workbook entry after its sheets)', () => {
  it("reads the first sheet every time: exceljs's streaming reader loses the workbook's entries now and then (exceljs issue #3064), and the file is then read again", async () => {
    const wb = new ExcelJS.Workbook();
    const people = wb.addWorksheet('People');
    people.addRow(['ExternalID', 'FirstName']);
    people.addRow(['x1', 'Ada']);
    wb.addWorksheet('Ignored').addRow(['not', 'read']);
    const file = Buffer.from(await wb.xlsx.writeBuffer());
    const failures: unknown[] = [];
    // 1,000 reads: read once each, several of them fail here (5 to 8 a run, "Cannot read properties of undefined (reading 'sheets')").
    for (let k = 0; k < 1000; k++) {
      const { rows, error } = await readAll('xlsx', () => parts(file));
      if (error) failures.push((error as Error).message);
      else expect(rows).toEqual([{ line: 2, record: { ExternalID: 'x1', FirstName: 'Ada' }, problem: null }]);
    }
    expect(failures).toEqual([]);
  });
});

describe('an XLSX an export wrote (XlsxSheet), imported again', () => {
  it('gives every row and every text back as exported: XML-special characters, line breaks, characters beyond the BMP, neutralized formulas', async () => {
    const texts = ['Ampersand & <angle> "quotes"', 'two\r\nlines', ' spaced ', '中文 😀', "'=1+1", 'x'.repeat(10_000)];
    const chunks: Buffer[] = [];
    const out = new Writable({ write: (chunk: Buffer, _enc, done) => (chunks.push(chunk), done()) });
    const finished = new Promise((resolve) => out.on('finish', resolve));
    const sheet = new XlsxSheet(out, 'individuals', ['ExternalID', 'FirstName', 'LastName']);
    for (let b = 0; b < 4; b++) {
      sheet.add(Array.from({ length: 500 }, (_, k) => [`x${b * 500 + k}`, texts[(b * 500 + k) % texts.length], k % 7 ? `Last ${k}` : null]));
      await sheet.settled(() => false);
    }
    await sheet.end();
    await finished;
    const file = Buffer.concat(chunks);
    const { rows, error } = await readAll('xlsx', () => parts(file));
    expect(error).toBeNull();
    expect(rows).toHaveLength(2000);
    rows.forEach((row, i) =>
      expect(row).toEqual({
        line: i + 2,
        record: { ExternalID: `x${i}`, FirstName: texts[i % texts.length], LastName: (i % 500) % 7 ? `Last ${i % 500}` : null },
        problem: null,
      }),
    );
  });
});

describe('an XLSX whose shared strings unpack to more than an import holds (a zip bomb)', () => {
  it('is refused as a FileError naming the bound before any row is read', async () => {
    // 1,100 distinct texts of 30,000 characters: 33,000,000 characters of shared strings (more
    // than MAX_SHARED_STRING_CHARS) in a file of a few hundred KB.
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('People');
    ws.addRow(['ExternalID', 'FirstName']);
    const filler = 'A'.repeat(29_990);
    for (let i = 0; i < 1100; i++) ws.addRow([`x${i}`, `${filler}${String(i).padStart(10, '0')}`]);
    const file = Buffer.from(await wb.xlsx.writeBuffer({ useSharedStrings: true } as ExcelJS.XlsxWriteOptions));
    expect(file.length).toBeLessThan(2_000_000);
    const { rows, error } = await readAll('xlsx', () => parts(file));
    expect(error).toBeInstanceOf(FileError);
    expect((error as Error).message).toMatch(/shared strings are more than 1,000,000 texts or 32,000,000 characters.*CSV/);
    expect(rows).toEqual([]);
    // Within the bounds, the same kind of workbook reads whole.
    const small = new ExcelJS.Workbook();
    const sw = small.addWorksheet('People');
    sw.addRow(['ExternalID', 'FirstName']);
    for (let i = 0; i < 100; i++) sw.addRow([`x${i}`, `${filler}${i}`]);
    const smallFile = Buffer.from(await small.xlsx.writeBuffer({ useSharedStrings: true } as ExcelJS.XlsxWriteOptions));
    const ok = await readAll('xlsx', () => parts(smallFile));
    expect(ok.error).toBeNull();
    expect(ok.rows).toHaveLength(100);
    expect(ok.rows[99].record).toEqual({ ExternalID: 'x99', FirstName: `${filler}99` });
  });
});

describe('an XLSX whose sheet is unpacked to disk before it is read (stored before its shared strings, as Excel and exceljs save it)', () => {
  // The temporary files exceljs makes (the tmp package: tmp-<pid>-…) of this process.
  const ours = () => readdirSync(tmpdir()).filter((f) => f.startsWith(`tmp-${process.pid}-`));
  /**
   * The files made since `before` that are still there once removals under way have had up to 5 s
   * (a loaded machine delays them; a file left behind stays for ever and is answered as left). A
   * test whose file may appear only after its reading ended (made late, or made again by a late
   * open) waits for that first: a look before it would find nothing.
   */
  const left = async (before: Set<string>): Promise<string[]> => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const made = ours().filter((f) => !before.has(f));
      if (made.length === 0 || Date.now() > deadline) return made;
      await sleep(50);
    }
  };

  it('is refused as a FileError once the sheet unpacks past the bound, with the temporary file removed; within the bound it reads whole', async () => {
    const file = await workbook();
    const before = new Set(ours());
    const capped = await readAll('xlsx', () => parts(file), { unpackedSheetBytes: 20_000 });
    expect(capped.error).toBeInstanceOf(FileError);
    expect((capped.error as Error).message).toMatch(/sheet before its shared strings.*unpacks to more than 20,000 bytes: send a file this large as CSV/);
    expect(capped.rows).toEqual([]);
    await sleep(100);
    expect(await left(before)).toEqual([]);
    // The same file within a bound above its sheet's size: every row.
    const whole = await readAll('xlsx', () => parts(file), { unpackedSheetBytes: 10_000_000 });
    expect(whole.error).toBeNull();
    expect(whole.rows).toHaveLength(ROWS);
  });

  it('leaves no temporary file behind once read: whole (an import job), or stopped after its first row (the POST checks only the header)', async () => {
    const file = await workbook();
    const before = new Set(ours());
    const whole = await readAll('xlsx', () => parts(file));
    expect(whole.error).toBeNull();
    expect(whole.rows).toHaveLength(ROWS);
    expect(await left(before)).toEqual([]);
    let seen = 0;
    for await (const row of rowsOf('xlsx', () => parts(file), 'urn:pms:v4', undefined, {})) {
      expect(row.record).not.toBeNull();
      seen++;
      break;
    }
    expect(seen).toBe(1);
    expect(await left(before)).toEqual([]);
  });

  it('leaves no temporary file behind when the file is opened late (a loaded machine): a removal before the open would be undone by it', async () => {
    // fs.createWriteStream opens its path asynchronously (O_CREAT): a CI run under load removed the
    // file before that open completed, and the open made it again. Here each open of this process's
    // temporary files waits 150 ms, so the refusal (and the reading's end) comes first every time.
    const file = await workbook();
    const before = new Set(ours());
    const open = fs.open;
    const late = jest.spyOn(fs, 'open').mockImplementation(((path: unknown, ...rest: unknown[]) => {
      const go = () => (open as (...a: unknown[]) => void)(path, ...rest);
      if (typeof path === 'string' && basename(path).startsWith(`tmp-${process.pid}-`)) setTimeout(go, 150);
      else go();
    }) as typeof fs.open);
    try {
      const capped = await readAll('xlsx', () => parts(file), { unpackedSheetBytes: 20_000 });
      expect(capped.error).toBeInstanceOf(FileError);
      const header = rowsOf('xlsx', () => parts(file), 'urn:pms:v4', undefined, {});
      expect((await header.next()).value?.record).not.toBeNull();
      await header.return(undefined);
      expect(late).toHaveBeenCalled();
      await sleep(400);
      expect(await left(before)).toEqual([]);
    } finally {
      late.mockRestore();
    }
  });

  it('leaves no temporary file behind when the source fails mid-file, though exceljs makes one after the reading ended', async () => {
    const file = await workbook();
    const before = new Set(ours());
    const cut = await readAll('xlsx', () => parts(file, Math.floor(file.length / 2)));
    expect((cut.error as { code?: string }).code).toBe('PROTOCOL_CONNECTION_LOST');
    // exceljs's unzipping goes on a moment after the reading ended.
    await sleep(200);
    expect(await left(before)).toEqual([]);
  });
});

describe('a JSON or XML file is held to the scan limits of a body before it is parsed', () => {
  const whole = (text: string) => () => Readable.from([Buffer.from(text)]);
  const xml = (text: string) => readAll('xml', whole(text));

  it('refuses a file nested deeper than a body may be (a stack-exhausting file) with a FileError naming the bound', async () => {
    const depth = IMPORT_FILE_LIMITS.depth + 1;
    const deepJson = await readAll('json', whole(`[${'['.repeat(depth)}${']'.repeat(depth)}]`));
    expect(deepJson.error).toBeInstanceOf(FileError);
    expect((deepJson.error as Error).message).toMatch(/The file is nested deeper than 64 levels/);
    const deepXml = await xml(`<ArrayOfIndividual>${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}</ArrayOfIndividual>`);
    expect(deepXml.error).toBeInstanceOf(FileError);
    expect((deepXml.error as Error).message).toMatch(/nested deeper than 64 levels/);
    expect(deepJson.rows).toEqual([]);
  });

  it('refuses a string longer than a row may be, and reads a file of many flat records', async () => {
    const long = await readAll('json', whole(JSON.stringify([{ FirstName: 'x'.repeat(IMPORT_FILE_LIMITS.stringBytes + 1) }])));
    expect((long.error as Error).message).toMatch(/A string of the file is longer than 1,048,576 bytes/);
    const many = Array.from({ length: 5000 }, (_, i) => ({ ExternalID: `x${i}`, FirstName: 'A', LastName: 'B' }));
    const ok = await readAll('json', whole(JSON.stringify(many)));
    expect(ok.error).toBeNull();
    expect(ok.rows).toHaveLength(5000);
  });
});

describe('a CSV row is named by the line it starts on', () => {
  it('after quoted cells that hold line breaks (CRLF, LF, CR) and skipped empty lines, with or without a BOM', async () => {
    const whole = (text: string) => () => Readable.from([Buffer.from(text)]);
    for (const nl of ['\r\n', '\n']) {
      const text = ['\uFEFFExternalID,FirstName', '"a', 'b",A', '', 'c,"B1', 'B2', 'B3"', 'd,C', '', '', 'e,D'].join(nl) + nl;
      const { rows, error } = await readAll('csv', whole(text));
      expect(error).toBeNull();
      expect(rows.map((r) => [r.line, r.record?.ExternalID])).toEqual([
        [2, `a${nl}b`],
        [5, 'c'],
        [8, 'd'],
        [11, 'e'],
      ]);
    }
    // A lone CR is a line break too, as editors show it.
    const cr = await readAll('csv', whole('ExternalID,FirstName\r\n"x\ry",A\r\nz,B\r\n'));
    expect(cr.rows.map((r) => r.line)).toEqual([2, 4]);
  });
});
