import type { EntityManager, EntityMetadata, EntityTarget, FindOptionsWhere, ObjectLiteral } from 'typeorm';
import type { RequestContext } from '../common/context/request-context.js';
import { ConflictError } from '../common/errors/errors.js';
import { actionOf, diffRow, kindOf, type Batch, type RowChange } from './journal.js';
import type { Answers } from '../http/wire/record-memo.js';
import type { KeptChecks, RowWrite } from './kept-checks.js';
import type { Statement } from './statements.js';

/**
 * What the scoped data path's parts share (docs/architecture.md, "How a write runs"): the
 * transaction a request context runs in and its journal, the columns input never writes, and
 * RowStore — what a repository asks of TenantDb, so the repositories (scoped-reads.ts,
 * scoped-repository.ts, journaled-rows.ts) and the transactions (transactions.ts) stand in files of
 * their own without importing TenantDb.
 */
export type Where<T> = FindOptionsWhere<T> | FindOptionsWhere<T>[];
export type Patch = Record<string, unknown>;

/**
 * Columns input can never write: identity, tenancy, audit and the row version are the service's, and
 * an individual's newest comment is kept by the comment writes (refreshLastComments).
 */
export const PROTECTED = new Set(['id', 'siteId', 'created', 'createdBy', 'updated', 'updatedBy', 'version', 'lastCommentId']);

/** How often a transaction that lost a deadlock or waited too long for a lock is run again. */
export const TRANSACTION_ATTEMPTS = 3;

/** A supplied id that is taken: one answer wherever it is used (docs/http-and-xml.md, "Success, errors, writes"). */
export const idTaken = (id: unknown) => new ConflictError(`The ID ${String(id)} is already in use; send another ID, or none to have one generated`, 'id-taken');

/**
 * The transaction a request context is running in. A context is bound to the manager of its
 * transaction for exactly as long as `TenantDb.transaction` runs, so every read and write made
 * with that context — also by helpers that only received `ctx` — happens inside the transaction.
 * This is not ambient tenant state: the key is the explicit context object itself.
 */
export const BOUND = new WeakMap<RequestContext, EntityManager>();

/**
 * The journal of the transaction a context runs in (src/database/journal.ts): the rows changed so
 * far, written as audit rows before commit, and the rows the transaction has locked or written, as
 * they stand now (the "before" of its next change of them, without reading them again).
 */
export interface TxJournal {
  changes: RowChange[];
  rows: Map<string, Record<string, unknown>>;
  /** Writes whose outcome the transaction does not read, sent when it ends (TenantDb.sqlAtCommit, keptAtCommit). */
  atCommit: Batch[];
  /**
   * Writes held back inside a unit that holds them (TenantDb.savepoint with `holdWrites`):
   * sent together in front of the transaction's next statement, or with the unit's end
   * (docs/bulk.md, "Round trips"). Empty outside such a unit.
   */
  held: Batch[];
  /** The tables the held writes write (null: one of them names none that can be told), for the reads that may go before them. */
  heldTables: Set<string> | null;
  /**
   * The SAVEPOINT of a unit that holds its writes, not sent yet: a read may go before it (it
   * changes nothing to roll back), so it is sent with the unit's first write or held inserts, in
   * front of the unit's own held writes (at `heldSavepointAt` in `held`: after what earlier units
   * left there, when they carry).
   */
  heldSavepoint: string | null;
  heldSavepointAt: number;
  /**
   * Whether units that hold their writes leave them held when they end (TenantDb.transactionCarrying:
   * a bulk chunk in a transaction of its own), so that the chunk's items' inserts go together, as
   * multi-row INSERTs, when a statement needs them or the chunk ends (docs/bulk.md, "Round trips").
   */
  carry: boolean;
  /** How many of `held` (from the start) ended units left there (`carry`). */
  carried: number;
  /** Set when sending carried writes failed: the transaction must end (CarriedWritesFailed), whatever caught it. */
  carryFailed: boolean;
  /**
   * Carried writes sent ahead (`sendAhead`, transactions.ts) and not answered yet: the service goes
   * on with the next items while the database writes them; the transaction's next statement waits
   * for them first. Null when none is in flight.
   */
  ahead: Promise<void> | null;
  /** The failure of writes sent ahead, raised by the transaction's next statement (null: none). */
  aheadFailure: unknown;
  /**
   * Checks' answers kept for the rest of the transaction (TenantDb.remembered), by table and key,
   * indexed by what a write of one row may change (KeptChecks); a write to a table drops the
   * entries it may have changed (MySQL/MariaDB only: every statement passes sendHeldFirst).
   */
  memo: KeptChecks;
  /**
   * Whether every statement of the transaction passes its journal (MySQL/MariaDB: sendHeldFirst),
   * so `rows` and `memo` are dropped as writes happen and a row kept in `rows` is the row as the
   * transaction sees it now, locked by it: `lock` may answer it without a round trip.
   */
  tracked: boolean;
  /**
   * The write of one row by its id that the repository is about to send or hold (TenantDb.writingRow):
   * that write drops only what was kept of that row, not of its whole table.
   */
  rowWrite: RowWrite | null;
  /** Whether a unit holds its writes now (the depth of the unit that does, 0: none). */
  holding: number;
  /** Set when sending held writes failed: the unit that held them runs again with each write sent at once. */
  heldFailed: boolean;
}
export const JOURNALS = new WeakMap<RequestContext, TxJournal>();

