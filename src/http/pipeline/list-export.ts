import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { CONTEXT_KEY, type RequestContext } from '../../common/context/request-context.js';
import { NotAcceptableError, TooManyRequestsError, ValidationError } from '../../common/errors/errors.js';
import type { JsonLogger } from '../../common/logging/json-logger.js';
import { APP_LOGGER } from '../../common/logging/logger.token.js';
import { UTC, type TimeZone } from '../../common/dates.js';
import { toJsonValue } from '../wire/codec.js';
import { Page, QueriedPage, QueriedPageQuery } from '../wire/pagination.js';
import { WithHeaders } from '../wire/answer-headers.js';
import { wireFieldsOrdinal, wireResultOf } from '../wire/wire.js';
import { READ_AHEAD } from '../wire/list-query.js';
import { etagOf } from '../wire/etag.js';
import { csvRecords, exportCells } from '../wire/csv.js';
import { XLSX_BATCH_ROWS, XlsxSheet } from '../wire/xlsx-sheet.js';
import { eventOrClose } from '../../common/tasks/event-or-close.js';
import { EXPORT_TYPES, type ExportFormat, mayAskExport, negotiateExport } from './negotiation.js';
import { RouteStages, type Stage, type StageRequest } from './route-stages.js';

/**
 * Streamed exports of lists (docs/exports.md): a list asked with `Accept: text/csv`,
 * `application/vnd.openxmlformats-officedocument.spreadsheetml.sheet` or `application/x-ndjson`
 * answers its whole collection as one stream, with the list's own filter, sort and fields.
 *
 * One path for every list, no route of its own: this stage (`list-export`, every ListRoute) runs
 * the list's own method again and again, each time for the next keyset page (`cursor=`, the
 * batch size as `limit`), so the records and the rights are exactly the list's — the same
 * service, the same scope, the same Deny — and at most three batches are held at a time: while
 * one is written, the next two are read (Export.stream; XLSX one), and further reads start only
 * once the response has taken the batch written (backpressure: a client that stops reading stops
 * the reads two batches later); when the client hangs up no further batch is read. Between reads
 * no database connection is held.
 *
 * A list whose method does not take a QueriedPageQuery (QueriedListQuery) cannot be read by key and answers 406
 * (unless the Accept header also takes JSON or XML, which it then answers as before).
 */
@Injectable()
export class ListExportStage implements Stage, OnModuleInit {
  private readonly slots: ExportSlots;

  constructor(
    private readonly stages: RouteStages,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: JsonLogger,
  ) {
    this.slots = new ExportSlots(config.exportMaxPerCaller, config.exportMaxPerSite);
  }

  onModuleInit(): void {
    this.stages.provide('list-export', this);
  }

  /** Only a request whose Accept names an export type at all (a substring look); the rest run the list as it is. */
  applies(req: StageRequest): boolean {
    const accept = req.headers.accept;
    return typeof accept === 'string' && mayAskExport(accept);
  }

