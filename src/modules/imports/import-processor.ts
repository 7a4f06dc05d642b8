import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import { UTC } from '../../common/dates.js';
import { giveWay } from '../../common/tasks/turns.js';

import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { BulkWriters } from '../../database/registries/bulk-writers.js';
import { TenantDb } from '../../database/tenant-db.js';
import type { BulkItemInput, BulkOp } from '../../http/wire/bulk.js';
import { WireCodec } from '../../http/wire/codec.js';
import { ServerLifecycle } from '../../http/pipeline/server-lifecycle.js';
import { FileError, rowsOf, type FileRow, type ImportFormat } from './import-file.js';
import { touches } from '../../database/chunk-keys.js';
import { ChunksInFlight, startChunk, type ChunkInFlight } from '../../database/chunks-in-flight.js';
import {
  apiTokenEnded,
  claimJob,
  finishJob,
  lockJob,
  readJob,
  readWaiting,
  recordChunk,
  recordRetry,
  releaseJob,
  startPass,
  type ImportJobRecord,
  type StoredRowError,
  type WaitingRow,
} from './imports.statements.js';
import { callerOf, ImportsService, MAX_KEPT_ERRORS } from './imports.service.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** Raised inside a chunk's transaction when the job is no longer this replica's to write (its lease ran out and another claimed it, or it was cancelled): nothing of the chunk commits. */
class NotOurs extends Error {}

/** What a run of `processOne` did. */
export interface ImportRun {
  id: string;
  chunks: number;
  /** How it ended: the job's end, `stopped` (maxChunks reached, or the replica is stopping), `lost` (no longer this replica's). */
  outcome: 'succeeded' | 'failed' | 'stopped' | 'lost';
}

/** The longest pause an import takes between two chunks to give way to requests (see `giveWay`). */
const MAX_GIVE_WAY_MS = 2000;

/**
 * The retry passes over rows waiting for later rows (docs/imports.md, "References to later rows"):
 * after this many, the rows still waiting fail, whether or not the last pass wrote some.
 */
export const MAX_RETRY_PASSES = 20;

/**
 * Claims of a job in a row with no chunk committed between them, after which the job fails: a job
 * whose processing fails every time on something other than its file (a fault of the service, a
 * chunk that kills its replica) would otherwise be claimed again at each lease's end for ever,
 * holding its site's one place. A replica killed once, or a database away for a few leases, is
 * far from it.
 */
export const MAX_IDLE_CLAIMS = 10;

/** The failed rows a chunk keeps, by line: the job keeps its first MAX_KEPT_ERRORS (`failedBefore` kept or not before it). */
function kept(errors: StoredRowError[], failedBefore: number): StoredRowError[] {
  return errors.sort((a, b) => a.line - b.line).slice(0, Math.max(0, MAX_KEPT_ERRORS - failedBefore));
}

/** How processing the waiting rows ended: done (none waits), or the run's end when it stopped first. */
type Settled = { done: true } | { done: false; run: ImportRun };

/** A chunk's transaction under way (`ImportProcessor.writing`); `done` answers the job's next row after it. */
interface ChunkWriting extends ChunkInFlight<number> {
  /** The job's row after it: where the chunk after it begins. */
  to: number;
  /** The keys of the records it wrote, once `ready`, computed when asked (null: not known, so no chunk is written beside its commit). */
  keys: () => Set<string> | null;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * Processes file imports (docs/imports.md). Every IMPORT_POLL_MS a replica that is not already
 * processing one claims a queued job — or a running one whose lease ran out, left by a replica
 * that died — with a lease, and writes its rows through the collection's bulk writes in chunks of
 * IMPORT_CHUNK_ROWS, one transaction each: the job's row is locked and checked to be still this
 * replica's, at the row it expects; the rows are written (each as its single write: validation,
 * authorization, audit trail, webhooks, summaries); the failed rows are kept; the job's next row
 * moves on and its lease is renewed — all committed together. A replica killed mid-chunk leaves the
 * job at its last committed chunk, which the next claimer resumes from, so no row is written twice.
 * One job at a time per replica. Requests keep their turn (docs/imports.md, "Sharing the
 * replica"): a chunk lets the event loop take a turn every few milliseconds (the bulk writes'
 * Turns), and between chunks the import waits as long as its last chunk took whenever requests
 * are in flight, so while the API is busy an import has at most about half of the process.
 */
