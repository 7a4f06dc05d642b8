import { PassThrough, Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { parseStringPromise } from 'xml2js';
import { XLSX_ZIP_BACKLOG, XlsxSheet } from './xlsx-sheet.js';
import { setTimeout as sleep } from 'node:timers/promises';

const HEADER = ['First', 'Last', 'Number', 'Even', ...Array.from({ length: 10 }, (_, i) => `Text${i}`)];

/** A batch of `n` rows as wide as a person's (14 cells, about 700 bytes of XML), numbered from `from`. */
function rows(from: number, n: number): unknown[][] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return [`Person ${i}`, `Last name ${i * 7919}`, i, i % 2 === 0, ...Array.from({ length: 10 }, (_, c) => `text ${c} of row ${i}`)];
  });
}

/** A destination as fast as a client on loopback (a chunk a turn), keeping what it took. */
function destination(): { out: Writable; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const out = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk);
      setImmediate(done);
    },
  });
  return { out, bytes: () => Buffer.concat(chunks) };
}

/** Ends the sheet, waits until `out` has taken all of it, and reads the workbook back. */
async function readBack(sheet: XlsxSheet, out: Writable, bytes: () => Buffer): Promise<ExcelJS.Worksheet> {
  const finished = new Promise<void>((resolve) => out.on('finish', () => resolve()));
  await sheet.end();
  await finished;
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes() as unknown as ArrayBuffer);
  return workbook.worksheets[0];
}

