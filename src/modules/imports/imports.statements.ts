import type { RequestContext } from '../../common/context/request-context.js';
import { sqlInstant } from '../../database/journal.js';
import { instantOf } from '../../database/queries/audit.js';
import type { TenantDb } from '../../database/tenant-db.js';
import { family, placeholders, sql } from '../../database/statements.js';
import type { ProblemDetails } from '../../common/errors/errors.js';
import type { BulkItemInput } from '../../http/wire/bulk.js';
import { newRecordId } from '../../common/ids.js';

/**
 * The statements of file imports (docs/imports.md). A job's row is the feature's bookkeeping:
 * written with plain statements, never through the journal, so an import adds to the audit trail
 * only what its rows' single writes add. A replica claims a job with a lease (as the webhook
 * dispatcher claims a webhook: outbox.statements.ts); each chunk of rows is written in one
 * transaction that first locks the job's row and checks the lease is still this replica's and the
 * job still running at the row it expects, and last moves the job's next row on — so a chunk is
 * committed whole with its progress, or not at all, and never by two replicas.
 */

export type ImportState = 'receiving' | 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface ImportJobRecord {
  id: string;
  siteId: string;
  kind: string;
  mode: string;
  format: string;
  state: ImportState;
  fileBytes: number;
  parts: number;
  totalRows: number | null;
  nextRow: number;
  rowsWritten: number;
  rowsFailed: number;
  caller: string;
  created: Date;
  started: Date | null;
  finished: Date | null;
  problem: string | null;
  leaseOwner: string | null;
  /** Rows waiting for a record further down the file (import_waiting_rows). */
  rowsWaiting: number;
  /** 0 while the file is read; then the retry pass under way, from 1. */
  retryPass: number;
  /** Rows the retry pass under way has written. */
  retryWritten: number;
  /** Whether the pass under way gives the waiting rows up (they become errors). */
  retryFinal: boolean;
  /** Claims since a chunk last committed (this one included). */
  claimsIdle: number;
}

const JOB_COLUMNS =
  'id, site_id, kind, mode, format, state, file_bytes, parts, total_rows, next_row, rows_written, rows_failed, caller, created, started, finished, problem, lease_owner, rows_waiting, retry_pass, retry_written, retry_final, claims_idle';

type JobRow = Record<string, unknown>;
const instant = (v: unknown): Date | null => (v === null || v === undefined ? null : instantOf(v as Date | string));

function jobOf(r: JobRow): ImportJobRecord {
  return {
    id: r.id as string,
    siteId: r.site_id as string,
    kind: r.kind as string,
    mode: r.mode as string,
    format: r.format as string,
    state: r.state as ImportState,
    fileBytes: Number(r.file_bytes),
    parts: Number(r.parts),
    totalRows: r.total_rows === null || r.total_rows === undefined ? null : Number(r.total_rows),
    nextRow: Number(r.next_row),
    rowsWritten: Number(r.rows_written),
    rowsFailed: Number(r.rows_failed),
    caller: r.caller as string,
    created: instant(r.created)!,
    started: instant(r.started),
    finished: instant(r.finished),
    problem: (r.problem as string | null) ?? null,
    leaseOwner: (r.lease_owner as string | null) ?? null,
    rowsWaiting: Number(r.rows_waiting),
    retryPass: Number(r.retry_pass),
    retryWritten: Number(r.retry_written),
    retryFinal: Number(r.retry_final) === 1,
    claimsIdle: Number(r.claims_idle),
  };
}

// ------------------------------------------------------------------ receiving the file

