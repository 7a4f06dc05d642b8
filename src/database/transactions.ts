import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { QueryResult, type DataSource, type EntityManager } from 'typeorm';
import type { RequestContext } from '../common/context/request-context.js';
import { ServiceUnavailableError } from '../common/errors/errors.js';
import { isDatabaseUnavailable, isRetryableConflict } from '../common/errors/db-errors.js';
import { flushJournal, joinBatches, journalBatch, type Batch } from './journal.js';
import { BOUND, JOURNALS, TRANSACTION_ATTEMPTS, type TxJournal } from './row-store.js';
import { family, sql } from './statements.js';

/** Whether the server is a Galera node (`Value` ON): see trailWithCommit. */
const WSREP_ON = sql<{ Value?: string }>('server.wsrep-on', "SHOW VARIABLES LIKE 'wsrep_on'");

/**
 * A savepoint inside a transaction (TenantDb.savepoint), named by its depth so one can hold
 * another (a bulk batch holding its items: docs/bulk.md).
 */
const SAVEPOINT = family('tx.savepoint', (depth: number) => `SAVEPOINT pms_sp${depth}`, [[1]]);
const ROLLBACK_TO = family('tx.rollback-to-savepoint', (depth: number) => `ROLLBACK TO SAVEPOINT pms_sp${depth}`, [[1]]);
const RELEASE = family('tx.release-savepoint', (depth: number) => `RELEASE SAVEPOINT pms_sp${depth}`, [[1]]);
/** How deep the savepoints of each context's transaction are. */
const SAVEPOINT_DEPTH = new WeakMap<RequestContext, number>();

/** Marks the async flow that holds the SQLite writer lock, so a nested transaction joins it. */
const SQLITE_LOCK_HELD = new AsyncLocalStorage<true>();

/**
 * How TenantDb runs a transaction (docs/architecture.md, "How a write runs"): on a pool connection,
 * the context bound to it while the work runs, the journal's audit rows written before (or, on one
 * MySQL/MariaDB server, with) the COMMIT, a lost deadlock or lock wait run again up to
 * TRANSACTION_ATTEMPTS times and then 503; on SQLite, whose single connection cannot hold two
 * transactions at once, queued.
 */