/**
 * The InvalidationBus topic of committed changes (docs/events.md, "Delivery"): published after
 * every commit that recorded changes, keyed by site, so the webhook dispatcher of this process
 * wakes at once and, with REDIS_URL set, those of the other replicas within milliseconds.
 */
export const CHANGES_TOPIC = 'changes';

/**
 * Adds one changed row to the journal of the context's transaction (src/database/journal.ts):
 * recorded in the trail of `siteId` (the context's site unless said). Answers the journal, or
 * null outside a transaction (nothing is recorded).
 */
export function journalChange(
  ctx: RequestContext,
  meta: EntityMetadata,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  siteId?: string,
): TxJournal | null {
  const tx = JOURNALS.get(ctx);
  if (!tx) return null;
  const row = (after ?? before)!;
  const fields = diffRow(meta, before, after);
  const action = !before ? 'create' : !after ? 'delete' : actionOf(fields);
  tx.changes.push({ kind: kindOf(meta), rowId: String(row.id), action, gone: !after, fields, ...(siteId ? { siteId } : {}) });
  return tx;
}

/** Told after a commit that recorded changes, here or on another replica: its site, or undefined when any site may have changed (missed messages). */
export type CommitListener = (siteId: string | undefined) => void;

/** Runs named statements (statements.ts) and answers their rows (see `TenantDb.reader`). */
export interface RowReader {
  rows<R>(statement: Statement<R>, params: readonly unknown[]): Promise<R[]>;
}

/** A RowReader that also runs the kept statements of simple finds (kept-sql.ts), by their texts. */
export interface KeptReader extends RowReader {
  read<T>(sql: string, params: readonly unknown[], prepare?: boolean): Promise<T[]>;
}

/** The reader of a transaction: its connection, so a read after a write in it sees that write. */
export class TxReader implements KeptReader {
  constructor(private readonly manager: EntityManager) {}

  rows<R>(statement: Statement<R>, params: readonly unknown[]): Promise<R[]> {
    return this.manager.query(statement.text, [...params]) as Promise<R[]>;
  }

  read<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    return this.manager.query(sql, [...params]) as Promise<T[]>;
  }
}

/** What the repositories ask of TenantDb (it implements this). */
export interface RowStore {
  readonly isSqlite: boolean;
  managerOf(ctx: RequestContext): EntityManager;
  metadataOf(entity: EntityTarget<ObjectLiteral>): EntityMetadata;
  keptReader(ctx: RequestContext): KeptReader;
  escape(identifier: string): string;
  generatedKeys(metadata: EntityMetadata, raw: unknown): ObjectLiteral | undefined;
  assertInTransaction(ctx: RequestContext, what: string): void;
  keptAtCommit(ctx: RequestContext, sql: string, params: unknown[]): void;
  /** Whether a write may be held back now (see TxJournal.held); `hold` then keeps it. */
  holdsWrites(ctx: RequestContext): boolean;
  hold(ctx: RequestContext, sql: string, params: unknown[]): void;
  writingRow(ctx: RequestContext, text: string, metadata: EntityMetadata, id: string | number, set?: Record<string, unknown>): void;
  answersFrom<A extends object>(ctx: RequestContext, target: EntityTarget<ObjectLiteral>, resource: object): Answers<A>;
  transaction<R>(ctx: RequestContext, fn: () => Promise<R>): Promise<R>;
}
