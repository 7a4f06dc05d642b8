import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { QueryResult, type DataSource, type EntityManager } from 'typeorm';
import type { RequestContext } from '../common/context/request-context.js';
import { ServiceUnavailableError } from '../common/errors/errors.js';
import { isDatabaseUnavailable, isRetryableConflict } from '../common/errors/db-errors.js';
import { flushJournal, joinBatches, journalBatch, paramsOf, sameValue, type Batch } from './journal.js';
import { KeptChecks, type RowWrite } from './kept-checks.js';
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
              const journal: TxJournal = {
                changes: [],
                rows: new Map(),
                atCommit: [],
                held: [],
                heldTables: new Set(),
                heldSavepoint: null,
                heldSavepointAt: 0,
                holding: 0,
                heldFailed: false,
                carry: false,
                carried: 0,
                carryFailed: false,
                ahead: null,
                aheadFailure: null,
                memo: new KeptChecks(),
                tracked: false,
                rowWrite: null,
              };
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
   *
   * When the transaction carries held writes (`carrying`: a bulk chunk), a unit that ends
   * well leaves them held instead, with no SAVEPOINT or RELEASE sent when it never needed one: the
   * next units' writes join them, and they go together — inserts into one table as one multi-row
   * INSERT — in front of the first statement that needs them, or when the chunk ends. A failure of
   * writes that an ended unit left cannot be told apart from the others': it is CarriedWritesFailed,
   * which ends the transaction, and `carrying` runs the chunk again without carrying (docs/bulk.md,
   * "Round trips").
   */
  async savepoint<R>(ctx: RequestContext, fn: () => Promise<R>, opts: { holdWrites?: boolean } = {}): Promise<R> {
    const manager = BOUND.get(ctx);
    const journal = JOURNALS.get(ctx);
    if (!manager || !journal) return this.run(ctx, fn);
    const depth = (SAVEPOINT_DEPTH.get(ctx) ?? 0) + 1;
    const holds = opts.holdWrites === true && !this.isSqlite && journal.holding === 0 && HELD_SENDERS.has(journal);
    // A unit that holds its writes holds its SAVEPOINT too, until its first write (sendHeldFirst),
    // placed after what ended units left held (`carried`; nothing else is held when it starts).
    if (holds) {
      journal.heldSavepoint = SAVEPOINT.of(depth).text;
      journal.heldSavepointAt = journal.held.length;
    } else await manager.query(SAVEPOINT.of(depth).text);
    const marks = { changes: journal.changes.length, atCommit: journal.atCommit.length, held: journal.held.length };
    SAVEPOINT_DEPTH.set(ctx, depth);
    /** Back to the savepoint; false when it was never sent (the unit only read: there is nothing to undo on the server). */
    const rollBack = async (): Promise<boolean> => {
      // The unit's held writes are dropped first: they were never sent, and must not ride with the
      // ROLLBACK. What ended units left stays (`carried`: none once anything was sent).
      journal.held.length = Math.min(marks.held, journal.carried);
      const sent = journal.heldSavepoint === null;
      journal.heldSavepoint = null;
      if (sent) await manager.query(ROLLBACK_TO.of(depth).text);
      rewind(journal, marks);
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
        if (journal.carryFailed) throw new CarriedWritesFailed(new Error('carried writes failed'));
        if (journal.heldFailed) throw new Error('held writes failed');
        if (journal.carry) leaveHeld(journal);
        else await endUnit(journal, RELEASE.of(depth).text);
        return result;
      } catch (e) {
        // A lost deadlock ends the transaction (run retries it), a lost database the request (503),
        // carried writes that failed the chunk's transaction (its bulk batch runs it again).
        // A unit that caught and answered carried writes' failure (as a taken key, say) ends the transaction all the same.
        if (journal.carryFailed) throw e instanceof CarriedWritesFailed ? e : new CarriedWritesFailed(e);
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
      if (journal.carryFailed) throw e instanceof CarriedWritesFailed ? e : new CarriedWritesFailed(e);
      if (!isRetryableConflict(e) && (await rollBack())) await manager.query(RELEASE.of(depth).text);
      throw e;
    } finally {
      SAVEPOINT_DEPTH.set(ctx, depth - 1);
    }
  }

  /**
   * Runs `fn` in a transaction (`run`) whose units that hold their writes leave them held when they
   * end (see `savepoint`), until a statement needs them or `fn` has ended, when they are sent before
   * the COMMIT. When carried writes fail (CarriedWritesFailed) the transaction is rolled back and
   * `fn` runs again in a new one where each unit sends its own writes at its end, so it answers as
   * it would have without carrying. Inside the context's transaction (an atomic bulk request, one
   * with an Idempotency-Key), the same between a savepoint of its own, which the failure rolls back
   * to (`carryingInside`). On SQLite (which holds nothing), just `run`. For a bulk chunk and an
   * import's chunk.
   */
  async carrying<R>(ctx: RequestContext, fn: () => Promise<R>): Promise<R> {
    if (BOUND.has(ctx)) return this.carryingInside(ctx, fn);
    for (let carry = !this.isSqlite; ; carry = false) {
      try {
        return await this.run(ctx, async () => {
          const journal = carry ? JOURNALS.get(ctx) : undefined;
          if (journal && HELD_SENDERS.has(journal)) journal.carry = true;
          const result = await fn();
          if (journal?.carry) {
            if (journal.carryFailed) throw new CarriedWritesFailed(new Error('carried writes failed'));
            await sendHeld(journal);
          }
          return result;
        });
      } catch (e) {
        if (!(e instanceof CarriedWritesFailed) || !carry) throw e;
        // Which unit's write failed cannot be told: all of them again, each sending its own.
        this.logger.debug(`carried writes failed (request ${ctx.requestId}), the transaction runs again without carrying: ${e.message}`);
      }
    }
  }

  /**
   * `carrying` inside the context's transaction, which cannot run again alone: `fn` runs between a
   * SAVEPOINT of its own and its RELEASE, its units leaving their writes held as in a transaction of
   * its own. When carried writes fail, whatever was held is dropped, the writes sent ahead are
   * waited for, the transaction goes back to that savepoint (with the audit rows and the writes left
   * for the commit that `fn` recorded, and the rows and checks it kept), and `fn` runs again with
   * each unit sending its own writes. A lost deadlock or a database that is gone ends the
   * transaction as it does anywhere (`run` retries it whole, or the request answers 503). Where
   * nothing can be carried (SQLite; a unit or a chunk already holding), `fn` joins as it is.
   */
  private async carryingInside<R>(ctx: RequestContext, fn: () => Promise<R>): Promise<R> {
    const manager = BOUND.get(ctx);
    const journal = JOURNALS.get(ctx);
    if (this.isSqlite || !manager || !journal || !HELD_SENDERS.has(journal) || journal.carry || journal.holding !== 0 || journal.held.length) return fn();
    const depth = (SAVEPOINT_DEPTH.get(ctx) ?? 0) + 1;
    await manager.query(SAVEPOINT.of(depth).text);
    const marks = { changes: journal.changes.length, atCommit: journal.atCommit.length };
    SAVEPOINT_DEPTH.set(ctx, depth);
    try {
      let result: R;
      try {
        journal.carry = true;
        result = await fn();
        if (journal.carryFailed) throw new CarriedWritesFailed(new Error('carried writes failed'));
        await sendHeld(journal);
      } catch (e) {
        // Nothing held may ride with a later statement, and nothing sent ahead may still be in flight.
        dropHeld(journal);
        await aheadSettled(journal);
        const carriedFailed = e instanceof CarriedWritesFailed || journal.carryFailed;
        journal.aheadFailure = null;
        journal.carryFailed = false;
        journal.heldFailed = false;
        if (!carriedFailed || isRetryableConflict(e) || isDatabaseUnavailable(e)) throw e;
        this.logger.debug(
          `carried writes failed (request ${ctx.requestId}), the chunk runs again from its savepoint without carrying: ${(e as Error).message}`,
        );
        journal.carry = false;
        await manager.query(ROLLBACK_TO.of(depth).text);
        rewind(journal, marks);
        result = await fn();
      } finally {
        journal.carry = false;
      }
      await manager.query(RELEASE.of(depth).text);
      return result;
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
  journal.tracked = true;
  runner.query = (async (query: string, parameters?: unknown[], structured?: boolean) => {
    // Carried writes sent ahead go first: a ROLLBACK waits for them and is sent whatever they
    // answered; any other statement is not sent after them when they failed (sendAhead). What is
    // held is never sent in front of the transaction's ROLLBACK, which would undo it: it is dropped.
    if (ROLLBACK_STATEMENT.test(query)) {
      if (WHOLE_ROLLBACK.test(query)) dropHeld(journal);
      await aheadSettled(journal);
    } else if (journal.ahead !== null || journal.aheadFailure !== null) await aheadDone(journal);
    // Only when rows or checks are kept: every statement of every transaction passes here.
    if ((journal.rowWrite || journal.memo.size || journal.rows.size) && !isRead(query)) forgetWritten(journal, query);
    // A read of tables none of the held writes touches cannot see them: it goes alone, and they stay held.
    if (journal.held.length && isRead(query))
      return readsHeld(query, journal.heldTables) ? readAfterHeld(journal, query, parameters, structured) : send(query, parameters, structured);
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

/**
 * What is held, in the order it must be sent — what ended units left, the unit's SAVEPOINT, its
 * writes — taken out of the journal, with runs of inserts merged (mergeInserts).
 */
function takeHeld(journal: TxJournal): Batch[] {
  const batches: Batch[] = [...journal.held];
  if (journal.heldSavepoint !== null) batches.splice(journal.heldSavepointAt, 0, { sql: journal.heldSavepoint, params: [] });
  dropHeld(journal);
  return mergeInserts(batches);
}

/**
 * Raised when writes an ended unit left held (`carry`) failed to be sent: which unit's write failed
 * cannot be told, so the transaction ends (rolled back) and the caller runs it again without
 * carrying, each unit's writes sent at its end (bulk-write.ts).
 */
export class CarriedWritesFailed extends Error {
  constructor(failure: unknown) {
    // The database's error only as text: as a `cause` its code would make it look like the
    // constraint a unit catches and answers (a taken ExternalID), which it is not.
    super(`writes carried across units failed: ${(failure as Error)?.message ?? String(failure)}`);
    this.name = 'CarriedWritesFailed';
  }
}

/** The error of a failed send of held writes, as the unit (or the chunk) must see it; marks the journal. */
function heldFailure(journal: TxJournal, carried: number, e: unknown): unknown {
  journal.heldFailed = true;
  if (carried === 0 || isRetryableConflict(e) || isDatabaseUnavailable(e)) return e;
  journal.carryFailed = true;
  return new CarriedWritesFailed(e);
}

/**
 * Ends a unit of a transaction that carries held writes: they stay held, with no RELEASE (see
 * `savepoint`); once SEND_AHEAD_BATCHES are held, they are sent ahead (`sendAhead`).
 */
function leaveHeld(journal: TxJournal): void {
  journal.heldSavepoint = null;
  journal.carried = journal.held.length;
  if (journal.carried >= SEND_AHEAD_BATCHES && journal.ahead === null && journal.aheadFailure === null) sendAhead(journal);
}

/**
 * How many carried writes (a new person is three: account, person, membership) are sent ahead
 * of the chunk's end, while its next items run (`sendAhead`).
 */
export const SEND_AHEAD_BATCHES = 150;

/** A ROLLBACK of the transaction, or to a savepoint. */
const ROLLBACK_STATEMENT = /^\s*ROLLBACK\b/i;
/** A ROLLBACK of the whole transaction. */
const WHOLE_ROLLBACK = /^\s*ROLLBACK\s*$/i;

/**
 * The journal as it was at a savepoint the transaction went back to: the audit rows and the writes
 * left for the commit recorded since are dropped, and the rows kept as "before" states and the
 * checks kept, which may hold what was rolled back, are read again.
 */
function rewind(journal: TxJournal, marks: { changes: number; atCommit: number }): void {
  journal.changes.length = marks.changes;
  journal.atCommit.length = marks.atCommit;
  journal.rows.clear();
  journal.memo.clear();
}

/** Empties what is held (taken to be sent: takeHeld; or dropped unsent: the transaction is rolled back). */
function dropHeld(journal: TxJournal): void {
  journal.held.length = 0;
  journal.heldTables = new Set();
  journal.heldSavepoint = null;
  journal.carried = 0;
}

/**
 * Sends what ended units left held (`carry`) now, without waiting for the answer: the database
 * writes them while the service runs the chunk's next items (docs/bulk.md, "Round trips"). Only
 * one such send is in flight, and no statement of the transaction is sent while it is (the
 * runner's `query` and `sendHeld` wait for it: `aheadDone`), so the server never runs a statement
 * after writes whose outcome is not known — after a lost deadlock it would run outside the
 * transaction. Their failure is the transaction's: CarriedWritesFailed (the chunk runs again
 * without carrying), or, for a lost deadlock or a database that is gone, the error as it came
 * (the chunk runs again whole, or answers 503), raised by the next statement and at the latest
 * when the chunk ends.
 */
function sendAhead(journal: TxJournal): void {
  const batch = joinBatches(takeHeld(journal));
  if (!batch) return;
  journal.ahead = HELD_SENDERS.get(journal)!(batch.sql, batch.params).then(
    () => {
      journal.ahead = null;
    },
    (e: unknown) => {
      journal.ahead = null;
      if (isRetryableConflict(e) || isDatabaseUnavailable(e)) journal.aheadFailure = e;
      else {
        journal.carryFailed = true;
        journal.aheadFailure = new CarriedWritesFailed(e);
      }
    },
  );
}

/** Waits for writes sent ahead to be answered, whatever they answered. */
async function aheadSettled(journal: TxJournal): Promise<void> {
  while (journal.ahead !== null) await journal.ahead;
}

/** Waits for writes sent ahead to be answered; raises their failure (see `sendAhead`). */
async function aheadDone(journal: TxJournal): Promise<void> {
  await aheadSettled(journal);
  if (journal.aheadFailure !== null) throw journal.aheadFailure;
}

/** `INSERT INTO t (columns) VALUES (?, …)`, as kept-writes.ts makes every held insert. */
const KEPT_INSERT = /^INSERT INTO \S+ \([^()]*\) VALUES (\(\?(?:, \?)*\))$/;
/** `UPDATE t SET c = ?, …, version = version + 1 WHERE site_id = ? AND id = ?`, as kept-writes.ts makes an update of one row by its id. */
const KEPT_UPDATE = /^UPDATE (`\w+`) SET (.+) WHERE `site_id` = \? AND `id` = \?$/;

/**
 * What is held, sent as few statements as it can be (docs/bulk.md, "Round trips"): in each run of
 * kept inserts and kept updates by id — any other statement (a SAVEPOINT, an UPDATE of another
 * shape) stays where it is and bounds the runs —
 * - the inserts of one text are one multi-row INSERT, in the place of the first of them;
 * - the updates of one text, each of another row, are one UPDATE that sets each row's own values
 *   (`c = CASE id WHEN ? THEN ? … END`, `WHERE site_id = ? AND id IN (…)`), in the place of the
 *   last of them; a table with a row updated twice in the run keeps its updates as they were.
 * Rows of one table keep their order, and a row's insert still goes before its update. Writes of
 * different tables, or different rows, may change places: held writes do not depend on each other
 * that way, and if a moved write fails all the same (a unique key one write frees and another
 * takes), the units run again with each write sent alone (`savepoint`), so merging never changes
 * an answer, only the statements and round trips.
 */
export function mergeInserts(batches: readonly Batch[]): Batch[] {
  const out: Batch[] = [];
  let run: Batch[] = [];
  const close = () => {
    out.push(...(run.length > 1 ? mergeRun(run) : run));
    run = [];
  };
  for (const b of batches) {
    if (KEPT_INSERT.test(b.sql) || KEPT_UPDATE.test(b.sql)) run.push(b);
    else {
      close();
      out.push(b);
    }
  }
  close();
  return out;
}

/** One run of kept writes, merged (see `mergeInserts`). */
function mergeRun(run: readonly Batch[]): Batch[] {
  const updates = run.map((b) => KEPT_UPDATE.exec(b.sql));
  // The tables with a row updated twice, updates of more than one site, or a SET list with a value
  // that is not a placeholder of its own (`c = ?`): their updates stay apart.
  const apart = new Set<string>();
  const updated = new Map<string, { ids: Set<string>; site: unknown }>();
  run.forEach((b, i) => {
    const update = updates[i];
    if (!update) return;
    const table = update[1];
    const values = b.params.length - 2;
    if (update[2].split(/, (?=`)/).filter((a) => a.endsWith(' = ?')).length !== values || (update[2].match(/\?/g) ?? []).length !== values) {
      apart.add(table);
      return;
    }
    const id = String(b.params[values + 1]);
    const site = b.params[values];
    const seen = updated.get(table);
    if (!seen) updated.set(table, { ids: new Set([id]), site });
    else if (seen.ids.has(id) || seen.site !== site) apart.add(table);
    else seen.ids.add(id);
  });
  const groups = new Map<string, Batch[]>();
  const last = new Map<string, number>();
  run.forEach((b, i) => {
    const table = updates[i]?.[1];
    if (table && apart.has(table)) return;
    const group = groups.get(b.sql);
    if (group) group.push(b);
    else groups.set(b.sql, [b]);
    last.set(b.sql, i);
  });
  const out: Batch[] = [];
  run.forEach((b, i) => {
    const update = updates[i];
    const group = groups.get(b.sql);
    if (!group) out.push(b);
    else if (!update && group[0] === b) out.push(group.length === 1 ? b : mergedInsert(b.sql, group));
    else if (update && last.get(b.sql) === i) out.push(group.length === 1 ? b : mergedUpdate(update, group));
  });
  return out;
}

function mergedInsert(sql: string, group: readonly Batch[]): Batch {
  const tuple = KEPT_INSERT.exec(sql)![1];
  return { sql: sql + `, ${tuple}`.repeat(group.length - 1), params: paramsOf(group) };
}

/** Updates of one text, each of its own row (ids last in their parameters, the site before them), as one statement. */
function mergedUpdate(update: RegExpExecArray, group: readonly Batch[]): Batch {
  const [, table, setList] = update;
  const assignments = setList.split(/, (?=`)/);
  const n = group.length;
  const params: unknown[] = [];
  let k = 0;
  const set = assignments.map((assignment) => {
    if (!assignment.endsWith(' = ?')) return assignment;
    const j = k++;
    // A value every row gets (who changed them, a field set alike) is sent once.
    const first = group[0].params[j];
    if (group.every((b) => sameValue(b.params[j], first))) {
      params.push(first);
      return assignment;
    }
    for (const b of group) params.push(b.params[b.params.length - 1], b.params[j]);
    return `${assignment.slice(0, -4)} = CASE \`id\` ${'WHEN ? THEN ? '.repeat(n)}END`;
  });
  params.push(group[0].params[group[0].params.length - 2], ...group.map((b) => b.params[b.params.length - 1]));
  return { sql: `UPDATE ${table} SET ${set.join(', ')} WHERE \`site_id\` = ? AND \`id\` IN (${placeholdersOf(n)})`, params };
}

const placeholdersOf = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/**
 * Holds a write back (TenantDb.hold): kept in `held` with the tables it writes, and the checks'
 * answers kept for those tables dropped.
 */
export function holdWrite(journal: TxJournal, sql: string, params: unknown[]): void {
  const written = tablesOf(sql, true);
  forget(journal, written, rowWritten(journal, sql));
  if (!written) journal.heldTables = null;
  else if (journal.heldTables) for (const t of written) journal.heldTables.add(t);
  journal.held.push({ sql, params });
}

/**
 * Drops what the transaction kept of the tables a statement writes — the checks' answers, the rows
 * kept as locked — all of them when it cannot be told which. A SAVEPOINT or its RELEASE writes
 * nothing; a statement followed by others in one text is not told apart, so it drops everything.
 */
function forgetWritten(journal: TxJournal, sql: string): void {
  const row = rowWritten(journal, sql);
  if (NEUTRAL.test(sql)) return;
  forget(journal, MORE_THAN_ONE.test(sql) ? null : tablesOf(sql, true), row);
}

const NEUTRAL = /^\s*(?:SAVEPOINT|RELEASE\s+SAVEPOINT)\s+\w+\s*$/i;
const MORE_THAN_ONE = /;\s*\S/;

/** The write of one row by its id that `sql` is, when the repository announced it for it (TenantDb.writingRow). */
function rowWritten(journal: TxJournal, sql: string): RowWrite | undefined {
  const announced = journal.rowWrite;
  journal.rowWrite = null;
  return announced && announced.sql === sql ? announced : undefined;
}

/**
 * Drops what is kept of the `written` tables (everything when null). A write of one row by its id
 * (`row`) drops only that row, and the checks it may change (the rule is KeptChecks.forget's), so
 * what a bulk chunk read ahead stays kept while its items write their records one by one.
 */
function forget(journal: TxJournal, written: string[] | null, row?: RowWrite): void {
  if (!written) {
    journal.memo.clear();
    journal.rows.clear();
    return;
  }
  if (journal.memo.size) journal.memo.forget(written, row);
  if (journal.rows.size)
    for (const table of written) {
      if (row) journal.rows.delete(`${table}:${row.id}`);
      else for (const key of journal.rows.keys()) if (key.startsWith(`${table}:`)) journal.rows.delete(key);
    }
}

/** The tables a statement names after FROM or JOIN (a read), or as the table it writes (INSERT INTO, UPDATE, DELETE FROM). */
function tablesOf(sql: string, write: boolean): string[] | null {
  const found: string[] = [];
  const re = write ? /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+`?(\w+)`?/i : /\b(?:FROM|JOIN)\s+`?(\w+)`?/gi;
  for (let m = re.exec(sql); m; m = re.global ? re.exec(sql) : null) found.push(m[1].toLowerCase());
  return found.length ? found : null;
}

/**
 * Whether a read may see what is held: it names a table a held write writes, or either cannot be
 * told (then it may, and the held writes go first).
 */
function readsHeld(read: string, heldTables: ReadonlySet<string> | null): boolean {
  const reads = tablesOf(read, false);
  return !reads || !heldTables || reads.some((t) => heldTables.has(t));
}

/**
 * Sends what the unit holds — its SAVEPOINT, its writes — and `trailing` (a statement whose answer
 * nobody reads) in one round trip; nothing when there is nothing to send.
 */
async function sendHeld(journal: TxJournal, trailing?: string): Promise<void> {
  await aheadDone(journal);
  const carried = journal.carried;
  const batches = takeHeld(journal);
  if (trailing) batches.push({ sql: trailing, params: [] });
  const batch = joinBatches(batches);
  if (!batch) return;
  try {
    await HELD_SENDERS.get(journal)!(batch.sql, batch.params);
  } catch (e) {
    throw heldFailure(journal, carried, e);
  }
}

/**
 * A read that needs the held writes before it: they and the read in one round trip, the read's
 * rows answered as the runner answers a read alone (its last result). A failure of any of them
 * marks the journal, as sendHeld does: the unit runs again with each statement sent alone.
 */
async function readAfterHeld(journal: TxJournal, query: string, parameters: unknown[] | undefined, structured: boolean | undefined): Promise<unknown> {
  await aheadDone(journal);
  const carried = journal.carried;
  const batches = takeHeld(journal);
  batches.push({ sql: query, params: parameters ?? [] });
  const batch = joinBatches(batches)!;
  let results: unknown;
  try {
    results = await HELD_SENDERS.get(journal)!(batch.sql, batch.params);
  } catch (e) {
    throw heldFailure(journal, carried, e);
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