  async run(req: StageRequest, method: Function, handle: (args?: readonly unknown[]) => Promise<unknown>, args: readonly unknown[]): Promise<unknown> {
    const asked = negotiateExport(req.headers.accept);
    if (!asked.format || (asked.format === 'csv' && wireResultOf(method)?.ownCsv)) return handle();
    const at = args.findIndex((a) => a instanceof QueriedPageQuery);
    if (at < 0) {
      if (asked.body) return handle();
      throw new NotAcceptableError(
        `This list cannot be exported (it does not take cursor=, so it cannot be read by key): ask for application/json or application/xml. docs/exports.md lists the lists that export`,
      );
    }
    const q = args[at] as QueriedPageQuery;
    for (const name of ['limit', 'offset', 'cursor'] as const) {
      if (q[name] !== undefined) {
        throw new ValidationError([{ field: name, message: `An export answers the whole collection from its start: leave out ${name} (docs/exports.md)` }]);
      }
    }
    if (req.query?.updatedSince !== undefined) {
      throw new ValidationError([{ field: 'updatedSince', message: 'An export answers the whole collection, not its changes: leave out updatedSince' }]);
    }
    // Each record is read once: its answer is not kept in the record memo (RequestContext.readsOnce).
    const ctx = req[CONTEXT_KEY] as RequestContext | undefined;
    if (ctx) ctx.readsOnce = true;
    const batch = asked.format === 'xlsx' ? Math.min(this.config.exportBatchRows, XLSX_BATCH_ROWS) : this.config.exportBatchRows;
    // `skip`: read ahead, the page after next from this cursor (see Export.stream).
    const pageAfter = (cursor: string, skip = 0) => {
      const next = Object.assign(Object.create(Object.getPrototypeOf(q) as object) as QueriedPageQuery, q, { cursor, limit: batch });
      if (skip) Object.assign(next, { offset: skip, limit: batch + 1, [READ_AHEAD]: true });
      const given = [...args];
      given[at] = next;
      // A list that answers headers beside its page (dashboards' freshness): the export writes the page.
      return handle(given).then((r) => (r instanceof WithHeaders ? (r.value as unknown) : r));
    };
    // One more export than a caller or a site may have running at once is 429 (ExportSlots).
    const release = this.slots.take(callerKey(ctx, req), ctx?.caller?.siteId ?? '');
    try {
      // The first batch before the first byte: a failure here (database down: 503) is answered as any list's.
      const first = await pageAfter('start');
      const res = req.res!;
      const type = wireResultOf(method)?.type ?? null;
      const exporter = new Export(req, res, asked.format, type, ctx?.tz ?? UTC, this.config.exportProgressRows, this.logger);
      await exporter.stream(first, pageAfter, batch);
      return STREAMED;
    } finally {
      release();
    }
  }
}

/** Who an export counts against: the caller (a person's login account or an API token), else the address. */
function callerKey(ctx: RequestContext | undefined, req: StageRequest): string {
  const caller = ctx?.caller;
  if (caller) return `${caller.kind ?? 'user'}:${caller.userId}`;
  return `ip:${ctx?.ip ?? req.socket?.remoteAddress ?? ''}`;
}

/**
 * The streamed exports running on this replica, per caller and per site (docs/limits.md, "Exports
 * at once"). An export is one request of the caller's budget however long it runs, and holds up to
 * two pooled connections at a time while it reads ahead: without a bound, one member could open
 * enough whole-collection exports to take the pool from every site. One more than
 * EXPORT_MAX_PER_CALLER (2) for its caller, or EXPORT_MAX_PER_SITE (4) for its site, is 429 with
 * Retry-After before anything is read; a slot is given back when its export ends, however it ends.
 */
export class ExportSlots {
  private readonly byCaller = new Map<string, number>();
  private readonly bySite = new Map<string, number>();

  constructor(
    private readonly perCaller: number,
    private readonly perSite: number,
  ) {}

  /** Takes a slot for `caller` in `site`, or throws 429; answers the slot's release, called once (the export's `finally`). */
  take(caller: string, site: string): () => void {
    if ((this.byCaller.get(caller) ?? 0) >= this.perCaller)
      throw new TooManyRequestsError(`At most ${this.perCaller} exports of one caller run at once (EXPORT_MAX_PER_CALLER): retry when one has ended`, 5);
    if ((this.bySite.get(site) ?? 0) >= this.perSite)
      throw new TooManyRequestsError(`At most ${this.perSite} exports of one site run at once (EXPORT_MAX_PER_SITE): retry when one has ended`, 5);
    this.byCaller.set(caller, (this.byCaller.get(caller) ?? 0) + 1);
    this.bySite.set(site, (this.bySite.get(site) ?? 0) + 1);
    return () => {
      drop(this.byCaller, caller);
      drop(this.bySite, site);
    };
  }
}

function drop(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 0) - 1;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

/** The cursor after a batch, or null after the last one. */
function cursorOf(page: unknown): string | null {
  return page instanceof QueriedPage ? (page.nextCursor ?? null) : null;
}

/**
 * Whether `ahead` (read from the cursor before `previous`, skipping all of `previous`'s rows but the
 * last) continues `previous` exactly: `previous` is a whole batch and `ahead`'s first row is its last
 * row, the same record unchanged — its JSON and its version. Then the rows after that one in `ahead`
 * are the rows that follow `previous`'s cursor.
 */
function continues(previous: unknown, ahead: unknown, batch: number): boolean {
  if (!(previous instanceof QueriedPage) || !(ahead instanceof QueriedPage)) return false;
  if (previous.items.length !== batch || ahead.items.length === 0) return false;
  return sameRecord(previous.items[previous.items.length - 1], ahead.items[0]);
}

