import { PassThrough, type Writable } from 'node:stream';
import archiver from 'archiver';
import { eventOrClose } from '../../common/tasks/event-or-close.js';

/**
 * What the zip stream may hold of a sheet's rows before they are compressed, in bytes of the sheet's
 * XML: past it, `settled` waits until the zip stream has taken all of it (docs/exports.md).
 */
export const XLSX_ZIP_BACKLOG = 1024 * 1024;

/**
 * Rows an XLSX export reads per statement, at most (EXPORT_BATCH_ROWS may be smaller): a batch of
 * people is about 1 MB of the sheet's XML, made as one text; batches of 1,000 with two read ahead,
 * as CSV reads them, were no faster (docs/exports.md, "Memory, backpressure, hang-ups").
 */
export const XLSX_BATCH_ROWS = 500;

/**
 * The deflate level of the workbook's parts: 1, the fastest. The sheet's XML is most of an export's
 * bytes and compresses about 10:1 at level 1 already; level 6 made a workbook of 100,000 people a
 * third smaller and took twice the compression time (docs/exports.md, "Measured").
 */
export const XLSX_DEFLATE_LEVEL = 1;

/** The most columns a sheet has (XFD). */
const MAX_COLUMNS = 16_384;

const DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE_RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** The workbook's parts other than the sheet: one sheet, the least styles a reader expects. */
function packageParts(sheetName: string): [name: string, xml: string][] {
  return [
    [
      '[Content_Types].xml',
      `${DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
        '</Types>',
    ],
    [
      '_rels/.rels',
      `${DECLARATION}<Relationships xmlns="${RELS}">` +
        `<Relationship Id="rId1" Type="${OFFICE_RELS}/officeDocument" Target="xl/workbook.xml"/>` +
        '</Relationships>',
    ],
    [
      'xl/workbook.xml',
      `${DECLARATION}<workbook xmlns="${MAIN}" xmlns:r="${OFFICE_RELS}">` +
        `<sheets><sheet name="${xmlText(sheetName)}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `${DECLARATION}<Relationships xmlns="${RELS}">` +
        `<Relationship Id="rId1" Type="${OFFICE_RELS}/worksheet" Target="worksheets/sheet1.xml"/>` +
        `<Relationship Id="rId2" Type="${OFFICE_RELS}/styles" Target="styles.xml"/>` +
        '</Relationships>',
    ],
    [
      'xl/styles.xml',
      `${DECLARATION}<styleSheet xmlns="${MAIN}">` +
        '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>' +
        '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
        '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
        '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>' +
        '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
        '</styleSheet>',
    ],
  ];
}

/**
 * Characters XML 1.0 does not allow in text (the C0 controls but tab, LF and CR; DEL), the ones it
 * must escape, and CR, which a reader would otherwise turn into LF (XML's end-of-line handling).
 */