const INSERT_JOB = sql(
  'imports.insert-job',
  `INSERT INTO import_jobs (id, site_id, created, created_by, updated, updated_by, version, kind, mode, format, state, active, file_bytes, parts, total_rows, next_row, rows_written, rows_failed, caller, lease_until)
   VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, 'receiving', 1, 0, 0, NULL, 0, 0, 0, ?, ?)`,
);
/** Whether the site has a queued or running import (the unique index holds it; this names it). */
const ACTIVE = sql<{ id: string }>('imports.active', 'SELECT id FROM import_jobs WHERE site_id = ? AND active = 1');
const INSERT_PART = sql(
  'imports.insert-part',
  'INSERT INTO import_file_parts (site_id, created, created_by, updated, updated_by, version, import_id, part_no, data) VALUES (?, ?, NULL, ?, NULL, 1, ?, ?, ?)',
);
const RECEIVING_LEASE = sql('imports.receiving-lease', "UPDATE import_jobs SET lease_until = ? WHERE site_id = ? AND id = ? AND state = 'receiving'");
const RECEIVED = sql(
  'imports.received',
  "UPDATE import_jobs SET state = 'queued', file_bytes = ?, parts = ?, total_rows = ?, lease_until = NULL, updated = ? WHERE site_id = ? AND id = ? AND state = 'receiving'",
);
const DELETE_PARTS = sql('imports.delete-parts', 'DELETE FROM import_file_parts WHERE site_id = ? AND import_id = ?');
const DELETE_ERRORS = sql('imports.delete-errors', 'DELETE FROM import_errors WHERE site_id = ? AND import_id = ?');
const DELETE_ALL_WAITING = sql('imports.delete-all-waiting', 'DELETE FROM import_waiting_rows WHERE site_id = ? AND import_id = ?');
const DELETE_JOB = sql('imports.delete-job', 'DELETE FROM import_jobs WHERE site_id = ? AND id = ?');

/** The site's queued or running import, if any. */
export async function activeImport(db: TenantDb, ctx: RequestContext): Promise<string | null> {
  const rows = await db.sql(ctx, ACTIVE, [ctx.siteId]);
  return rows[0]?.id ?? null;
}

/**
 * A new job, receiving its file: it holds the site's one active place from now (a second one
 * fails on the unique index), and a lease that its upload renews part after part, so an upload
 * cut off by a dead replica frees the place once the lease runs out (claimJob).
 */
export async function insertJob(
  db: TenantDb,
  ctx: RequestContext,
  job: { kind: string; mode: string; format: string; caller: string; actorId: string | null },
  leaseMs: number,
): Promise<string> {
  const id = newRecordId();
  const now = sqlInstant(new Date());
  await db.transaction(ctx, () =>
    db.sql(ctx, INSERT_JOB, [
      id,
      ctx.siteId,
      now,
      job.actorId,
      now,
      job.actorId,
      job.kind,
      job.mode,
      job.format,
      job.caller,
      sqlInstant(new Date(Date.now() + leaseMs)),
    ]),
  );
  return id;
}

/**
 * Runs `write` in one transaction with the job's row locked, only while the job is still receiving
 * its file: answers false, having written nothing, when another replica found the upload's lease
 * run out and failed it (claimJob).
 */
function whileReceiving(db: TenantDb, ctx: RequestContext, importId: string, write: () => Promise<void>): Promise<boolean> {
  return db.transaction(ctx, async () => {
    if ((await lockJob(db, ctx, importId))?.state !== 'receiving') return false;
    await write();
    return true;
  });
}

const renewLease = (db: TenantDb, ctx: RequestContext, importId: string, leaseMs: number) =>
  db.sql(ctx, RECEIVING_LEASE, [sqlInstant(new Date(Date.now() + leaseMs)), ctx.siteId, importId]);

/**
 * Stores parts `firstPartNo…` of a job's file (base64), each in a statement of its own (a statement's
 * text stays small: IMPORT_PART_BYTES), and renews the upload's lease: one transaction, while the
 * job is receiving (whileReceiving).
 */
export function insertParts(
  db: TenantDb,
  ctx: RequestContext,
  importId: string,
  firstPartNo: number,
  parts: readonly Buffer[],
  leaseMs: number,
): Promise<boolean> {
  const now = sqlInstant(new Date());
  return whileReceiving(db, ctx, importId, async () => {
    for (let k = 0; k < parts.length; k++) await db.sql(ctx, INSERT_PART, [ctx.siteId, now, now, importId, firstPartNo + k, parts[k].toString('base64')]);
    await renewLease(db, ctx, importId, leaseMs);
  });
}

