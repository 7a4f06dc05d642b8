import { Inject, Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { cellOf, csvRecords } from '../../http/wire/csv.js';
import { TextDecoder } from 'node:util';
import type { IncomingMessage } from 'node:http';
import { actorIdOf, type Caller, RequestContext } from '../../common/context/request-context.js';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  PayloadTooLargeError,
  ScopeMissingError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../common/errors/errors.js';
import { isUniqueViolation } from '../../common/errors/db-errors.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { scopeFor, scopeGranted } from '../../auth/api-token.js';
import { BulkWriters } from '../../database/registries/bulk-writers.js';
import { TenantDb } from '../../database/tenant-db.js';
import { WithHeaders } from '../../http/wire/answer-headers.js';
import { ImportJobEntity } from '../../database/entities/import-job.entity.js';
import { readQueriedRows, type ListScope } from '../../database/list-query-sql.js';
import { ListQueries } from '../../http/wire/list-query.js';
import { pageOf, QueriedPage, type QueriedPageQuery } from '../../http/wire/pagination.js';
import { charsetOf, isAcceptedCharset } from '../../http/wire/body-limits.js';
import { BULK_OPS } from '../../http/wire/bulk.js';
import { WireCodec } from '../../http/wire/codec.js';
import { ImportJob, rowErrorToWire, type ImportJobDto, type ImportJobRow } from './dto/import-job.dto.js';
import { FileError, formatOf, IMPORT_MEDIA_TYPES, isTextFormat, MAX_ROW_BYTES, rowsOf, type ImportFormat } from './import-file.js';
import {
  activeImport,
  cancelJob,
  deleteJob,
  insertJob,
  insertParts,
  markReceived,
  readErrors,
  readJob,
  readParts,
  renewReceiving,
  type ImportJobRecord,
} from './imports.statements.js';

/**
 * Bytes per stored part of a file. A part travels as base64 text in its statement and its row, so
 * 64 KiB is a text of 87,384 characters: under V8's 128 KiB for an object of the young generation,
 * so each part's texts die young instead of landing in the old generation's large-object space
 * (1 MiB parts put 2.8 MB there per MiB of file, stored and again each time it is read through; the
 * importing replica's RSS carried them until the next full collection: docs/imports.md, "Memory").
 */
export const IMPORT_PART_BYTES = 64 * 1024;
/** Parts written in one transaction, and read in one statement (1 MiB of file). */
export const IMPORT_PARTS_AT_ONCE = 16;
/** Failed rows kept per job (RowsFailed counts them all). */
export const MAX_KEPT_ERRORS = 10_000;

/** The list's own order, newest first: Created then ID, both descending (a queried list's order ends with the ID in the last key's direction). */
const NEWEST_FIRST = [{ field: ImportJob.queryable.get('created')!, desc: true }] as const;
/**
 * The jobs `GET /v4/imports` lists: all of the site's but one whose file is still being received
 * (stored `receiving`, its POST not answered yet; a refused file deletes it, an upload whose replica
 * died is failed once its lease runs out). Its GET answers it `queued`; listed, a filter on State
 * would compare the stored state, so every job listed answers its stored state (docs/queries.md).
 */
export const LISTED_IMPORTS: ListScope = { notIn: [{ property: 'state', values: ['receiving'] }] };

export interface ImportQuery {
  kind?: string;
  mode?: string;
}

/**
 * File imports (docs/imports.md): a file received as the request body is stored in the database
 * in parts, checked, and left for whichever replica claims it (ImportProcessor); its state, its
 * failed rows and its cancellation.
 */
@Injectable()
export class ImportsService {
  constructor(
    private readonly db: TenantDb,
    private readonly writers: BulkWriters,
    private readonly codec: WireCodec,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queries: ListQueries,
  ) {}

  /** `POST /v4/imports?kind=&mode=`: the file is the body. Answers the job, queued. */
  async create(ctx: RequestContext, q: ImportQuery, req: IncomingMessage): Promise<WithHeaders<ImportJobDto>> {
    const { kind, mode } = this.checkQuery(ctx, q);
    // A client that sends a key expects a retry to be answered from it: say it is not, rather than ignore it.
    if (req.headers['idempotency-key'] !== undefined) {
      throw new ValidationError([
        {
          field: 'Idempotency-Key',
          message:
            'An import takes no Idempotency-Key (its file is read once as it arrives): a retried upload of a job that was accepted answers 409 import-active naming it',
        },
      ]);
    }
    const format = formatOf(req.headers['content-type']);
    if (!format) {
      throw new UnsupportedMediaTypeError(
        `Content-Type "${req.headers['content-type'] ?? '(none)'}" is not a file an import reads; use text/csv, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet (XLSX), application/x-ndjson, application/json or application/xml`,
      );
    }
    const charset = charsetOf(req.headers['content-type']);
    if (isTextFormat(format) && !isAcceptedCharset(charset)) {
      throw new UnsupportedMediaTypeError(`Files must be UTF-8; charset "${charset}" is not accepted (send charset=utf-8 or none)`);
    }
    const max = this.config.imports.maxBytes;
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) throw this.tooLarge();
    const active = await activeImport(this.db, ctx);
    if (active) throw this.busy(active);
    let id: string;
    try {
      id = await insertJob(this.db, ctx, { kind, mode, format, caller: JSON.stringify(ctx.user), actorId: actorIdOf(ctx.user) }, this.config.imports.leaseMs);
    } catch (e) {
      if (isUniqueViolation(e)) throw this.busy(await activeImport(this.db, ctx));
      throw e;
    }
    // The upload's lease is renewed on a timer while the file is stored and checked, whatever the
    // client's pace or the check's length: only a replica that stops renewing it loses the job.
    // On a context of its own: the timer's transaction must not join the upload's.
    const own = RequestContext.system(ctx.siteId);
    const lease = new ReceivingLease(() => renewReceiving(this.db, own, id, this.config.imports.leaseMs), this.config.imports.leaseMs);
    try {
      const stored = await this.store(ctx, id, format, req, lease);
      const rows = await this.check(ctx, id, kind, format, stored.parts);
      if (!(await markReceived(this.db, ctx, id, { bytes: stored.bytes, parts: stored.parts, rows }))) throw lease.lostError();
    } catch (e) {
      req.resume();
      // A job another replica ended meanwhile (its lease lost) lost its stored parts too: what failed
      // here (a file that reads as cut short) is that, not the file.
      const taken =
        !(e instanceof ServiceUnavailableError) &&
        (await readJob(this.db, ctx, id).then(
          (j) => j?.state !== 'receiving',
          () => false,
        ));
      await deleteJob(this.db, ctx, id);
      throw taken ? lease.lostError() : e;
    } finally {
      lease.stop();
    }
    const job = (await readJob(this.db, ctx, id))!;
    return new WithHeaders(this.toWire(job), { Location: `/v4/imports/${id}` });
  }

  /**
   * `GET /v4/imports`: the site's jobs, newest first, a queried list (docs/queries.md): filter=,
   * sort=, fields=, cursor= and the exports, as every list; limit/offset without them.
   */
  async list(ctx: RequestContext, q: QueriedPageQuery): Promise<QueriedPage<ImportJobDto>> {
    const { take, skip } = pageOf(q);
    const query = this.queries.read(ctx, ImportJob, q);
    const page = await readQueriedRows(this.db, ctx, ImportJobEntity, LISTED_IMPORTS, query, NEWEST_FIRST, take, skip);
    const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
    return new QueriedPage(
      page.rows.map((r) => this.toWire(r)),
      page.total,
      take,
      skip,
      query.fields,
      next,
    );
  }

  /** `GET /v4/imports/{id}`. */
  async get(ctx: RequestContext, id: string): Promise<ImportJobDto> {
    return this.toWire(await this.job(ctx, id));
  }

  /** `GET /v4/imports/{id}/errors`: the failed rows, by line. */
  async errors(ctx: RequestContext, id: string): Promise<object[]> {
    await this.job(ctx, id);
    return (await readErrors(this.db, ctx, id, MAX_KEPT_ERRORS)).map((e) => rowErrorToWire(e));
  }

  /**
   * The failed rows as CSV: Line, Status, ExternalID, Type, Detail, Errors (field: message; …).
   * Text from the file (an ExternalID, a value quoted in a message) is neutralized as an export's
   * cells are (a formula gets a quote before it), since the file is an HR system's data and this
   * CSV is opened in a spreadsheet.
   */
  async errorsCsv(ctx: RequestContext, id: string): Promise<string> {
    await this.job(ctx, id);
    const rows = (await readErrors(this.db, ctx, id, MAX_KEPT_ERRORS)).map((e) =>
      [
        e.line,
        e.status,
        e.externalId ?? '',
        e.problem.type,
        e.problem.detail ?? '',
        (e.problem.errors ?? []).map((f) => `${f.field}: ${f.message}`).join('; '),
      ].map(cellOf),
    );
    return csvRecords([['Line', 'Status', 'ExternalID', 'Type', 'Detail', 'Errors'], ...rows]);
  }

  /** `DELETE /v4/imports/{id}`: stops a job that has not ended (the chunk being written is committed first); an ended job is answered as it is. */
  async cancel(ctx: RequestContext, id: string): Promise<ImportJobDto> {
    await this.job(ctx, id);
    await cancelJob(this.db, ctx, id);
    return this.get(ctx, id);
  }

  // ------------------------------------------------------------------ receiving

  private checkQuery(ctx: RequestContext, q: ImportQuery): { kind: string; mode: string } {
    const kinds = this.writers.paths();
    const errors: { field: string; message: string }[] = [];
    if (typeof q.kind !== 'string' || !kinds.includes(q.kind)) errors.push({ field: 'kind', message: `kind must be one of ${kinds.join(', ')}` });
    if (typeof q.mode !== 'string' || !(BULK_OPS as readonly string[]).includes(q.mode)) {
      errors.push({ field: 'mode', message: `mode must be one of ${BULK_OPS.join(', ')}` });
    }
    if (errors.length) throw new ValidationError(errors);
    const kind = q.kind!;
    // An API token writes the rows as its bulk route would: it needs the scope of that route too
    // (securitygroups/members is securitygroups:write, as its bulk route's).
    const user = ctx.user;
    const scope = scopeFor('POST', `/v4/${kind}/bulk`) ?? `${kind}:write`;
    if (user.kind === 'service' && !scopeGranted(user.scopes ?? [], scope)) throw new ScopeMissingError(scope, `an import of ${kind}`);
    return { kind, mode: q.mode! };
  }

  private busy(active: string | null): ConflictError {
    return new ConflictError(
      `The site has an import queued or running (${active ? `/v4/imports/${active}` : 'another'}): wait for it to end, or cancel it (DELETE /v4/imports/{id})`,
      'import-active',
    );
  }

  private tooLarge(): PayloadTooLargeError {
    return new PayloadTooLargeError(`An import's file is at most ${this.config.imports.maxBytes} bytes`);
  }

  /** Stores the body in parts as it arrives: counted against the limit, UTF-8 checked for text formats. */
  private async store(
    ctx: RequestContext,
    id: string,
    format: ImportFormat,
    req: IncomingMessage,
    lease: ReceivingLease,
  ): Promise<{ bytes: number; parts: number }> {
    const max = this.config.imports.maxBytes;
    const utf8 = isTextFormat(format) ? new TextDecoder('utf-8', { fatal: true }) : null;
    let bytes = 0;
    let parts = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const group = IMPORT_PART_BYTES * IMPORT_PARTS_AT_ONCE;
    /** Stores the whole parts of `all` (every part, the last one short, when `end`); answers what is left. */
    const write = async (all: Buffer, end: boolean): Promise<Buffer> => {
      const whole = end ? all.length : all.length - (all.length % IMPORT_PART_BYTES);
      for (let k = 0; k < whole; k += group) {
        const slices: Buffer[] = [];
        for (let j = k; j < Math.min(k + group, whole); j += IMPORT_PART_BYTES) slices.push(all.subarray(j, Math.min(j + IMPORT_PART_BYTES, whole)));
        if (!(await insertParts(this.db, ctx, id, parts, slices, this.config.imports.leaseMs))) throw lease.lostError();
        parts += slices.length;
      }
      return all.subarray(whole);
    };
    // A CSV's header row is refused by its length as it arrives (a million columns), before it is parsed.
    let headerEnded = format !== 'csv';
    for await (const chunk of req as AsyncIterable<Buffer>) {
      if (lease.lost) throw lease.lostError();
      bytes += chunk.length;
      if (bytes > max) throw this.tooLarge();
      if (utf8) this.checkUtf8(utf8, chunk, false);
      if (!headerEnded) {
        headerEnded = chunk.includes(0x0a);
        if (!headerEnded && bytes > MAX_ROW_BYTES) throw new BadRequestError(`The header row is longer than ${MAX_ROW_BYTES} bytes`, 'malformed-file');
      }
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= group) {
        const rest = await write(Buffer.concat(pending), false);
        pending = [rest];
        pendingBytes = rest.length;
      }
    }
    if (utf8) this.checkUtf8(utf8, Buffer.alloc(0), true);
    if (pendingBytes) await write(Buffer.concat(pending), true);
    if (bytes === 0) throw new BadRequestError('The body is empty: send the file as the request body', 'empty-file');
    return { bytes, parts };
  }

  private checkUtf8(decoder: TextDecoder, chunk: Buffer, end: boolean): void {
    try {
      decoder.decode(chunk, { stream: !end });
    } catch {
      throw new BadRequestError('The file is not valid UTF-8: save it as UTF-8 (CSV UTF-8 in Excel)', 'malformed-body');
    }
  }

  /**
   * Reads the stored file through before it is queued: a header that cannot be read, too many
   * columns or a syntax error are the POST's 400, not a failed job. Answers its data rows (XLSX:
   * its header only is read, the rows are counted as they are written: null).
   */
  private async check(ctx: RequestContext, id: string, kind: string, format: ImportFormat, parts: number): Promise<number | null> {
    const fields = this.writers.ofPath(kind)!.fields;
    // A column that names no field of the collection (a typo) would be dropped from every row, as an unknown member of a body is: refused instead.
    const columns = (names: string[]) => {
      const unknown = names.filter((n) => !(n.startsWith('ExternalRefs.') && n.length > 'ExternalRefs.'.length) && !fields.has(n));
      if (unknown.length)
        throw new FileError(
          `The header names ${unknown.map((n) => `"${n}"`).join(', ')}, which no field of ${kind} is (fields are named as in its JSON body, e.g. FirstName)`,
        );
    };
    const rows = rowsOf(format, () => this.fileStream(ctx, id, 0, parts), this.codec.namespace, columns);
    let n = 0;
    try {
      for await (const _row of rows) {
        n++;
        if (format === 'xlsx') {
          await rows.return(undefined);
          return null;
        }
      }
    } catch (e) {
      if (e instanceof FileError) throw new BadRequestError(e.message, 'malformed-file');
      throw e;
    }
    return format === 'xlsx' ? null : n;
  }

  /** A job's stored file as a stream, read a few parts at a time. */
  fileStream(ctx: RequestContext, id: string, from: number, parts: number): Readable {
    const db = this.db;
    async function* read(): AsyncGenerator<Buffer> {
      for (let p = from; p < parts;) {
        const got = await readParts(db, ctx, id, p, IMPORT_PARTS_AT_ONCE);
        if (got.length === 0) return;
        for (const g of got) yield g.bytes;
        p = got[got.length - 1].partNo + 1;
      }
    }
    return Readable.from(read(), { objectMode: false });
  }

  // ------------------------------------------------------------------ answers

  private async job(ctx: RequestContext, id: string): Promise<ImportJobRecord> {
    const job = /^[0-9a-f-]{36}$/i.test(id) ? await readJob(this.db, ctx, id.toLowerCase()) : null;
    if (!job) throw new NotFoundError('Import', id);
    return job;
  }

  /** A job's answer, from its record or its entity (the list's rows). */
  toWire(job: Omit<ImportJobRow, 'rate' | 'eta'>): ImportJobDto {
    const end = job.finished ?? new Date();
    const seconds = job.started ? Math.max(0.001, (end.getTime() - job.started.getTime()) / 1000) : null;
    const rate = seconds !== null && job.nextRow > 0 ? Math.round((job.nextRow / seconds) * 10) / 10 : null;
    const left = job.totalRows !== null ? job.totalRows - job.nextRow + job.rowsWaiting : null;
    const row: ImportJobRow = {
      ...job,
      state: job.state === 'receiving' ? 'queued' : job.state,
      rate,
      eta: job.state === 'running' && rate && left !== null ? Math.ceil(left / rate) : null,
    };
    return ImportJob.toWire(row) as ImportJobDto;
  }
}