// eslint-disable-next-line no-control-regex -- finding these characters is the point
const NOT_AS_IS = /[&<>"'\r\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/;
const NOT_AS_IS_ALL = new RegExp(NOT_AS_IS.source, 'g');
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#13;' };

/**
 * A text as XML character data: `& < > " '` escaped, CR as a character reference (so it is read
 * back as CR), the control characters XML 1.0 cannot hold left out (as exceljs, which wrote these
 * sheets before, left them out).
 */
function xmlText(text: string): string {
  return NOT_AS_IS.test(text) ? text.replace(NOT_AS_IS_ALL, (c) => ESCAPES[c] ?? '') : text;
}

/** The column's letters: 0 → A, 25 → Z, 26 → AA. */
function columnName(index: number): string {
  let name = '';
  for (let n = index; n >= 0; n = Math.floor(n / 26) - 1) name = String.fromCharCode(65 + (n % 26)) + name;
  return name;
}

/** A name a spreadsheet takes for a sheet: at most 31 characters, none of `\ / ? * : [ ]`, not empty. */
function sheetName(name: string): string {
  return name.replace(/[\\/?*:[\]]/g, '_').slice(0, 31) || 'Sheet1';
}

/**
 * One sheet of an XLSX workbook (SpreadsheetML, ECMA-376), streamed to `out`: the package's parts
 * zipped by archiver, the sheet's rows written as its XML as they come, in batches.
 *
 * A cell is written as exceljs wrote these sheets before (docs/exports.md, "Columns and cells"):
 * a text as `t="str"` with its value, a number as a number, a boolean as `t="b"`, an empty (null or
 * undefined) cell as no cell at all; every cell with its reference (`r="C7"`), every row with its
 * number. No shared strings, no styles beyond the default: what an export needs, one pass a row.
 *
 * The zip stream compresses at its own pace (in libuv's thread pool): rows added faster than they
 * are compressed would pile up in front of it. `settled` is the backpressure: once more than
 * XLSX_ZIP_BACKLOG waits to be compressed, it resolves only when all of it is, and then only when
 * `out` has taken what it was given.
 */
export class XlsxSheet {
  private readonly zip: archiver.Archiver;
  private readonly rowsXml = new PassThrough();
  private readonly columns: string[];
  private row = 0;

  constructor(
    private readonly out: Writable,
    name: string,
    header: readonly string[],
  ) {
    if (header.length > MAX_COLUMNS) throw new RangeError(`a sheet has at most ${MAX_COLUMNS} columns`);
    this.columns = header.map((_, k) => columnName(k));
    this.zip = archiver('zip', { zlib: { level: XLSX_DEFLATE_LEVEL } });
    // A failure of the zip stream (none is expected: it only compresses what it is given) ends the answer.
    this.zip.on('error', (err) => out.destroy(err));
    this.zip.pipe(out);
    for (const [part, xml] of packageParts(sheetName(name))) this.zip.append(xml, { name: part });
    this.rowsXml.write(`${DECLARATION}<worksheet xmlns="${MAIN}" xmlns:r="${OFFICE_RELS}"><sheetData>${this.xmlOf([header])}`);
    this.zip.append(this.rowsXml, { name: 'xl/worksheets/sheet1.xml' });
  }

  /** Adds rows of cells (texts, numbers, booleans, null), as one text of the sheet's XML. The rows given are not changed. */
  add(rows: readonly (readonly unknown[])[]): void {
    const xml = this.xmlOf(rows);
    if (xml) this.rowsXml.write(xml);
  }

  /** The rows' XML, numbered on from the last row written. */
  private xmlOf(rows: readonly (readonly unknown[])[]): string {
    const columns = this.columns;
    let xml = '';
    for (const cells of rows) {
      const n = ++this.row;
      xml += `<row r="${n}">`;
      const width = Math.min(cells.length, columns.length);
      for (let c = 0; c < width; c++) {
        const v = cells[c];
        if (v === null || v === undefined) continue;
        if (typeof v === 'number' && Number.isFinite(v)) xml += `<c r="${columns[c]}${n}"><v>${v}</v></c>`;
        else if (typeof v === 'boolean') xml += `<c r="${columns[c]}${n}" t="b"><v>${v ? 1 : 0}</v></c>`;
        else xml += `<c r="${columns[c]}${n}" t="str"><v>${xmlText(String(v))}</v></c>`;
      }
      xml += '</row>';
    }
    return xml;
  }

  /** Bytes of the sheet's XML given to the zip stream and not compressed yet. */
  get backlog(): number {
    return this.rowsXml.writableLength;
  }

  /**
   * Resolves when the zip stream holds at most XLSX_ZIP_BACKLOG bytes not compressed yet and `out`
   * has room, or when `gone()` says the destination is gone (checked on each of `out`'s events).
   */
  async settled(gone: () => boolean): Promise<void> {
    const intake = this.rowsXml;
    if (intake.writableLength > XLSX_ZIP_BACKLOG) {
      // 'drain' comes when the intake is empty; it had more than its high-water mark, so it will.
      while (intake.writableLength > 0 && intake.writableNeedDrain && !gone()) await eventOrClose(intake, 'drain', this.out);
    }
    // The compressed bytes are handed on as `out` takes them: give the zip stream turns to do so.
    for (let turn = 0; turn < 4 && !gone(); turn++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.out.writableNeedDrain && !gone()) await eventOrClose(this.out, 'drain');
    }
  }

  /** Ends the sheet and the workbook (its central directory), then `out` (the zip stream ends it). */
  async end(): Promise<void> {
    this.rowsXml.end('</sheetData></worksheet>');
    await this.zip.finalize();
    if (!this.out.writableEnded) this.out.end();
  }
}