/** Renews the upload's lease while its file is stored and checked (ImportsService.upload, on a timer, whatever the client's pace). */
export function renewReceiving(db: TenantDb, ctx: RequestContext, importId: string, leaseMs: number): Promise<boolean> {
  return whileReceiving(db, ctx, importId, async () => {
    await renewLease(db, ctx, importId, leaseMs);
  });
}

/** The whole file is stored: the job waits for a replica (while it is receiving: whileReceiving). */
export function markReceived(
  db: TenantDb,
  ctx: RequestContext,
  importId: string,
  file: { bytes: number; parts: number; rows: number | null },
): Promise<boolean> {
  return whileReceiving(db, ctx, importId, async () => {
    await db.sql(ctx, RECEIVED, [file.bytes, file.parts, file.rows, sqlInstant(new Date()), ctx.siteId, importId]);
  });
}

/** Removes a job whose file was refused, with what was stored of it. */
export async function deleteJob(db: TenantDb, ctx: RequestContext, importId: string): Promise<void> {
  await db.transaction(ctx, async () => {
    await db.sql(ctx, DELETE_PARTS, [ctx.siteId, importId]);
    await db.sql(ctx, DELETE_ERRORS, [ctx.siteId, importId]);
    await db.sql(ctx, DELETE_ALL_WAITING, [ctx.siteId, importId]);
    await db.sql(ctx, DELETE_JOB, [ctx.siteId, importId]);
  });
}

// ------------------------------------------------------------------ the job's credentials

const API_TOKEN_STATE = sql<{ revoked: Date | string | null; expires: Date | string | null }>(
  'imports.api-token-state',
  'SELECT revoked, expires FROM api_tokens WHERE site_id = ? AND id = ?',
);

/**
 * Why the API token that started a job may no longer write (revoked, expired or deleted), or null
 * while it may: checked before each chunk (ImportProcessor), so revoking a token stops its imports.
 */
export async function apiTokenEnded(db: TenantDb, ctx: RequestContext, tokenId: string): Promise<string | null> {
  const [row] = await db.sql(ctx, API_TOKEN_STATE, [ctx.siteId, tokenId]);
  if (!row) return 'The API token that started the import was deleted';
  if (row.revoked !== null) return 'The API token that started the import was revoked';
  const expires = row.expires === null ? null : instantOf(row.expires);
  if (expires && expires.getTime() <= Date.now()) return 'The API token that started the import has expired';
  return null;
}

// ------------------------------------------------------------------ reading

const JOB = sql<JobRow>('imports.job', `SELECT ${JOB_COLUMNS} FROM import_jobs WHERE site_id = ? AND id = ?`);
/** The job's row, locked for the chunk's transaction on MySQL/MariaDB (SQLite runs one write transaction at a time). */
const LOCK_JOB = family(
  'imports.lock-job',
  (dialect: 'mysql' | 'sqlite') => `SELECT ${JOB_COLUMNS} FROM import_jobs WHERE site_id = ? AND id = ?${dialect === 'mysql' ? ' FOR UPDATE' : ''}`,
  [['mysql'], ['sqlite']],
).rows<JobRow>();
const PARTS = sql<{ part_no: number; data: string }>(
  'imports.parts',
  'SELECT part_no, data FROM import_file_parts WHERE site_id = ? AND import_id = ? AND part_no >= ? ORDER BY part_no LIMIT ?',
);
const ERRORS = sql<{ line: number; status: number; external_id: string | null; problem: string }>(
  'imports.errors',
  'SELECT line, status, external_id, problem FROM import_errors WHERE site_id = ? AND import_id = ? ORDER BY line, id LIMIT ?',
);

export async function readJob(db: TenantDb, ctx: RequestContext, id: string): Promise<ImportJobRecord | null> {
  const [row] = await db.sql(ctx, JOB, [ctx.siteId, id]);
  return row ? jobOf(row) : null;
}