/** The same record, unchanged: the same class and the same ETag (its version and its JSON in UTC). */
function sameRecord(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null || a.constructor !== b.constructor) return false;
  return etagOf(a) === etagOf(b);
}

/** `ahead` without its first row (the previous batch's last): the next batch, with `ahead`'s cursor. */
function rest(ahead: QueriedPage<unknown>): QueriedPage<unknown> {
  return new QueriedPage(ahead.items.slice(1), ahead.total, ahead.limit - 1, 0, ahead.fields, ahead.nextCursor);
}

/** What a streamed answer returns: the response is already written (the adapter's reply sends nothing more). */
export const STREAMED = Symbol('pms:streamed');

/** How long an aborted export's connection may take to send what was written before it is cut. */
const ABORT_FLUSH_MS = 5000;

class Export {
  private rows = 0;
  private readonly started = Date.now();
  private closed = false;
  private columns: string[] = [];
  private sheet: XlsxSheet | null = null;
  private nextProgress: number;
  private readonly path: string;

  constructor(
    private readonly req: StageRequest,
    private readonly res: ServerResponse,
    private readonly format: ExportFormat,
    private readonly type: Function | null,
    /** The zone the records' dates are written in (the request's `tz`). */
    private readonly tz: TimeZone,
    private readonly progressRows: number,
    private readonly logger: JsonLogger,
  ) {
    this.nextProgress = progressRows;
    this.path = String(req.originalUrl ?? req.url).split('?')[0];
    res.once('close', () => {
      this.closed = true;
    });
  }

  /**
   * Writes `first` and every batch after it, with two reads in flight while a batch is written: the
   * next batch, from the cursor after the current one, and the batch after it, read ahead from the
   * same cursor by skipping the next batch's rows but its last (`after(cursor, batch - 1)`, a batch
   * and one row). That read continues the next batch exactly when its first row is the next batch's
   * last row, the same record unchanged (its JSON and its version): then its other rows are the rows
   * that follow, as a read from the next batch's cursor would give them. When it is not (a record
   * written or deleted meanwhile between them, or a list that reads no offset after a cursor), the
   * batch is read again from the cursor, and the export reads one batch ahead from then on. The
   * database works on the next batches while the service writes this one; three batches are held at
   * most, and a client that stops reading stops the reads two batches later (docs/exports.md).
   */
  async stream(first: unknown, after: (cursor: string, skip?: number) => Promise<unknown>, batch: number): Promise<void> {
    let page = first;
    let batches = 0;
    // XLSX reads one batch ahead: its sheet's XML and the compression cost it more than CSV's rows,
    // and batches of 1,000 with a second batch read ahead made it no faster (docs/exports.md).
    let ahead = batch > 1 && this.format !== 'xlsx';
    const read = (p: Promise<unknown>) => {
      p.catch(() => undefined); // awaited later, or dropped when the export ends first
      return p;
    };
    try {
      this.start(page);
      const start = cursorOf(page);
      let next = start && !this.closed ? read(after(start)) : null;
      let beyond = start && ahead && !this.closed ? read(after(start, batch - 1)) : null;
      for (;;) {
        batches++;
        await this.write(page);
        if (!next || this.closed) break;
        const got = await next;
        const cursor = cursorOf(got);
        next = null;
        if (cursor && !this.closed) {
          const spec = beyond;
          next = spec
            ? read(
                spec.then((b) => {
                  if (continues(got, b, batch)) return rest(b as QueriedPage<unknown>);
                  ahead = false;
                  return after(cursor);
                }),
              )
            : read(after(cursor));
          beyond = ahead ? read(after(cursor, batch - 1)) : null;
        }
        page = got;
      }
      if (this.closed) {
        this.log('info', `stopped: the client closed the connection after ${this.rows} rows`, batches);
        return;
      }
      await this.end();
      this.log('info', `done: ${this.rows} rows`, batches);
    } catch (e) {
      // After the first byte the status is sent: the only way left to say "incomplete" is to end the
      // connection without the answer's end (no last chunk): what was written is sent, then the
      // connection closes, and the client reads an aborted answer (docs/exports.md).
      this.log('error', `aborted after ${this.rows} rows: ${(e as Error).message}`, batches);
      const socket = this.res.socket;
      if (socket && !socket.destroyed) {
        socket.end();
        setTimeout(() => socket.destroy(), ABORT_FLUSH_MS).unref();
      } else {
        this.res.destroy();
      }
    }
  }

