import type { EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { eventOrClose } from '../../common/tasks/event-or-close.js';

/**
 * What the zip stream may hold of a sheet's rows before they are compressed, in bytes of the sheet's
 * XML: past it, `settled` waits until the zip stream has taken all of it (docs/exports.md).
 */
export const XLSX_ZIP_BACKLOG = 1024 * 1024;

/**
 * Rows an XLSX export reads per statement, at most (EXPORT_BATCH_ROWS may be smaller). exceljs
 * allocates about 50 KB a row (a cell object, an address and a value object a cell, the row's XML
 * in pieces), so a batch of 1,000 rows is 50 MB: most of the 64 MB young generation, so a batch
 * being written, and the next one read ahead, were alive at nearly every scavenge, copied, and
 * promoted (200 MB a 200,000 rows, then full collections). At 500 rows a batch dies in the
 * scavenge after it (8 MB promoted), and the scavenges' pauses fell to a third or less
 * (docs/exports.md, "Memory, backpressure, hang-ups").
 */
export const XLSX_BATCH_ROWS = 500;

/** The writable side of the stream exceljs's sheet hands its XML to (archiver's PassThrough, readable-stream 2). */
interface ZipIntake extends EventEmitter {
  _writableState?: { length: number; needDrain: boolean };
}

/**
 * One sheet of an XLSX workbook, streamed to `out` by exceljs (`stream.xlsx.WorkbookWriter`, no
 * styles, no shared strings), with what waits to be compressed bounded.
 *
 * exceljs hands a sheet's XML to its zip stream in 64 KiB buffers without asking whether the zip
 * stream can take them, and the zip stream compresses at its own pace: rows added faster than
 * they are compressed pile up there (an export of 1,000,000 people rose 1.3 GB so). `settled`
 * is the missing backpressure: once more than XLSX_ZIP_BACKLOG waits to be compressed, it
 * resolves only when all of it is, and then only when `out` has taken what it was given.
 */
export class XlsxSheet {
  private readonly workbook: ExcelJS.stream.xlsx.WorkbookWriter;
  private readonly sheet: ExcelJS.Worksheet;

  constructor(
    private readonly out: Writable,
    name: string,
    header: readonly string[],
  ) {
    this.workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
    this.sheet = this.workbook.addWorksheet(name.slice(0, 31));
    this.sheet.addRow([...header]).commit();
  }

  /**
   * Adds rows of cells (texts, numbers, booleans, dates, null), each committed: written to the sheet's XML.
   *
   * An empty (null) cell is handed to exceljs as a gap (`undefined`): exceljs writes nothing for an
   * empty cell without a style either way, but makes a cell object, its address and a value object
   * for a null one and none for a gap; an export of people has a third of its cells empty
   * (docs/exports.md, "Memory, backpressure, hang-ups"). The row is a copy (the caller's cells stay as they were) whose every
   * member is its own, so exceljs still reads member 0 as column A.
   */
  add(rows: readonly unknown[][]): void {
    for (const cells of rows) this.sheet.addRow(cells.map((cell) => cell ?? undefined)).commit();
  }

  /** Bytes of the sheet's XML given to the zip stream and not compressed yet. */
  get backlog(): number {
    return this.intake()?._writableState?.length ?? 0;
  }

  /**
   * Resolves when the zip stream holds at most XLSX_ZIP_BACKLOG bytes not compressed yet and `out`
   * has room, or when `gone()` says the destination is gone (checked on each of `out`'s events).
   */
  async settled(gone: () => boolean): Promise<void> {
    const intake = this.intake();
    const state = intake?._writableState;
    if (intake && state && state.length > XLSX_ZIP_BACKLOG) {
      // 'drain' comes when the intake is empty; it had more than its high-water mark, so it will.
      while (state.length > 0 && state.needDrain && !gone()) await eventOrClose(intake, 'drain', this.out);
    }
    // The compressed bytes are handed on as `out` takes them: give the zip stream turns to do so.
    for (let turn = 0; turn < 4 && !gone(); turn++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.out.writableNeedDrain && !gone()) await eventOrClose(this.out, 'drain');
    }
  }

  /** Ends the sheet and the workbook (its other parts), then `out`. */
  async end(): Promise<void> {
    this.sheet.commit();
    await this.workbook.commit();
    if (!this.out.writableEnded) this.out.end();
  }

  /** The zip stream's intake for this sheet: the first (only) destination exceljs's sheet stream pipes to. */
  private intake(): ZipIntake | null {
    const pipes = (this.sheet as unknown as { stream?: { pipes?: unknown[] } }).stream?.pipes;
    return (pipes?.[0] as ZipIntake | undefined) ?? null;
  }
}