/** The job's row, locked until the transaction ends. */
export async function lockJob(db: TenantDb, ctx: RequestContext, id: string): Promise<ImportJobRecord | null> {
  const [row] = await db.sql(ctx, LOCK_JOB.of(db.isSqlite ? 'sqlite' : 'mysql'), [ctx.siteId, id]);
  return row ? jobOf(row) : null;
}

/** The parts of a job's file from `from`, `n` at a time, decoded. */
export async function readParts(db: TenantDb, ctx: RequestContext, importId: string, from: number, n: number): Promise<{ partNo: number; bytes: Buffer }[]> {
  const rows = await db.sql(ctx, PARTS, [ctx.siteId, importId, from, n]);
  return rows.map((r) => ({ partNo: Number(r.part_no), bytes: Buffer.from(r.data, 'base64') }));
}

export interface StoredRowError {
  line: number;
  status: number;
  externalId: string | null;
  problem: ProblemDetails;
}

/** The failed rows of a job, by line (at most `limit`). */
export async function readErrors(db: TenantDb, ctx: RequestContext, importId: string, limit: number): Promise<StoredRowError[]> {
  const rows = await db.sql(ctx, ERRORS, [ctx.siteId, importId, limit]);
  return rows.map((r) => ({ line: Number(r.line), status: Number(r.status), externalId: r.external_id, problem: JSON.parse(r.problem) as ProblemDetails }));
}

// ------------------------------------------------------------------ the lease

/**
 * Jobs no replica holds (queued, running under a lease that ran out, or receiving a file whose
 * upload stopped), oldest first, across sites: the poll, one read (an idle replica's only statement).
 * It goes from the sites (`change_seqs`, a row per site, as the webhook dispatcher's and the
 * dashboard summaries' polls do) to each site's one active job by `ux_import_jobs_site_active`
 * (site, active = 1): its cost follows the number of sites, never the jobs that ended (which an
 * `active = 1` over the table read all of, no index starting with `active`). The join's order is
 * written out (`STRAIGHT_JOIN`; SQLite's `CROSS JOIN`): without statistics SQLite scanned the jobs.
 */
const DUE = family(
  'imports.due',
  (dialect: 'mysql' | 'sqlite') =>
    `SELECT ${dialect === 'mysql' ? 'STRAIGHT_JOIN ' : ''}j.site_id, j.id, j.state FROM change_seqs c ${dialect === 'mysql' ? 'JOIN' : 'CROSS JOIN'} import_jobs j ON j.site_id = c.site_id AND j.active = 1
     WHERE j.lease_until IS NULL OR j.lease_until < ? ORDER BY j.created LIMIT ?`,
  [['mysql'], ['sqlite']],
).rows<{ site_id: string; id: string; state: string }>();
const LEASE = sql(
  'imports.lease',
  `UPDATE import_jobs SET lease_owner = ?, lease_until = ?, state = 'running', started = COALESCE(started, ?), claims_idle = claims_idle + 1
   WHERE site_id = ? AND id = ? AND active = 1 AND state IN ('queued', 'running') AND (lease_until IS NULL OR lease_until < ?)`,
);
const RELEASE = sql('imports.release', 'UPDATE import_jobs SET lease_owner = NULL, lease_until = NULL WHERE site_id = ? AND id = ? AND lease_owner = ?');
/** Uploads whose lease ran out (the replica receiving them died): the site's place is freed. */
const STALE_RECEIVING = sql(
  'imports.stale-receiving',
  "UPDATE import_jobs SET state = 'failed', active = NULL, problem = 'The file was not received whole', finished = ?, lease_until = NULL WHERE site_id = ? AND id = ? AND state = 'receiving' AND lease_until < ?",
);

/**
 * Claims one job no replica holds, for `leaseMs`; answers its site and id, or null. An upload whose
 * receiving lease ran out (its replica died) is marked failed on the way, freeing the site's place,
 * and its stored parts are deleted.
 */