export class Transactions {
  private readonly logger = new Logger('TenantDb');
  /** SQLite has one connection: transactions run one at a time. */
  private sqliteQueue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    private readonly isSqlite: boolean,
    /** Told after each commit: the context and the sites whose changes it recorded. */
    private readonly committed: (ctx: RequestContext, sites: string[]) => void,
  ) {}

  /**
   * Runs `fn` in one transaction: all of its writes land, or none does. The context is bound to
   * the transaction while `fn` runs, so anything called with `ctx` takes part in it; a nested
   * call with the same context joins the outer transaction. A transaction that fails on a
   * deadlock or a lock wait is run again (up to TRANSACTION_ATTEMPTS times in all), then answers
   * 503 with Retry-After. On SQLite, whose single connection cannot hold two transactions at once,
   * transactions are queued.
   */
  async run<R>(ctx: RequestContext, fn: () => Promise<R>): Promise<R> {
    if (BOUND.has(ctx)) return fn();
    // Asked once per process, before any connection is taken for the transaction.
    const batching = !this.isSqlite && (await this.trailWithCommit());
    for (let attempt = 1; ; attempt++) {
      try {
        let sites: string[] = [];
        let trail: Batch | null = null;
        const result = await this.exclusive(() =>
          this.inTransaction(
            async (manager) => {
              const journal: TxJournal = { changes: [], rows: new Map(), atCommit: [], held: [], heldSavepoint: null, holding: 0, heldFailed: false };
              BOUND.set(ctx, manager);
              JOURNALS.set(ctx, journal);
              if (!this.isSqlite) sendHeldFirst(manager, journal);
              try {
                const answer = await fn();
                // The writes left for the end, then the audit rows (and so the outbox and the
                // change log) commit with the write: on MySQL/MariaDB in the same round trip as the
                // COMMIT (docs/audit.md, "Cost").
                if (!batching) {
                  for (const late of journal.atCommit) await manager.query(late.sql, late.params);
                  sites = await flushJournal(manager, this.isSqlite, ctx, journal.changes);
                } else {
                  ({ batch: trail, sites } = journalBatch(ctx, journal.changes));
                  trail = joinBatches([...journal.atCommit, ...(trail ? [trail] : [])]);
                }
                return answer;
              } finally {
                BOUND.delete(ctx);
                JOURNALS.delete(ctx);
              }
            },
            () => trail,
          ),
        );
        this.committed(ctx, sites);
        return result;
      } catch (e) {
        if (!isRetryableConflict(e)) throw e;
        if (attempt >= TRANSACTION_ATTEMPTS) {
          this.logger.warn(`transaction gave up after ${attempt} lock conflicts (request ${ctx.requestId})`);
          throw new ServiceUnavailableError('The database is busy with conflicting writes; retry shortly', 1);
        }
        await sleep(10 * attempt + Math.floor(Math.random() * 40));
      }
    }
  }

  /**
   * Runs `fn` so that its writes land or vanish as one, whatever the rest of the request does: in
   * the context's transaction, between a savepoint and its release, rolled back to the savepoint
   * (with the audit rows and the writes left for the commit that it recorded) when `fn` throws;
   * outside a transaction, in one of its own (`run`). A lost deadlock or lock wait is not caught
   * here: MySQL/MariaDB have rolled the whole transaction back, which `run` retries whole.
   *
   * `holdWrites` (MySQL/MariaDB): the unit's SAVEPOINT, its inserts and its updates of rows it
   * locked (without If-Match) are held back (TxJournal.held) and sent together — in front of the
   * transaction's next statement that needs them (sendHeldFirst), at the latest with the RELEASE
   * that ends the unit — so a new individual in a bulk request costs one round trip for its three
   * inserts, not five (docs/bulk.md, "Round trips"). A held write's failure reaches whichever
   * statement carried it, not the code that made the write and would have answered it (a taken
   * user name, a taken ExternalID): so when sending held writes failed, the unit is rolled back to
   * its savepoint and runs again with every write sent at once, and answers exactly as that run does.
   */
  async savepoint<R>(ctx: RequestContext, fn: () => Promise<R>, opts: { holdWrites?: boolean } = {}): Promise<R> {
    const manager = BOUND.get(ctx);
    const journal = JOURNALS.get(ctx);
    if (!manager || !journal) return this.run(ctx, fn);
    const depth = (SAVEPOINT_DEPTH.get(ctx) ?? 0) + 1;
    const holds = opts.holdWrites === true && !this.isSqlite && journal.holding === 0 && HELD_SENDERS.has(journal);
    // A unit that holds its writes holds its SAVEPOINT too, until its first write (sendHeldFirst);
    // nothing is held when it starts (only a unit that holds holds, and it ends by sending).
    if (holds) journal.heldSavepoint = SAVEPOINT.of(depth).text;
    else await manager.query(SAVEPOINT.of(depth).text);
    const marks = { changes: journal.changes.length, atCommit: journal.atCommit.length, held: journal.held.length };
    SAVEPOINT_DEPTH.set(ctx, depth);
    /** Back to the savepoint; false when it was never sent (the unit only read: there is nothing to undo on the server). */
    const rollBack = async (): Promise<boolean> => {
      // The unit's held writes are dropped first: they were never sent, and must not ride with the ROLLBACK.
      journal.held.length = marks.held;
      const sent = journal.heldSavepoint === null;
      journal.heldSavepoint = null;
      if (sent) await manager.query(ROLLBACK_TO.of(depth).text);
      journal.changes.length = marks.changes;
      journal.atCommit.length = marks.atCommit;
      // The rows kept as "before" states may hold what was rolled back: read them again.
      journal.rows.clear();
      return sent;
    };
    try {
      if (!holds) {
        const result = await fn();
        await manager.query(RELEASE.of(depth).text);
        return result;
      }
      try {
        journal.holding = depth;
        journal.heldFailed = false;
        const result = await fn();
        // Held writes whose failure `fn` caught are as much a failure as one it did not.
        if (journal.heldFailed) throw new Error('held writes failed');
        await endUnit(journal, RELEASE.of(depth).text);
        return result;
      } catch (e) {
        // A lost deadlock ends the transaction (run retries it), a lost database the request (503).
        if (!journal.heldFailed || isRetryableConflict(e) || isDatabaseUnavailable(e)) throw e;
        journal.holding = 0;
        journal.heldFailed = false;
        if (!(await rollBack())) await manager.query(SAVEPOINT.of(depth).text);
        const result = await fn();
        await manager.query(RELEASE.of(depth).text);
        return result;
      } finally {
        journal.holding = 0;
        journal.heldFailed = false;
      }
    } catch (e) {
      if (!isRetryableConflict(e) && (await rollBack())) await manager.query(RELEASE.of(depth).text);
      throw e;
    } finally {
      SAVEPOINT_DEPTH.set(ctx, depth - 1);
    }
  }

  private trailBatching: Promise<boolean> | null = null;

  /**
   * Whether a transaction's trail is sent with its COMMIT in one round trip (docs/audit.md,
   * "Cost"): on a single MySQL/MariaDB server, yes; on a Galera node (`wsrep_on`), no — there the
   * cluster suite saw writes acknowledged after such a batch missing from the cluster when a
   * replica was killed under load, so the trail goes as separate statements before a plain COMMIT.
   * Asked once; asked again after a failure (the database may have been away).
   */
  private trailWithCommit(): Promise<boolean> {
    this.trailBatching ??= (this.dataSource.query(WSREP_ON.text) as Promise<{ Value?: string }[]>).then(
      (rows) => {
        const galera = rows.some((r) => String(r.Value).toUpperCase() === 'ON');
        this.logger.log(galera ? 'Galera node (wsrep_on): the audit trail is written before the COMMIT' : 'the audit trail is sent with the COMMIT');
        return !galera;
      },
      (e: unknown) => {
        this.trailBatching = null;
        throw e;
      },
    );
    return this.trailBatching;
  }

  /**
   * One transaction on a connection of the pool, as DataSource.transaction runs it, but without
   * a `SET TRANSACTION ISOLATION LEVEL` before it: every MySQL/MariaDB connection is READ
   * COMMITTED from its first statement (bounded-mysql.ts) — so a check made after taking a lock
   * sees what the previous holder committed, where REPEATABLE READ could read a snapshot older
   * than the lock — and SQLite transactions are serializable as they are. One round trip less per
   * write.
   */
  private async inTransaction<R>(fn: (manager: EntityManager) => Promise<R>, last?: () => Batch | null): Promise<R> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      try {
        const result = await fn(runner.manager);
        const batch = last?.();
        if (batch) {
          // The batch and the COMMIT in one round trip: the server runs them in order and stops at
          // the first error (then nothing is committed, and the ROLLBACK below ends the transaction).
          await runner.query(`${batch.sql};\nCOMMIT`, batch.params);
          const state = runner as unknown as {
            isTransactionActive: boolean;
            transactionDepth: number;
            broadcaster: { broadcast(event: 'AfterTransactionCommit'): Promise<void> };
          };
          state.isTransactionActive = false;
          state.transactionDepth = 0;
          // What commitTransaction() tells the subscribers after its COMMIT (the caller cache drops
          // a caller read while the transaction was open); without it they never hear of this one.
          await state.broadcaster.broadcast('AfterTransactionCommit');
        } else await runner.commitTransaction();
        return result;
      } catch (e) {
        if (runner.isTransactionActive) {
          await runner.rollbackTransaction().catch((failed: unknown) => {
            // The transaction may still be open on the server (a Galera node that left the primary
            // component refuses the ROLLBACK too): its connection is closed on release, not pooled
            // (bounded-mysql.ts), which ends it there; the caller gets the first error.
            this.logger.warn(`ROLLBACK failed (${(failed as Error).message}); on MySQL/MariaDB its connection is closed, not pooled`);
          });
        }
        throw e;
      }
    } finally {
      await runner.release();
    }
  }

  /**
   * Housekeeping of the service's own tables across sites (the webhook dispatcher's claims and
   * results, the audit retention sweep): one short transaction with no request context and no
   * journal. On SQLite it waits its turn with the request transactions, as its single connection
   * must not mix two transactions: it always waits for the queue, even when started from inside a
   * request's transaction (so never await it there). Only src/database/queries call it.
   */
  housekeeping<R>(fn: (manager: EntityManager) => Promise<R>): Promise<R> {
    return SQLITE_LOCK_HELD.exit(() => this.exclusive(() => this.inTransaction(fn)));
  }

  private exclusive<R>(fn: () => Promise<R>): Promise<R> {
    if (!this.isSqlite || SQLITE_LOCK_HELD.getStore()) return fn();
    const run = this.sqliteQueue.then(() => SQLITE_LOCK_HELD.run(true, fn));
    this.sqliteQueue = run.catch(() => undefined);
    return run;
  }
}