describe('XlsxSheet: an XLSX sheet streamed with what waits to be compressed bounded', () => {
  it('holds at most its bound plus one batch of XML, however fast batches come, and writes every row', async () => {
    const { out, bytes } = destination();
    const sheet = new XlsxSheet(out, 'people', HEADER);
    const BATCHES = 40;
    const BATCH = 1000;
    let peak = 0;
    for (let b = 0; b < BATCHES; b++) {
      sheet.add(rows(b * BATCH, BATCH));
      peak = Math.max(peak, sheet.backlog);
      await sheet.settled(() => false);
      // After settled, at most the bound waits to be compressed (with batches one after another
      // and no bound, the zip stream fell behind by about 0.7 MB a batch: 28 MB after 40).
      expect(sheet.backlog).toBeLessThanOrEqual(XLSX_ZIP_BACKLOG);
    }
    // A batch of 1,000 rows is about 700 KB of XML: the most held is the bound and one batch.
    expect(peak).toBeLessThanOrEqual(XLSX_ZIP_BACKLOG + 1024 * 1024);
    expect(peak).toBeGreaterThan(0);

    const read = await readBack(sheet, out, bytes);
    expect(read.name).toBe('people');
    expect(read.rowCount).toBe(BATCHES * BATCH + 1);
    expect(read.getRow(1).values).toEqual([undefined, ...HEADER]);
    expect(read.getRow(2).values).toEqual([undefined, ...rows(0, 1)[0]]);
    const last = BATCHES * BATCH - 1;
    expect(read.getRow(BATCHES * BATCH + 1).values).toEqual([undefined, ...rows(last, 1)[0]]);
  }, 60_000);

  it('stops waiting when the destination is gone', async () => {
    // A destination that never takes anything: the zip stream cannot hand its bytes on, so it stops compressing.
    const out = new PassThrough({ highWaterMark: 16 * 1024 });
    const sheet = new XlsxSheet(out, 'people', HEADER);
    let gone = false;
    let batches = 0;
    const writing = (async () => {
      while (!gone) {
        sheet.add(rows(batches * 1000, 1000));
        batches++;
        await sheet.settled(() => gone);
      }
    })();
    await sleep(300);
    // Stuck: a few batches in, held back by the bound, not piling up.
    expect(batches).toBeLessThan(20);
    expect(sheet.backlog).toBeLessThanOrEqual(XLSX_ZIP_BACKLOG + 1024 * 1024);
    gone = true;
    out.destroy();
    await writing;
  }, 10_000);
  it('writes an empty (null) cell as no cell, keeping every other cell in its column, and leaves the rows given as they were', async () => {
    const { out, bytes } = destination();
    const sheet = new XlsxSheet(out, 'gaps', ['A', 'B', 'C', 'D', 'E']);
    const given: unknown[][] = [
      [null, 'b', null, 4, null],
      ['a', null, false, null, 'e'],
      [null, null, null, null, null],
      ['=1+1', null, null, null, 'last'],
    ];
    const copies = given.map((row) => [...row]);
    sheet.add(given);
    expect(given).toEqual(copies);
    const read = await readBack(sheet, out, bytes);
    const cells = (n: number) => [1, 2, 3, 4, 5].map((c) => read.getRow(n).getCell(c).value);
    expect(cells(2)).toEqual([null, 'b', null, 4, null]);
    expect(cells(3)).toEqual(['a', null, false, null, 'e']);
    expect(cells(4)).toEqual([null, null, null, null, null]);
    expect(cells(5)).toEqual(['=1+1', null, null, null, 'last']);
    // No cell element at all for an empty cell: the row holds only the cells with values.
    expect(read.getRow(2).actualCellCount).toBe(2);
  });

  /** Texts a person's fields may hold, each as the sheet must give it back. */
  const TEXTS = [
    'plain',
    'Ampersand & <angle> "quotes" \'apostrophe\'',
    '  leading and trailing spaces  ',
    'line one\nline two\r\nand a\ttab',
    'Ωmega, 中文, 😀 (beyond the BMP), e\u0301 (combining)',
    '\'=HYPERLINK("http://x")',
    '</v></c><c r="Z1"><v>1</v></c>',
    ']]> <![CDATA[ x ]]>',
    'x'.repeat(40_000),
  ];

  it('writes every text as given (XML-special characters, whitespace, characters beyond the BMP, long texts) and numbers and booleans as such', async () => {
    const { out, bytes } = destination();
    const sheet = new XlsxSheet(out, 'texts & <more>', ['Text', 'Number', 'Flag']);
    sheet.add(TEXTS.map((t, k) => [t, k % 2 ? -k * 1.5 : k * 1e15, k % 3 === 0]));
    const read = await readBack(sheet, out, bytes);
    expect(read.name).toBe('texts & <more>');
    TEXTS.forEach((t, k) => {
      const row = read.getRow(k + 2);
      expect([row.getCell(1).value, row.getCell(2).value, row.getCell(3).value]).toEqual([t, k % 2 ? -k * 1.5 : k * 1e15, k % 3 === 0]);
    });
  });

  it('leaves out the control characters XML 1.0 cannot hold, and writes a number that is not finite as its text', async () => {
    const { out, bytes } = destination();
    const sheet = new XlsxSheet(out, 'controls', ['Text', 'Number']);
    sheet.add([
      ['a\u0000b\u0001c\u0008d\u000Be\u000Cf\u001Fg\u007Fh', Number.NaN],
      ['tab\tkept', Number.POSITIVE_INFINITY],
    ]);
    const read = await readBack(sheet, out, bytes);
    expect([read.getRow(2).getCell(1).value, read.getRow(2).getCell(2).value]).toEqual(['abcdefgh', 'NaN']);
    expect([read.getRow(3).getCell(1).value, read.getRow(3).getCell(2).value]).toEqual(['tab\tkept', 'Infinity']);
  });

  it('is a package whose every part is well-formed XML and named in its content types, the sheet last', async () => {
    const { out, bytes } = destination();
    const sheet = new XlsxSheet(out, 'people', HEADER);
    sheet.add(rows(0, 50));
    sheet.add([[TEXTS[1], TEXTS[6], TEXTS[7]]]);
    const finished = new Promise<void>((resolve) => out.on('finish', () => resolve()));
    await sheet.end();
    await finished;
    const zip = await JSZip.loadAsync(bytes());
    const names = Object.keys(zip.files).filter((n) => !zip.files[n].dir);
    expect(names).toEqual(['[Content_Types].xml', '_rels/.rels', 'xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'xl/styles.xml', 'xl/worksheets/sheet1.xml']);
    for (const name of names) await expect(parseStringPromise(await zip.files[name].async('string'))).resolves.toBeTruthy();
    const types = await zip.files['[Content_Types].xml'].async('string');
    for (const part of ['/xl/workbook.xml', '/xl/worksheets/sheet1.xml', '/xl/styles.xml']) expect(types).toContain(`PartName="${part}"`);
    const sheetXml = await zip.files['xl/worksheets/sheet1.xml'].async('string');
    expect(sheetXml).toContain('<row r="52"><c r="A52" t="str"><v>Ampersand &amp; &lt;angle&gt; &quot;quotes&quot; &apos;apostrophe&apos;</v></c>');
  });

  it('names its sheet as a spreadsheet allows: 31 characters at most, none of \\ / ? * : [ ], never empty', async () => {
    for (const [given, named] of [
      ['a/b\\c?d*e:f[g]h', 'a_b_c_d_e_f_g_h'],
      ['x'.repeat(40), 'x'.repeat(31)],
      ['', 'Sheet1'],
    ]) {
      const { out, bytes } = destination();
      const read = await readBack(new XlsxSheet(out, given, ['A']), out, bytes);
      expect(read.name).toBe(named);
    }
  });

  it('refuses more columns than a sheet has', () => {
    const { out } = destination();
    expect(
      () =>
        new XlsxSheet(
          out,
          'wide',
          Array.from({ length: 16_385 }, (_, k) => `c${k}`),
        ),
    ).toThrow(RangeError);
  });
});