export async function claimJob(db: TenantDb, owner: string, leaseMs: number): Promise<{ siteId: string; id: string } | null> {
  const now = new Date();
  const candidates = await db.pollRead(DUE.of(db.isSqlite ? 'sqlite' : 'mysql'), [sqlInstant(now), 5]);
  for (const c of candidates) {
    if (c.state === 'receiving') {
      // What was stored of the file goes with it: nothing else would ever delete it.
      if ((await db.housekeepingWrite(STALE_RECEIVING, [sqlInstant(now), c.site_id, c.id, sqlInstant(now)])) > 0)
        await db.housekeepingWrite(DELETE_PARTS, [c.site_id, c.id]);
      continue;
    }
    // The lease condition again, in the UPDATE: two replicas that saw the same candidate, one wins.
    const won = await db.housekeepingWrite(LEASE, [owner, sqlInstant(new Date(now.getTime() + leaseMs)), sqlInstant(now), c.site_id, c.id, sqlInstant(now)]);
    if (won > 0) return { siteId: c.site_id, id: c.id };
  }
  return null;
}

/** Gives a claim back (the replica is stopping): another replica resumes from the job's next row. */
export function releaseJob(db: TenantDb, siteId: string, id: string, owner: string): Promise<number> {
  return db.housekeepingWrite(RELEASE, [siteId, id, owner]);
}

// ------------------------------------------------------------------ a chunk and the end

const PROGRESS = sql(
  'imports.progress',
  `UPDATE import_jobs SET next_row = ?, rows_written = rows_written + ?, rows_failed = rows_failed + ?, rows_waiting = rows_waiting + ?, total_rows = COALESCE(?, total_rows), claims_idle = 0, lease_until = ?, updated = ?
   WHERE site_id = ? AND id = ? AND lease_owner = ?`,
);
const INSERT_ERRORS = family(
  'imports.insert-errors',
  (n: number) =>
    `INSERT INTO import_errors (site_id, created, created_by, updated, updated_by, version, import_id, line, status, external_id, problem) VALUES ${Array.from({ length: n }, () => '(?, ?, NULL, ?, NULL, 1, ?, ?, ?, ?, ?)').join(', ')}`,
  [[1], [2]],
);
const FINISH = sql(
  'imports.finish',
  `UPDATE import_jobs SET state = ?, active = NULL, finished = ?, problem = ?, total_rows = COALESCE(?, total_rows), lease_owner = NULL, lease_until = NULL, updated = ?
   WHERE site_id = ? AND id = ?`,
);
const CANCEL = sql(
  'imports.cancel',
  `UPDATE import_jobs SET state = 'cancelled', active = NULL, finished = ?, lease_owner = NULL, lease_until = NULL, updated = ?
   WHERE site_id = ? AND id = ? AND state IN ('receiving', 'queued', 'running')`,
);

async function insertErrors(db: TenantDb, ctx: RequestContext, id: string, errors: readonly StoredRowError[], now: string): Promise<void> {
  for (let k = 0; k < errors.length; k += 100) {
    const part = errors.slice(k, k + 100);
    const params: unknown[] = [];
    for (const e of part) params.push(ctx.siteId, now, now, id, e.line, e.status, e.externalId?.slice(0, 255) ?? null, JSON.stringify(e.problem));
    await db.sql(ctx, INSERT_ERRORS.of(part.length), params);
  }
}

/** Moves a job on after a chunk, in the chunk's transaction, and keeps its failed rows and its waiting ones (for `pass` 1). */
export async function recordChunk(
  db: TenantDb,
  ctx: RequestContext,
  id: string,
  owner: string,
  chunk: { nextRow: number; written: number; failed: number; totalRows: number | null; errors: StoredRowError[]; waiting: WaitingRow[]; leaseMs: number },
): Promise<void> {
  const now = sqlInstant(new Date());
  await insertErrors(db, ctx, id, chunk.errors, now);
  await insertWaiting(db, ctx, id, chunk.waiting, 1, now);
  await db.sql(ctx, PROGRESS, [
    chunk.nextRow,
    chunk.written,
    chunk.failed,
    chunk.waiting.length,
    chunk.totalRows,
    sqlInstant(new Date(Date.now() + chunk.leaseMs)),
    now,
    ctx.siteId,
    id,
    owner,
  ]);
}