@Injectable()
export class ImportProcessor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Imports');
  /** This replica's name on the leases it takes (a test makes a second processor with another). */
  readonly owner: string;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;
  /** Chunks this processor began while the one before committed, and those of them that failed there and were written again alone (docs/imports.md, "Two chunks at once"). */
  readonly overlap = { started: 0, failed: 0 };

  constructor(
    private readonly db: TenantDb,
    private readonly writers: BulkWriters,
    private readonly imports: ImportsService,
    private readonly codec: WireCodec,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly lifecycle: ServerLifecycle,
  ) {
    this.owner = `replica-${randomUUID()}`;
  }

  onApplicationBootstrap(): void {
    if (!this.config.imports.process) return;
    this.timer = setInterval(() => this.wake(), this.config.imports.pollMs);
    this.timer.unref();
  }

  /** Stops taking jobs; the one in flight stops after its chunk and gives its claim back. */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.running) await Promise.race([this.running, sleep(10_000, undefined, { ref: false })]);
  }

  /** Looks for a job now, unless one is being processed. */
  wake(): void {
    if (this.running || this.stopped) return;
    this.running = this.processOne()
      .catch((e: Error) => this.logger.warn(`import processing failed, tried again shortly: ${e.message}`))
      .finally(() => {
        this.running = null;
      });
  }

  /**
   * Claims one job and processes it (at most `maxChunks` chunks: then it stops and, as a replica
   * killed there would, keeps its lease until it runs out). Answers what it did, or null when no job
   * was due.
   */
  async processOne(opts: { maxChunks?: number } = {}): Promise<ImportRun | null> {
    const claim = await claimJob(this.db, this.owner, this.config.imports.leaseMs);
    if (!claim) return null;
    const base = RequestContext.system(claim.siteId);
    const job = await readJob(this.db, base, claim.id);
    if (!job) return null;
    const ctx = new RequestContext(`import-${job.id}`, UTC, { ...callerOf(job), siteId: job.siteId }, null, '');
    if (job.claimsIdle > MAX_IDLE_CLAIMS)
      return this.end(
        ctx,
        job,
        'failed',
        `Claimed ${MAX_IDLE_CLAIMS} times without a chunk committed (the replicas' logs say why): the rows before row ${job.nextRow + 1} are written; send the rest again`,
        null,
        0,
      );
    return this.process(ctx, job, opts.maxChunks ?? Infinity);
  }

  private async process(ctx: RequestContext, job: ImportJobRecord, maxChunks: number): Promise<ImportRun> {
    const writer = this.writers.ofPath(job.kind);
    const started = Date.now();
    const at = job.nextRow;
    this.logger.log(`import ${job.id} (site ${job.siteId}, ${job.kind} ${job.mode}, ${job.format}): ${at ? `resumed at row ${at}` : 'started'}`);
    if (!writer) return this.end(ctx, job, 'failed', `No collection ${job.kind} writes batches any more`, null, 0);
    // The whole file was read before: only its waiting rows are left (import_waiting_rows), and
    // the job ends as the file's reading did (a problem kept when the first pass began).
    if (job.retryPass > 0) return this.finish(ctx, job, 0, job.problem ? 'failed' : 'succeeded', job.problem, null);
    const rows = rowsOf(job.format as ImportFormat, () => this.imports.fileStream(ctx, job.id, 0, job.parts), this.codec.namespace);
    try {
      return await this.processRows(ctx, job, rows, maxChunks, started, at);
    } finally {
      // However it ended, the file's reader is closed.
      await rows.return(undefined).catch(() => undefined);
    }
  }

  private async processRows(
    ctx: RequestContext,
    job: ImportJobRecord,
    rows: AsyncGenerator<FileRow>,
    maxChunks: number,
    started: number,
    at: number,
  ): Promise<ImportRun> {
    // SQLite runs one transaction at a time: there, chunks are always written one after another;
    // elsewhere, when the collection's bulk writes answer the keys a chunk wrote (its plan's unique keys).
    const overlaps = !this.db.isSqlite;
    let next = job.nextRow;
    let read = 0;
    let chunks = 0;
    let chunk: FileRow[] = [];
    const size = this.config.imports.chunkRows;
    let since = performance.now();
    /** This run's chunks begun beside the commit of the one before, and those of them written again alone (the log's account). */
    const beside = { started: this.overlap.started, failed: this.overlap.failed };
    /** The chunk whose commit is under way while the next chunk's rows are read (see `writing`); one that committed: its next row taken, counted and logged. */
    const writes = new ChunksInFlight<ChunkWriting, number>((to) => {
      next = to;
      chunks++;
      this.progress(job, next, started, at);
    });
    /** Writes `rows` after the chunk in flight, alone: its rows written once that chunk committed, when requests had their turn. */
    const alone = (rows: FileRow[]): Promise<void> =>
      writes.alone(async () => {
        // While requests are in flight, the import waits as long as its last chunk took (giveWay).
        await giveWay(this.lifecycle.inFlightCount > 0, performance.now() - since, MAX_GIVE_WAY_MS);
        since = performance.now();
        // Each chunk has a context of its own (RequestContext.beside): its commit runs while the
        // job's context reads on (the API token's check) and, at times, while the next chunk's runs.
        return this.writing(ctx.beside(), job, next, rows, false);
      });
    /** The chunk's turn: the job stopped here (the replica stopping, maxChunks reached) or failed (its credentials ended), or the chunk on its way (null). */
    const turn = async (): Promise<ImportRun | null> => {
      if (chunks + (writes.inFlight ? 1 : 0) >= maxChunks || this.stopped) {
        await writes.land();
        return this.stop(job, chunks, rows);
      }
      const ended = await this.credentialsEnded(ctx);
      if (ended) {
        await writes.land();
        return this.end(ctx, job, 'failed', ended, null, chunks);
      }
      const these = chunk;
      chunk = [];
      const before = writes.inFlight;
      // Two chunks at once (docs/imports.md): this one's rows are written while the one before
      // commits, when no request waits and its rows name none of the records that one wrote.
      const keys = overlaps && before && this.lifecycle.inFlightCount === 0 ? before.keys() : null;
      if (
        before &&
        keys &&
        !touches(
          these.map((row) => row.record),
          keys,
        )
      ) {
        if (await writes.beside(this.writing(ctx.beside(), job, before.to, these, true))) {
          since = performance.now();
          return null;
        }
        // It failed while the one before committed (a lost deadlock, the job moved on without it, the
        // database gone): written again alone, which answers as any chunk does if it fails again.
        this.overlap.failed++;
      }
      await alone(these);
      return null;
    };
    try {
      for await (const row of rows) {
        // Rows committed before: read past, never written again.
        if (read++ < job.nextRow) continue;
        chunk.push(row);
        if (chunk.length < size) continue;
        const run = await turn();
        if (run) return run;
      }
      // The last chunk, shorter.
      if (chunk.length) {
        const run = await turn();
        if (run) return run;
      }
      await writes.land();
      this.logger.log(
        `import ${job.id} (site ${job.siteId}): the file read in ${chunks} chunks, ${this.overlap.started - beside.started} of them written beside the commit before (${this.overlap.failed - beside.failed} written again alone)`,
      );
    } catch (e) {
      // However the reading ended, the chunk in flight ends first: what was read before a file's error is written.
      const landed = await writes.land().then(
        () => null,
        (failed: unknown) => failed,
      );
      const error = e instanceof FileError && landed ? landed : e;
      if (error instanceof NotOurs) return { id: job.id, chunks, outcome: 'lost' };
      if (!(error instanceof FileError)) throw error;
      // The rows that wait for it too; then the job fails, naming it.
      if (chunk.length) next = await this.writeChunk(ctx.beside(), job, next, chunk, null).catch(() => next);
      return this.finish(ctx, job, chunks, 'failed', error.message, null);
    }
    return this.finish(ctx, job, chunks, 'succeeded', null, next, maxChunks);
  }

  /** Once the file is read: the waiting rows are tried again (settleWaiting), then the job ends as `state`. */
  private async finish(
    ctx: RequestContext,
    job: ImportJobRecord,
    chunks: number,
    state: 'succeeded' | 'failed',
    problem: string | null,
    total: number | null,
    maxChunks = Infinity,
  ): Promise<ImportRun> {
    let settled: Settled;
    try {
      settled = await this.settleWaiting(ctx, job, chunks, maxChunks, problem);
    } catch (e) {
      if (e instanceof NotOurs) return { id: job.id, chunks, outcome: 'lost' };
      throw e;
    }
    if (!settled.done) return settled.run;
    return this.end(ctx, job, state, problem, total, chunks);
  }

  /**
   * The rows that waited for a record further down the file (docs/imports.md, "References to later
   * rows"), in retry passes, each over the rows still waiting, last in the file first and in chunks
   * of IMPORT_CHUNK_ROWS: a chunk's rows run as one bulk request (so they may refer to each other in
   * any order), in one transaction with the job's row locked, checked and moved on as a chunk of the
   * file is. A row that still waits is kept for the next pass; a pass that writes no row, or the
   * MAX_RETRY_PASSES-th, is followed by a last one that turns the rows still waiting into errors
   * with their last problem. The passes are the job's state: a replica that resumes the job goes on
   * with the pass under way.
   */
  private async settleWaiting(ctx: RequestContext, job: ImportJobRecord, chunks: number, maxChunks: number, problem: string | null): Promise<Settled> {
    const writer = this.writers.ofPath(job.kind)!;
    const size = this.config.imports.chunkRows;
    let since = performance.now();
    for (;;) {
      if (chunks >= maxChunks || this.stopped) {
        if (this.stopped) await releaseJob(this.db, job.siteId, job.id, this.owner);
        return { done: false, run: { id: job.id, chunks, outcome: 'stopped' } };
      }
      const ended = await this.credentialsEnded(ctx);
      if (ended) return { done: false, run: await this.end(ctx, job, 'failed', ended, null, chunks) };
      const step = await this.db.transactionCarrying(ctx, async () => {
        const now = await lockJob(this.db, ctx, job.id);
        if (!now || now.state !== 'running' || now.leaseOwner !== this.owner) throw new NotOurs();
        if (now.rowsWaiting === 0) return 'done' as const;
        const pass = Math.max(now.retryPass, 1);
        const taken = now.retryPass === 0 ? [] : await readWaiting(this.db, ctx, job.id, pass, size);
        if (!taken.length) {
          // The pass is over (or none began): the next one tries the rows again, or gives them up.
          if (now.retryFinal) {
            // The last pass took every row it found: none is left to write or fail.
            this.logger.warn(`import ${job.id} (site ${job.siteId}): ${now.rowsWaiting} rows counted as waiting, none found`);
            return 'done' as const;
          }
          const next = now.retryPass + 1;
          const final = now.retryPass > 0 && (now.retryWritten === 0 || now.retryPass >= MAX_RETRY_PASSES);
          await startPass(this.db, ctx, job.id, this.owner, { pass: next, final, problem, leaseMs: this.config.imports.leaseMs });
          this.logger.log(`import ${job.id} (site ${job.siteId}): ${now.rowsWaiting} rows wait for later rows: ${final ? 'they fail' : `retry pass ${next}`}`);
          return 'pass' as const;
        }
        const errors: StoredRowError[] = [];
        const waiting: WaitingRow[] = [];
        let written = 0;
        if (now.retryFinal) for (const r of taken) errors.push({ line: r.line, status: 400, externalId: r.externalId, problem: r.problem });
        else {
          const run = await writer.apply(
            ctx,
            taken.map((r) => r.item),
            { atomic: false },
          );
          for (const o of run.outcomes) {
            const r = taken[o.index];
            if (o.status < 300) written++;
            else if (o.waiting) waiting.push({ ...r, problem: o.problem! });
            else errors.push({ line: r.line, status: o.status, externalId: r.externalId, problem: o.problem! });
          }
        }
        await recordRetry(this.db, ctx, job.id, this.owner, {
          taken,
          written,
          failed: errors.length,
          errors: kept(errors, now.rowsFailed),
          waiting,
          pass,
          leaseMs: this.config.imports.leaseMs,
        });
        return 'chunk' as const;
      });
      if (step === 'done') return { done: true };
      if (step === 'chunk') {
        chunks++;
        await giveWay(this.lifecycle.inFlightCount > 0, performance.now() - since, MAX_GIVE_WAY_MS);
        since = performance.now();
      }
    }
  }

  /**
   * Why the job's creator may no longer write, or null: an API token revoked, expired or deleted
   * since the POST (docs/imports.md, "Storage, lease and resume"), checked before each chunk, so
   * revoking a token stops its imports at the next chunk. A person's rights are the ones they had
   * when they posted the job.
   */
  private credentialsEnded(ctx: RequestContext): Promise<string | null> {
    const caller = ctx.user;
    return caller.kind === 'service' ? apiTokenEnded(this.db, ctx, caller.userId) : Promise.resolve(null);
  }

  /** Leaves the job where its last chunk left it. A replica stopping gives its claim back; a test's `maxChunks` keeps it, as a killed replica would. */
  private async stop(job: ImportJobRecord, chunks: number, rows: AsyncGenerator<FileRow>): Promise<ImportRun> {
    await rows.return(undefined);
    if (this.stopped) await releaseJob(this.db, job.siteId, job.id, this.owner);
    return { id: job.id, chunks, outcome: 'stopped' };
  }

  private progress(job: ImportJobRecord, next: number, started: number, from: number): void {
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round((next - from) / seconds) : 0;
    this.logger.log(`import ${job.id} (site ${job.siteId}): ${next}${job.totalRows !== null ? ` of ${job.totalRows}` : ''} rows read, ${rate} rows/s`);
  }

  /**
   * A chunk's transaction, started (see `writeChunk`): `ready` once its rows are written and its
   * commit is under way, with the keys of the records it wrote; `done` once it committed.
   */
  private writing(ctx: RequestContext, job: ImportJobRecord, from: number, rows: FileRow[], afterBefore: boolean): ChunkWriting {
    const w: ChunkWriting = {
      to: from + rows.length,
      keys: () => null,
      ...startChunk((ready) =>
        this.writeChunk(ctx, job, from, rows, null, {
          afterBefore,
          // Told again when a chunk whose carried writes failed runs its rows again: the keys of that run, which commits.
          onReady: (keys) => {
            w.keys = keys;
            ready();
          },
        }),
      ),
    };
    if (afterBefore) this.overlap.started++;
    return w;
  }

  /**
   * One chunk in one transaction (see the class): answers the job's next row after it. Throws
   * NotOurs, having written nothing, when the job is no longer this replica's at `from`. `ahead`:
   * written while the chunk before commits (`afterBefore`: the job's row is locked after the rows
   * are written, which waits for that commit, and is then found at `from`), and told once its rows
   * are written, with the keys of the records they wrote (null: not known, no chunk may overlap it).
   */
  private async writeChunk(
    ctx: RequestContext,
    job: ImportJobRecord,
    from: number,
    rows: FileRow[],
    totalRows: number | null,
    ahead?: { afterBefore: boolean; onReady: (keys: () => Set<string> | null) => void },
  ): Promise<number> {
    const writer = this.writers.ofPath(job.kind)!;
    const ours = async (): Promise<ImportJobRecord> => {
      const now = await lockJob(this.db, ctx, job.id);
      if (!now || now.state !== 'running' || now.leaseOwner !== this.owner || now.nextRow !== from) throw new NotOurs();
      return now;
    };
    // The rows' held writes are carried to the chunk's end (multi-row INSERTs, docs/bulk.md "Round
    // trips"); when they fail, the chunk runs again with each row's writes sent alone.
    return this.db.transactionCarrying(ctx, async () => {
      let now = ahead?.afterBefore ? null : await ours();
      const errors: StoredRowError[] = [];
      const waiting: WaitingRow[] = [];
      const items: BulkItemInput[] = [];
      const lines: { line: number; rowNo: number }[] = [];
      rows.forEach((row, k) => {
        const item = this.itemOf(job.mode as BulkOp, row);
        if ('problem' in item) errors.push(item.problem);
        else {
          items.push(item.item);
          lines.push({ line: row.line, rowNo: from + k });
        }
      });
      let written = 0;
      // The keys of the records the chunk wrote (none when no row could be read).
      let keys: () => Set<string> | null = () => new Set();
      if (items.length) {
        const run = await writer.apply(ctx, items, { atomic: false });
        keys = run.keys;
        for (const o of run.outcomes) {
          const externalId = text(items[o.index].Record.ExternalID);
          if (o.status < 300) written++;
          // It names a record that may come further down the file: tried again once the file is read.
          else if (o.waiting) waiting.push({ ...lines[o.index], externalId, item: items[o.index], problem: o.problem! });
          else errors.push({ line: lines[o.index].line, status: o.status, externalId, problem: o.problem! });
        }
      }
      now ??= await ours();
      await recordChunk(this.db, ctx, job.id, this.owner, {
        nextRow: from + rows.length,
        written,
        failed: errors.length,
        totalRows,
        errors: kept(errors, now.rowsFailed),
        waiting,
        leaseMs: this.config.imports.leaseMs,
      });
      ahead?.onReady(keys);
      return from + rows.length;
    });
  }

  /** A row as a bulk item, or the row's problem. */
  private itemOf(mode: BulkOp, row: FileRow): { item: BulkItemInput } | { problem: StoredRowError } {
    const fail = (detail: string): { problem: StoredRowError } => ({
      problem: {
        line: row.line,
        status: 400,
        externalId: text(row.record?.ExternalID),
        problem: { type: 'urn:pms:problem:malformed-row', title: 'The row cannot be read', status: 400, detail },
      },
    });
    if (!row.record) return fail(row.problem ?? 'The row cannot be read');
    const { ExternalRefs: refs, ...record } = row.record;
    if (refs !== undefined && refs !== null && (typeof refs !== 'object' || Array.isArray(refs)))
      return fail('ExternalRefs must be an object of field names and ExternalIDs');
    return { item: { Op: mode, Record: record, ExternalRefs: (refs as Record<string, string>) ?? null } };
  }

  private async end(
    ctx: RequestContext,
    job: ImportJobRecord,
    state: 'succeeded' | 'failed',
    problem: string | null,
    total: number | null,
    chunks: number,
  ): Promise<ImportRun> {
    const ended = await this.db.transaction(ctx, async () => {
      const now = await lockJob(this.db, ctx, job.id);
      if (!now || now.state !== 'running' || now.leaseOwner !== this.owner) return false;
      await finishJob(this.db, ctx, job.id, { state, problem, totalRows: total });
      return true;
    });
    if (!ended) return { id: job.id, chunks, outcome: 'lost' };
    this.logger.log(`import ${job.id} (site ${job.siteId}): ${state}${problem ? `: ${problem}` : ''}`);
    return { id: job.id, chunks, outcome: state };
  }
}