/**
 * Makes every statement of the transaction's runner carry what a unit holds (Transactions.savepoint,
 * `holdWrites`): held writes are sent first, together with the unit's SAVEPOINT when that is still
 * held, in one round trip (with the statement itself when it is a read: readAfterHeld); a held
 * SAVEPOINT alone waits for a statement that is not a read (isRead). A failure marks the journal
 * (`heldFailed`) so the unit that held them runs again.
 */
function sendHeldFirst(manager: EntityManager, journal: TxJournal): void {
  const runner = manager.queryRunner;
  if (!runner) return;
  const send = runner.query.bind(runner) as (query: string, parameters?: unknown[], structured?: boolean) => Promise<unknown>;
  HELD_SENDERS.set(journal, send);
  runner.query = (async (query: string, parameters?: unknown[], structured?: boolean) => {
    if (journal.held.length && isRead(query)) return readAfterHeld(journal, query, parameters, structured);
    if (journal.held.length || (journal.heldSavepoint !== null && !isRead(query))) await sendHeld(journal);
    return send(query, parameters, structured);
  }) as typeof runner.query;
}

/**
 * A SELECT, locking or not: it may go before a held SAVEPOINT, since it changes nothing a rollback
 * would undo, and InnoDB keeps the locks a unit took after its savepoint when it rolls back to it
 * anyway (they are released at the transaction's end).
 */