/** Ends a job (succeeded or failed) and deletes its file, in the caller's transaction. */
export async function finishJob(
  db: TenantDb,
  ctx: RequestContext,
  id: string,
  end: { state: 'succeeded' | 'failed'; problem: string | null; totalRows: number | null },
): Promise<void> {
  const now = sqlInstant(new Date());
  await db.sql(ctx, FINISH, [end.state, now, end.problem?.slice(0, 500) ?? null, end.totalRows, now, ctx.siteId, id]);
  await db.sql(ctx, DELETE_PARTS, [ctx.siteId, id]);
  await db.sql(ctx, DELETE_ALL_WAITING, [ctx.siteId, id]);
}

/** Cancels a job that has not ended, and deletes its file; a chunk being written finishes first (it holds the row). */
export async function cancelJob(db: TenantDb, ctx: RequestContext, id: string): Promise<void> {
  const now = sqlInstant(new Date());
  await db.transaction(ctx, async () => {
    const job = await lockJob(db, ctx, id);
    if (!job || !['receiving', 'queued', 'running'].includes(job.state)) return;
    await db.sql(ctx, CANCEL, [now, now, ctx.siteId, id]);
    await db.sql(ctx, DELETE_PARTS, [ctx.siteId, id]);
    await db.sql(ctx, DELETE_ALL_WAITING, [ctx.siteId, id]);
  });
}

// ------------------------------------------------------------------ rows waiting for later rows

/**
 * A row that waits for a record further down its file (docs/imports.md, "References to later
 * rows"): its position and line, its ExternalID, the bulk item it was read as, and its last problem.
 */
export interface WaitingRow {
  rowNo: number;
  line: number;
  externalId: string | null;
  item: BulkItemInput;
  problem: ProblemDetails;
}

/** A waiting row as read back for its pass, with the id its delete takes. */
export interface StoredWaitingRow extends WaitingRow {
  id: number;
}