  private start(first: unknown): void {
    const fields = first instanceof QueriedPage ? first.fields : null;
    const declared = this.type ? wireFieldsOrdinal(this.type).map((f) => f.name) : [];
    this.columns = fields ? declared.filter((n) => fields.includes(n)) : declared;
    const collection =
      this.path
        .split('/')
        .filter((s) => /^[a-z][a-z0-9-]*$/i.test(s))
        .pop() ?? 'list';
    const res = this.res;
    res.statusCode = 200;
    res.setHeader('Content-Type', this.format === 'xlsx' ? EXPORT_TYPES.xlsx : `${EXPORT_TYPES[this.format]}; charset=utf-8`);
    res.setHeader('Content-Disposition', `attachment; filename="${collection}.${this.format}"`);
    res.setHeader('Vary', 'Accept');
    res.setHeader('Cache-Control', 'no-store');
    if (this.format === 'csv') {
      this.send(csvRecords([this.columns]));
    } else if (this.format === 'xlsx') {
      this.sheet = new XlsxSheet(res, collection, this.columns);
    }
  }

  /**
   * Writes one batch: NDJSON from each record's JSON value (the list's answer as JSON gives it,
   * dates in the request's zone), CSV and XLSX from its cells (exportCells: what cellOf makes of
   * that JSON value, without building it).
   */
  private async write(page: unknown): Promise<void> {
    const items: unknown[] = page instanceof Page ? page.items : Array.isArray(page) ? page : [];
    if (this.format === 'ndjson') {
      const keep = page instanceof QueriedPage && page.fields ? new Set(page.fields) : null;
      let text = '';
      for (const item of items) {
        const r = toJsonValue(item, this.tz) as Record<string, unknown>;
        if (keep) for (const k of Object.keys(r)) if (!keep.has(k)) delete r[k];
        text += JSON.stringify(r) + '\n';
      }
      this.send(text);
    } else if (this.format === 'csv') {
      this.send(csvRecords(items.map((item) => exportCells(item, this.columns, this.tz))));
    } else {
      this.sheet!.add(items.map((item) => exportCells(item, this.columns, this.tz)));
    }
    this.progress(items.length);
    await this.drained();
  }

  /** Whether the last text written filled the response's buffer (res.write answered false): wait for 'drain' before the next batch. */
  private full = false;

  private send(text: string): void {
    if (text && !this.closed && !this.res.write(text)) this.full = true;
  }

  /**
   * Waits until the response has taken what was written, or the client is gone. CSV and NDJSON
   * are written here: write's answer says whether to wait for 'drain' (through the compression
   * stream when the answer is compressed). XLSX goes through the workbook's zip stream piped to the
   * response: until it has compressed what it holds past its bound, then until the response has
   * taken its bytes (XlsxSheet.settled).
   */
  private async drained(): Promise<void> {
    if (this.sheet) return this.sheet.settled(() => this.closed);
    if (this.full && !this.closed) await eventOrClose(this.res, 'drain');
    this.full = false;
  }

  private async end(): Promise<void> {
    if (this.sheet) {
      await this.sheet.end();
    } else {
      this.res.end();
    }
  }

  private progress(count: number): void {
    this.rows += count;
    if (this.rows < this.nextProgress) return;
    while (this.nextProgress <= this.rows) this.nextProgress += this.progressRows;
    this.log('info', `${this.rows} rows`);
  }

  private log(level: 'info' | 'error', msg: string, batches?: number): void {
    const seconds = (Date.now() - this.started) / 1000;
    this.logger.event(level, 'ListExport', {
      msg,
      path: this.path,
      format: this.format,
      rows: this.rows,
      ...(batches === undefined ? {} : { batches }),
      seconds: Math.round(seconds * 10) / 10,
      rowsPerSecond: seconds > 0 ? Math.round(this.rows / seconds) : null,
      requestId: this.req.__pmsRequestId,
    });
  }
}