/** The caller a job's rows are written as: who posted it, as they were then (docs/imports.md). */
export function callerOf(job: { caller: string }): Caller {
  return JSON.parse(job.caller) as Caller;
}

export { IMPORT_MEDIA_TYPES };

/**
 * Renews an upload's lease every third of its length until stopped (ImportsService.upload), and
 * remembers when it was lost: another replica found it run out and failed the job. A renewal that
 * fails (the database away) is tried again at the next tick; the lease may run out meanwhile.
 */
class ReceivingLease {
  lost = false;
  private renewing = false;
  private readonly timer: NodeJS.Timeout;

  constructor(renew: () => Promise<boolean>, leaseMs: number) {
    this.timer = setInterval(
      () => {
        if (this.renewing || this.lost) return;
        this.renewing = true;
        renew()
          .then(
            (held) => {
              if (!held) this.lost = true;
            },
            () => undefined,
          )
          .finally(() => {
            this.renewing = false;
          });
      },
      Math.max(250, Math.floor(leaseMs / 3)),
    );
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  lostError(): ServiceUnavailableError {
    return new ServiceUnavailableError(
      "The upload's lease (IMPORT_LEASE_MS) ran out before the file was stored and checked, and another replica ended the job: nothing of the file is kept; send it again",
    );
  }
}
