import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { RequestContext } from '../common/context/request-context.js';
import { ServiceUnavailableError } from '../common/errors/errors.js';
import { isRetryableConflict } from '../common/errors/db-errors.js';
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
              const journal: TxJournal = { changes: [], rows: new Map(), atCommit: [] };
              BOUND.set(ctx, manager);
              JOURNALS.set(ctx, journal);
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
   */
  async savepoint<R>(ctx: RequestContext, fn: () => Promise<R>): Promise<R> {
    const manager = BOUND.get(ctx);
    const journal = JOURNALS.get(ctx);
    if (!manager || !journal) return this.run(ctx, fn);
    const depth = (SAVEPOINT_DEPTH.get(ctx) ?? 0) + 1;
    const marks = { changes: journal.changes.length, atCommit: journal.atCommit.length };
    await manager.query(SAVEPOINT.of(depth).text);
    SAVEPOINT_DEPTH.set(ctx, depth);
    try {
      const result = await fn();
      await manager.query(RELEASE.of(depth).text);
      return result;
    } catch (e) {
      if (!isRetryableConflict(e)) {
        await manager.query(ROLLBACK_TO.of(depth).text);
        await manager.query(RELEASE.of(depth).text);
        journal.changes.length = marks.changes;
        journal.atCommit.length = marks.atCommit;
        // The rows kept as "before" states may hold what was rolled back: read them again.
        journal.rows.clear();
      }
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