const INSERT_WAITING = family(
  'imports.insert-waiting',
  (n: number) =>
    `INSERT INTO import_waiting_rows (site_id, created, created_by, updated, updated_by, version, import_id, row_no, line, pass, external_id, problem, item) VALUES ${Array.from({ length: n }, () => '(?, ?, NULL, ?, NULL, 1, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
  [[1], [2]],
);
/** A pass's rows, last in the file first: a row's later targets are tried before it (ux_import_waiting_rows_pass). */
const WAITING = sql<{ id: number; row_no: number; line: number; external_id: string | null; problem: string; item: string }>(
  'imports.waiting',
  'SELECT id, row_no, line, external_id, problem, item FROM import_waiting_rows WHERE site_id = ? AND import_id = ? AND pass = ? ORDER BY row_no DESC LIMIT ?',
);
const DELETE_WAITING = family(
  'imports.delete-waiting',
  (n: number) => `DELETE FROM import_waiting_rows WHERE site_id = ? AND import_id = ? AND id IN (${placeholders(n)})`,
  [[1], [2]],
);
const RETRY_PROGRESS = sql(
  'imports.retry-progress',
  `UPDATE import_jobs SET rows_written = rows_written + ?, rows_failed = rows_failed + ?, rows_waiting = rows_waiting - ?, retry_written = retry_written + ?, claims_idle = 0, lease_until = ?, updated = ?
   WHERE site_id = ? AND id = ? AND lease_owner = ?`,
);
const NEXT_PASS = sql(
  'imports.next-pass',
  'UPDATE import_jobs SET retry_pass = ?, retry_written = 0, retry_final = ?, problem = COALESCE(?, problem), lease_until = ?, updated = ? WHERE site_id = ? AND id = ? AND lease_owner = ?',
);

async function insertWaiting(db: TenantDb, ctx: RequestContext, id: string, rows: readonly WaitingRow[], pass: number, now: string): Promise<void> {
  for (let k = 0; k < rows.length; k += 100) {
    const part = rows.slice(k, k + 100);
    const params: unknown[] = [];
    for (const r of part)
      params.push(ctx.siteId, now, now, id, r.rowNo, r.line, pass, r.externalId?.slice(0, 255) ?? null, JSON.stringify(r.problem), JSON.stringify(r.item));
    await db.sql(ctx, INSERT_WAITING.of(part.length), params);
  }
}

/** Up to `n` rows that `pass` tries, last in the file first. */
export async function readWaiting(db: TenantDb, ctx: RequestContext, importId: string, pass: number, n: number): Promise<StoredWaitingRow[]> {
  const rows = await db.sql(ctx, WAITING, [ctx.siteId, importId, pass, n]);
  return rows.map((r) => ({
    id: Number(r.id),
    rowNo: Number(r.row_no),
    line: Number(r.line),
    externalId: r.external_id,
    problem: JSON.parse(r.problem) as ProblemDetails,
    item: JSON.parse(r.item) as BulkItemInput,
  }));
}

/**
 * Ends a retry chunk, in its transaction: the rows it took are deleted; those that wait still are
 * kept for the next pass (with their new problem), the failed ones as errors; the job's counts move.
 */
export async function recordRetry(
  db: TenantDb,
  ctx: RequestContext,
  id: string,
  owner: string,
  chunk: {
    taken: readonly StoredWaitingRow[];
    written: number;
    failed: number;
    errors: StoredRowError[];
    waiting: WaitingRow[];
    pass: number;
    leaseMs: number;
  },
): Promise<void> {
  const now = sqlInstant(new Date());
  for (let k = 0; k < chunk.taken.length; k += 100) {
    const part = chunk.taken.slice(k, k + 100);
    await db.sql(ctx, DELETE_WAITING.of(part.length), [ctx.siteId, id, ...part.map((r) => r.id)]);
  }
  await insertErrors(db, ctx, id, chunk.errors, now);
  await insertWaiting(db, ctx, id, chunk.waiting, chunk.pass + 1, now);
  await db.sql(ctx, RETRY_PROGRESS, [
    chunk.written,
    chunk.failed,
    chunk.written + chunk.failed,
    chunk.written,
    sqlInstant(new Date(Date.now() + chunk.leaseMs)),
    now,
    ctx.siteId,
    id,
    owner,
  ]);
}

/**
 * Starts retry pass `pass` (`final`: it gives the rows up), in the caller's transaction; `problem`
 * (the file could not be read on) is kept, so a replica that resumes the passes ends the job failed.
 */
export async function startPass(
  db: TenantDb,
  ctx: RequestContext,
  id: string,
  owner: string,
  next: { pass: number; final: boolean; problem: string | null; leaseMs: number },
): Promise<void> {
  const now = sqlInstant(new Date());
  await db.sql(ctx, NEXT_PASS, [
    next.pass,
    next.final ? 1 : 0,
    next.problem?.slice(0, 500) ?? null,
    sqlInstant(new Date(Date.now() + next.leaseMs)),
    now,
    ctx.siteId,
    id,
    owner,
  ]);
}

// ------------------------------------------------------------------ retention

/**
 * The sites, for the retention sweep: from `change_seqs` (every site's trail starts with its
 * creation), as the claim poll and the dashboard summaries' poll find them, never from `sites`.
 */
const RETENTION_SITES = sql<{ site_id: string }>('imports.retention-sites', 'SELECT site_id FROM change_seqs');
/**
 * Up to `?` jobs of a site that ended before `?`, oldest first (ix_import_jobs_site_finished): a
 * queued, running or receiving job has no `finished` yet, and is never among them.
 */
const ENDED_JOBS = sql<{ id: string }>(
  'imports.ended-jobs',
  "SELECT id FROM import_jobs WHERE site_id = ? AND finished < ? AND state IN ('succeeded', 'failed', 'cancelled') ORDER BY finished LIMIT ?",
);

/** What a job keeps beside its row, each found by an index that starts with the site and the job. */
const JOB_CHILD_TABLES = ['import_errors', 'import_waiting_rows', 'import_file_parts'] as const;
type JobChildTable = (typeof JOB_CHILD_TABLES)[number];
/** Rows of a child table deleted per statement: a part is 64 KiB of file, a waiting row a bulk item. */
const CHILD_BATCH: Record<JobChildTable, number> = { import_errors: 1000, import_waiting_rows: 200, import_file_parts: 16 };

/** Up to `?` ids of the rows of `jobs` ended jobs of a site in a child table. */
const CHILD_IDS = family(
  'imports.retention-child-ids',
  (table: JobChildTable, jobs: number) => `SELECT id FROM ${table} WHERE site_id = ? AND import_id IN (${placeholders(jobs)}) LIMIT ?`,
  JOB_CHILD_TABLES.map((table) => [table, 2] as [JobChildTable, number]),
).rows<{ id: number }>();
/** `n` rows of a child table of a site, by id. */
const PRUNE_CHILDREN = family(
  'imports.retention-prune-children',
  (table: JobChildTable, n: number) => `DELETE FROM ${table} WHERE site_id = ? AND id IN (${placeholders(n)})`,
  JOB_CHILD_TABLES.map((table) => [table, 2] as [JobChildTable, number]),
);
/** `n` jobs of a site, by id, still ended before the cutoff (checked again: a row is never deleted on a stale read). */
const PRUNE_JOBS = family(
  'imports.retention-prune-jobs',
  (n: number) =>
    `DELETE FROM import_jobs WHERE site_id = ? AND id IN (${placeholders(n)}) AND finished < ? AND active IS NULL AND state IN ('succeeded', 'failed', 'cancelled')`,
  [[2]],
);

/** What one retention sweep deleted. */
export interface ImportsPruned {
  jobs: number;
  errors: number;
  waitingRows: number;
  fileParts: number;
}

/**
 * Deletes the jobs that ended before `cutoff` (succeeded, failed or cancelled), with their failed
 * rows, their waiting rows and any parts of their file left, over every site (docs/imports.md,
 * "Retention"): a site's ended jobs are found `jobBatch` at a time on ix_import_jobs_site_finished,
 * their rows in each child table are deleted by id, a bounded number per short statement outside
 * any request's transaction (a job keeps up to 10,000 failed rows), then the jobs themselves. A
 * sweep interrupted half-way leaves ended jobs with fewer rows, which the next sweep finishes.
 * Each replica sweeps; deleting twice is harmless. Answers what it deleted.
 */
export async function pruneImports(db: TenantDb, cutoff: Date, jobBatch: number): Promise<ImportsPruned> {
  const pruned: ImportsPruned = { jobs: 0, errors: 0, waitingRows: 0, fileParts: 0 };
  const counted: Record<JobChildTable, keyof ImportsPruned> = { import_errors: 'errors', import_waiting_rows: 'waitingRows', import_file_parts: 'fileParts' };
  for (const { site_id: siteId } of await db.pollRead(RETENTION_SITES, [])) {
    for (;;) {
      const jobs = (await db.pollRead(ENDED_JOBS, [siteId, sqlInstant(cutoff), jobBatch])).map((j) => j.id);
      if (jobs.length === 0) break;
      for (const table of JOB_CHILD_TABLES) {
        const per = CHILD_BATCH[table];
        for (;;) {
          const ids = (await db.pollRead(CHILD_IDS.of(table, jobs.length), [siteId, ...jobs, per])).map((r) => r.id);
          if (ids.length === 0) break;
          pruned[counted[table]] += await db.housekeepingWrite(PRUNE_CHILDREN.of(table, ids.length), [siteId, ...ids]);
          if (ids.length < per) break;
        }
      }
      const gone = await db.housekeepingWrite(PRUNE_JOBS.of(jobs.length), [siteId, ...jobs, sqlInstant(cutoff)]);
      pruned.jobs += gone;
      // Fewer deleted than found: another replica's sweep took some meanwhile; the next sweep sees to the rest.
      if (jobs.length < jobBatch || gone < jobs.length) break;
    }
  }
  return pruned;
}