function isRead(sql: string): boolean {
  return /^\s*\(?\s*SELECT\b/i.test(sql);
}

/** The runner's own `query` of each transaction that can hold writes (sendHeldFirst). */
const HELD_SENDERS = new WeakMap<TxJournal, (query: string, parameters?: unknown[]) => Promise<unknown>>();

/** What the unit holds, in the order it must be sent (its SAVEPOINT first), taken out of the journal. */
function takeHeld(journal: TxJournal): Batch[] {
  const batches: Batch[] = journal.held.splice(0);
  if (journal.heldSavepoint !== null) batches.unshift({ sql: journal.heldSavepoint, params: [] });
  journal.heldSavepoint = null;
  return batches;
}

/**
 * Sends what the unit holds — its SAVEPOINT, its writes — and `trailing` (a statement whose answer
 * nobody reads) in one round trip; nothing when there is nothing to send.
 */
async function sendHeld(journal: TxJournal, trailing?: string): Promise<void> {
  const batches = takeHeld(journal);
  if (trailing) batches.push({ sql: trailing, params: [] });
  const batch = joinBatches(batches);
  if (!batch) return;
  try {
    await HELD_SENDERS.get(journal)!(batch.sql, batch.params);
  } catch (e) {
    journal.heldFailed = true;
    throw e;
  }
}

/**
 * A read that needs the held writes before it: they and the read in one round trip, the read's
 * rows answered as the runner answers a read alone (its last result). A failure of any of them
 * marks the journal, as sendHeld does: the unit runs again with each statement sent alone.
 */
async function readAfterHeld(journal: TxJournal, query: string, parameters: unknown[] | undefined, structured: boolean | undefined): Promise<unknown> {
  const batches = takeHeld(journal);
  batches.push({ sql: query, params: parameters ?? [] });
  const batch = joinBatches(batches)!;
  let results: unknown;
  try {
    results = await HELD_SENDERS.get(journal)!(batch.sql, batch.params);
  } catch (e) {
    journal.heldFailed = true;
    throw e;
  }
  const rows = (results as unknown[])[(results as unknown[]).length - 1];
  if (!structured) return rows;
  const result = new QueryResult();
  result.raw = rows;
  result.records = Array.from(rows as unknown[]);
  return result;
}

/**
 * Ends a unit that held its writes: what it still holds and its RELEASE in one round trip, or
 * nothing at all when it never sent its SAVEPOINT (it only read).
 */
function endUnit(journal: TxJournal, release: string): Promise<void> {
  if (journal.heldSavepoint !== null && journal.held.length === 0) {
    journal.heldSavepoint = null;
    return Promise.resolve();
  }
  return sendHeld(journal, release);
}
