import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntityMetadata, EntityTarget, ObjectLiteral, Repository } from 'typeorm';
import type { RequestContext } from '../common/context/request-context.js';
import { pingDatabase } from './ping.js';
import { affectedOf, RawReader } from './raw-reader.js';
import { hydrateRows } from './hydrate.js';
import { type Answers, BUILD_ONLY, MemoStore, RecordMemo, type MemoKind } from '../http/wire/record-memo.js';
import { APP_CONFIG, DEFAULT_LIST_TOTAL_CACHE_MS, DEFAULT_RECORD_MEMO, type AppConfig } from '../config/config.js';
import { ListTotals } from './caches/list-totals.js';
import type { TenantEntity } from './entities/base.entity.js';
import { InvalidationBus } from '../common/invalidation/invalidation-bus.js';
import type { MemoEntry } from './kept-checks.js';
import { BOUND, CHANGES_TOPIC, type CommitListener, JOURNALS, type KeptReader, type RowReader, type RowStore, TxReader } from './row-store.js';
import { sql, type Statement } from './statements.js';
import { byIdStatements } from './scoped-reads.js';
import { ScopedRepository } from './scoped-repository.js';
import { type GlobalReads, JournaledRows } from './journaled-rows.js';
import { holdWrite, Transactions } from './transactions.js';

// The parts of the scoped data path, for the modules that import them from here.
export { CHANGES_TOPIC, idTaken, TRANSACTION_ATTEMPTS, type CommitListener, type RowReader } from './row-store.js';
export type { Statement } from './statements.js';

/**
 * The statements of a housekeeping transaction (TenantDb.housekeeping): named statements only
 * (statements.ts), on the transaction's connection.
 */
export interface Housekeeper {
  rows<R>(statement: Statement<R>, params: readonly unknown[]): Promise<R[]>;
  /** Runs a write; answers the rows it changed. */
  write(statement: Statement<unknown>, params: readonly unknown[]): Promise<number>;
}

class ManagerHousekeeper implements Housekeeper {
  constructor(private readonly manager: EntityManager) {}

  rows<R>(statement: Statement<R>, params: readonly unknown[]): Promise<R[]> {
    return this.manager.query(statement.text, [...params]) as Promise<R[]>;
  }

  async write(statement: Statement<unknown>, params: readonly unknown[]): Promise<number> {
    // The structured answer carries the changed-row count on both drivers.
    return affectedOf(await this.manager.queryRunner!.query(statement.text, [...params], true));
  }
}

/**
 * Locks the context's site row (TenantDb.lockSite): a write, not SELECT … FOR UPDATE, since on
 * Galera only a written row is certified on every node (migration 1732000001800), so the lock holds
 * across nodes; on one server it locks the same.
 */
const LOCK_SITE = sql('sites.lock', 'UPDATE sites SET lock_seq = lock_seq + 1 WHERE id = ?');
export type { Anchor, ListUnder } from './scoped-reads.js';
export { ScopedRepository } from './scoped-repository.js';
export { JournaledRows, type GlobalReads } from './journaled-rows.js';

/** The transaction-bound view handed to `TenantDb.transaction` callbacks. */
export interface TenantTx {
  /** The context, bound to this transaction while the callback runs. */
  ctx: RequestContext;
  repo<T extends TenantEntity & ObjectLiteral>(entity: EntityTarget<T>, label?: string): ScopedRepository<T>;
  /** A global table (sites, login accounts) in this transaction, to read; see `TenantDb.global` (writes: `TenantDb.journaled`). */
  global<T extends ObjectLiteral>(entity: EntityTarget<T>): GlobalReads<T>;
  /** The database, for the query functions (`src/database/queries/`, the features' statements files): called with `ctx`, they run in this transaction. */
  db: TenantDb;
}

/**
 * The single entry point to the database for modules (docs/architecture.md). Tenant tables are
 * reached through `repo(ctx, Entity)`, which scopes every statement to the context's site; the
 * global tables (sites, login accounts) through `global(ctx, Entity)`; SQL written by hand only as
 * named statements (statements.ts), run by the query functions of `src/database/queries/` and of
 * the features' `*.statements.ts` files. Modules never see a DataSource or EntityManager.
 */
@Injectable()
export class TenantDb implements RowStore {
  readonly isSqlite: boolean;
  private readonly transactions: Transactions;

  /**
   * The totals of lists (X-Total-Count) of this database, reused for LIST_TOTAL_CACHE_MS unless a
   * transaction of the site committed since (src/database/caches/list-totals.ts).
   */
  readonly totals: ListTotals;

  /** Carries "a site's changes committed" to this process's listeners and the other replicas'. */
  private readonly bus: InvalidationBus;

  /** The record memos of this database, by kind (see `memo`). */
  private readonly memos = new Map<MemoKind, RecordMemo<object>>();
  /** What every memo keeps, under one bound (RECORD_MEMO, read on every insert). */
  private readonly memoStore = new MemoStore(() => this.config?.recordMemo ?? DEFAULT_RECORD_MEMO);

  /** The memo kinds of the answers a resource builds from an entity's rows (see `answerMemo`), by resource and entity. */
  private readonly answerKinds = new WeakMap<object, Map<EntityTarget<ObjectLiteral>, MemoKind>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Optional() @Inject(APP_CONFIG) private readonly config?: AppConfig,
    @Optional() bus?: InvalidationBus,
  ) {
    this.isSqlite = dataSource.options.type === 'better-sqlite3';
    this.bus = bus ?? new InvalidationBus();
    this.totals = new ListTotals(() => this.config?.listTotalCacheMs ?? DEFAULT_LIST_TOTAL_CACHE_MS, Date.now, this.bus);
    this.transactions = new Transactions(dataSource, this.isSqlite, (ctx, sites) => {
      // Committed: totals of the site's lists counted before now are not reused (list-totals.ts).
      if (ctx.siteId) this.totals.written(ctx.siteId);
      for (const site of sites) this.bus.publish(CHANGES_TOPIC, site);
    });
  }

  /**
   * The site-scoped repository of one entity, for whichever context a service method is given:
   * `private readonly goals = this.db.scoped(GoalEntity, 'Goal')`, then `this.goals(ctx)`.
   */
  scoped<T extends TenantEntity & ObjectLiteral>(entity: EntityTarget<T>, label?: string): (ctx: RequestContext) => ScopedRepository<T> {
    return (ctx) => this.repo(ctx, entity, label);
  }

  repo<T extends TenantEntity & ObjectLiteral>(ctx: RequestContext, entity: EntityTarget<T>, label?: string): ScopedRepository<T> {
    const name = typeof entity === 'function' ? entity.name : String(entity);
    return new ScopedRepository<T>(this, ctx, entity, label ?? labelOf(name));
  }

  /**
   * A repository of a table that is not scoped to one site (sites, login accounts), bound to the
   * context's transaction when one runs. Callers are responsible for the site checks these tables
   * need (see docs/architecture.md).
   */
  global<T extends ObjectLiteral>(ctx: RequestContext | null, entity: EntityTarget<T>): GlobalReads<T> {
    return (ctx ? this.managerOf(ctx) : this.dataSource.manager).getRepository(entity);
  }

  /**
   * A record of a global table (a site, a login account) by id: one kept statement, as a tenant
   * record's by-id read (docs/performance.md), in the context's transaction when it runs in one.
   */
  async globalById<T extends ObjectLiteral>(ctx: RequestContext | null, entity: EntityTarget<T>, id: string): Promise<T | null> {
    const metadata = this.metadataOf(entity);
    const rows = await (ctx ? this.keptReader(ctx) : RawReader.of(this.dataSource)).read<Record<string, unknown>>(byIdStatements(metadata).global, [id]);
    return rows.length === 0 ? null : hydrateRows<T>(metadata, rows, 'all')[0];
  }

  /**
   * A table of the service's own bookkeeping that holds no records (idempotency keys): read and
   * written as is, never in the audit trail. For src/database only.
   */
  serviceTable<T extends ObjectLiteral>(ctx: RequestContext | null, entity: EntityTarget<T>): Repository<T> {
    return (ctx ? this.managerOf(ctx) : this.dataSource.manager).getRepository(entity);
  }

  /**
   * The writes of a global table, recorded in the audit trail (JournaledRows): login accounts go to
   * their home site's trail, sites to their own.
   */
  journaled<T extends ObjectLiteral & { id: string }>(ctx: RequestContext, entity: EntityTarget<T>, siteOf: (row: T) => string): JournaledRows<T> {
    return new JournaledRows(this, ctx, entity, siteOf);
  }

  /**
   * Calls `listener` after every commit that recorded changes in this process (at once, in the
   * committing flow) and, through the InvalidationBus, in the other replicas (docs/events.md,
   * "Delivery"). Answers an unsubscribe.
   */
  onCommit(listener: CommitListener): () => void {
    return this.bus.on(CHANGES_TOPIC, listener);
  }

  /** The metadata of an entity, looked up once (TypeORM searches its list of entities on every call). */
  metadataOf(entity: EntityTarget<ObjectLiteral>): EntityMetadata {
    let metadata = this.metadata.get(entity);
    if (!metadata) this.metadata.set(entity, (metadata = this.dataSource.getMetadata(entity)));
    return metadata;
  }

  private readonly metadata = new Map<EntityTarget<ObjectLiteral>, EntityMetadata>();

  /** The manager the context reads and writes with: its transaction's, or the pool's. */
  managerOf(ctx: RequestContext): EntityManager {
    return BOUND.get(ctx) ?? this.dataSource.manager;
  }

  inTransaction(ctx: RequestContext): boolean {
    return BOUND.has(ctx);
  }

  assertInTransaction(ctx: RequestContext, what: string): void {
    if (!BOUND.has(ctx)) throw new Error(`${what}() must run inside TenantDb.transaction`);
  }

  escape(identifier: string): string {
    return this.dataSource.driver.escape(identifier);
  }

  /**
   * A named statement (statements.ts) on the context's connection (its transaction when one
   * runs). Only the query functions of `src/database/queries/` and the features' statements files
   * call it, and every statement they declare filters by the `ctx.siteId` they are given (a test
   * holds the boundary).
   */
  sql<R>(ctx: RequestContext, statement: Statement<R>, params: unknown[]): Promise<R[]> {
    // A write may change rows the transaction keeps as "before" states: read them again.
    if (!statement.select) JOURNALS.get(ctx)?.rows.clear();
    return this.managerOf(ctx).query(statement.text, params) as Promise<R[]>;
  }

  /**
   * A write sent when the transaction ends, before its trail, rather than now: on MySQL/MariaDB
   * in the COMMIT's own round trip (docs/performance.md, "Writes: fewer round trips"). For a
   * statement whose outcome nothing later in the transaction reads, on rows the transaction has
   * locked already (so it waits for nobody); a failure fails the commit, and the transaction rolls
   * back as if the statement had failed where it was asked for. Called as `sql` is.
   */
  sqlAtCommit(ctx: RequestContext, statement: Statement<unknown>, params: unknown[]): void {
    this.keptAtCommit(ctx, statement.text, params);
  }

  /** sqlAtCommit for a kept insert (kept-writes.ts), whose text is built from the entity. */
  keptAtCommit(ctx: RequestContext, text: string, params: unknown[]): void {
    const journal = JOURNALS.get(ctx);
    if (!journal) throw new Error('sqlAtCommit() must run inside TenantDb.transaction');
    journal.rows.clear();
    journal.atCommit.push({ sql: text, params });
  }

  /**
   * Announces that the next statement sent or held, `text`, writes the one row `id` of `metadata`'s
   * table — an UPDATE by id of the columns `set` names, or (no `set`) an INSERT of a row with that id: it then drops only what the transaction
   * kept of that row, not of the whole table (transactions.ts, `forget`). Only the repository calls it.
   */
  writingRow(ctx: RequestContext, text: string, metadata: EntityMetadata, id: string | number, set?: Record<string, unknown>): void {
    const journal = JOURNALS.get(ctx);
    if (!journal?.tracked) return;
    const columns = set ? Object.keys(set).map((k) => metadata.findColumnWithPropertyName(k)?.databaseName ?? k) : [];
    journal.rowWrite = { sql: text, table: metadata.tableName.toLowerCase(), id: String(id), insert: !set, columns };
  }

  /** Whether a write made now may be held back: inside a unit that holds its writes (`savepoint` with `holdWrites`). */
  holdsWrites(ctx: RequestContext): boolean {
    return (JOURNALS.get(ctx)?.holding ?? 0) > 0;
  }

  /**
   * Holds a kept write back (see `savepoint`): it is sent with the held others in front of the
   * transaction's next statement that needs it, or at the end of the unit. Only while `holdsWrites`.
   */
  hold(ctx: RequestContext, text: string, params: unknown[]): void {
    const journal = JOURNALS.get(ctx);
    if (!journal?.holding) throw new Error('hold() must run inside a unit that holds its writes');
    holdWrite(journal, text, params);
  }

  /**
   * A check's answer (`load`: a read of `entity`'s table) kept for the rest of the context's
   * transaction under `key`, so the items of a bulk chunk that name one organization read it once,
   * and in front of their carried inserts no read goes (docs/bulk.md, "Round trips"). Any write of
   * the table in the transaction drops it. Outside a transaction, and on SQLite (in the process,
   * nothing to save), `load` runs every time.
   *
   * What the answer depends on, so a write of another row by its id leaves it kept
   * (transactions.ts, `forget`):
   * - `row`: that one row of the table (an account read by its id);
   * - `rows`: the rows whose column `by` has one value (a person's memberships), `ids` giving the
   *   ids of the rows answered.
   */
  remembered<R>(
    ctx: RequestContext,
    entity: EntityTarget<ObjectLiteral>,
    key: string,
    load: () => Promise<R>,
    opts: { row?: string; rows?: { by: string; ids: (answer: R) => readonly (string | number)[] } } = {},
  ): Promise<R> {
    const journal = JOURNALS.get(ctx);
    if (!journal || this.isSqlite) return load();
    const table = this.metadataOf(entity).tableName.toLowerCase();
    const id = `${table}\u0000${key}`;
    const kept = journal.memo.get(id);
    if (kept) return kept.value as Promise<R>;
    const value = load();
    const entry: MemoEntry = { table, value };
    if (opts.row !== undefined) entry.row = opts.row;
    if (opts.rows) {
      entry.rows = { by: opts.rows.by, ids: null };
      const ids = opts.rows.ids;
      value.then(
        (answer) => journal.memo.known(id, entry, new Set(ids(answer).map(String))),
        () => undefined,
      );
    }
    journal.memo.set(id, entry);
    value.catch(() => {
      if (journal.memo.get(id)?.value === value) journal.memo.delete(id);
    });
    return value;
  }

  /**
   * The hot-read path of the query functions (docs/performance.md): outside a transaction a
   * prepared statement on the driver's own pool (per connection, for a fixed statement); inside
   * one, the transaction's connection, so a read after a write in the same transaction sees that
   * write.
   */
  reader(ctx: RequestContext): RowReader {
    return this.keptReader(ctx);
  }

  /** The reader of the kept statements of simple finds (scoped-reads.ts): `reader`, also taking their texts. */
  keptReader(ctx: RequestContext): KeptReader {
    const manager = BOUND.get(ctx);
    return manager ? new TxReader(manager) : RawReader.of(this.dataSource);
  }

  /**
   * A background job's look for work in the service's own tables across sites (the webhook
   * dispatcher's and the dashboard summaries' polls): one read on the pool, outside any
   * transaction, so a poll that finds nothing costs one round trip, not three. What it finds is
   * only a candidate: the claim that follows checks it again in its own transaction. Only the
   * statements files call it.
   */
  pollRead<R>(statement: Statement<R>, params: readonly unknown[]): Promise<R[]> {
    return RawReader.of(this.dataSource).rows<R>(statement, params);
  }

  /**
   * One write statement of the service's own bookkeeping (a lease taken or given back, a cursor
   * moved) that needs no transaction around it: on MySQL/MariaDB one autocommitted statement on the
   * pool (one round trip instead of three); on SQLite it waits its turn with the transactions, as
   * `housekeeping` does. Answers the rows it changed. Only the statements files call it.
   */
  async housekeepingWrite(statement: Statement<unknown>, params: readonly unknown[]): Promise<number> {
    if (this.isSqlite) return this.housekeeping((h) => h.write(statement, params));
    return affectedOf(await this.dataSource.query(statement.text, [...params]));
  }

  /**
   * The total of a list of the context's site named `key` (list and filters): reused for
   * LIST_TOTAL_CACHE_MS unless the site was written since (src/database/caches/list-totals.ts); inside a
   * transaction always counted, so it sees that transaction's own writes.
   */
  listTotal(ctx: RequestContext, key: string, count: () => Promise<number>): Promise<number> {
    return BOUND.has(ctx) ? count() : this.totals.of(ctx.siteId, key, count);
  }

  /**
   * A small value read from the rows of the context's site (its periods), kept and reused like a
   * list's total (src/database/caches/list-totals.ts): for LIST_TOTAL_CACHE_MS unless the site was written
   * since, here or, through the InvalidationBus, on another replica; inside a transaction always
   * read. `key` names what is read; the value is shared by every caller, who must not change it.
   */
  siteValue<V>(ctx: RequestContext, key: string, load: () => Promise<V>): Promise<V> {
    return BOUND.has(ctx) ? load() : this.totals.of(ctx.siteId, `value:${key}`, load);
  }

  /**
   * The memo of answers built from rows of one kind (src/http/wire/record-memo.ts); one per kind
   * and database, all of them bounded together by RECORD_MEMO (read on every insert, so a test
   * may change it).
   */
  memo<T extends object>(kind: MemoKind): RecordMemo<T> {
    let memo = this.memos.get(kind);
    if (!memo) this.memos.set(kind, (memo = new RecordMemo<object>(kind, this.memoStore)));
    return memo as RecordMemo<T>;
  }

  /**
   * What a read of `ctx` builds answers of `kind` with: the kind's memo, or for a request that
   * reads each record once (RequestContext.readsOnce: a streamed export) BUILD_ONLY, which keeps nothing.
   */
  answersOf<T extends object>(ctx: RequestContext, kind: MemoKind): Answers<T> {
    return ctx.readsOnce ? (BUILD_ONLY as Answers<T>) : this.memo<T>(kind);
  }

  /** answersOf for the answers `resource` builds from rows of `target` (ScopedRepository.answers). */
  answersFrom<A extends object>(ctx: RequestContext, target: EntityTarget<ObjectLiteral>, resource: object): Answers<A> {
    return this.answersOf<A>(ctx, this.answerKind(target, resource));
  }

  /** The record memo of the answers `resource` builds from rows of `target` (answerKind). */
  answerMemo<A extends object>(target: EntityTarget<ObjectLiteral>, resource: object): RecordMemo<A> {
    return this.memo<A>(this.answerKind(target, resource));
  }

  /**
   * The memo kind of the answers `resource` builds from rows of `target`
   * (ScopedRepository.answers): every selected column of the entity is compared.
   */
  private answerKind(target: EntityTarget<ObjectLiteral>, resource: object): MemoKind {
    let kinds = this.answerKinds.get(resource);
    if (!kinds) this.answerKinds.set(resource, (kinds = new Map()));
    let kind = kinds.get(target);
    if (!kind) {
      const columns = this.metadataOf(target)
        .columns.filter((c) => c.isSelect !== false)
        .map((c) => c.propertyName);
      kinds.set(target, (kind = { columns }));
    }
    return kind;
  }

  /** The tables of tenant entities that have a column named `databaseName` (e.g. `period_id`). */
  tenantTablesWithColumn(databaseName: string): { target: EntityTarget<TenantEntity & ObjectLiteral>; property: string; table: string }[] {
    const out: { target: EntityTarget<TenantEntity & ObjectLiteral>; property: string; table: string }[] = [];
    for (const meta of this.dataSource.entityMetadatas) {
      const col = meta.columns.find((c) => c.databaseName === databaseName);
      if (!col || !meta.columns.some((c) => c.databaseName === 'site_id')) continue;
      out.push({ target: meta.target as EntityTarget<TenantEntity & ObjectLiteral>, property: col.propertyName, table: meta.tableName });
    }
    return out;
  }

  /** Whether the database answers `SELECT 1` within `ms` (readiness; docs/operations.md). */
  ping(ms?: number): Promise<boolean> {
    return pingDatabase(this.dataSource, ms);
  }

  /**
   * Runs `fn` in one transaction: all of its writes land, or none does (transactions.ts). The
   * context is bound to the transaction while `fn` runs, so anything called with `ctx` takes part
   * in it; a nested call with the same context joins the outer transaction.
   */
  transaction<R>(ctx: RequestContext, fn: (tx: TenantTx) => Promise<R>): Promise<R> {
    return this.transactions.run(ctx, () => fn(this.view(ctx)));
  }

  /**
   * Runs `fn` as one unit inside the context's transaction (a savepoint: its writes and audit rows
   * are rolled back alone when it throws), or in a transaction of its own when none runs
   * (transactions.ts). What a bulk write runs each item in (docs/bulk.md). `holdWrites`: on
   * MySQL/MariaDB the unit's SAVEPOINT, its inserts of rows whose id is not the database's to make
   * and its updates of rows it locked (without If-Match) are held back and sent together (in front
   * of its next statement that needs them, or with its end) — one round trip for several — and
   * when sending them fails the unit runs again with each write sent at once, so it answers as it
   * would have.
   */
  savepoint<R>(ctx: RequestContext, fn: () => Promise<R>, opts: { holdWrites?: boolean } = {}): Promise<R> {
    return this.transactions.savepoint(ctx, fn, opts);
  }

  /**
   * `transaction`, with the held writes of its units (`savepoint` with `holdWrites`) carried to its
   * end on MySQL/MariaDB, so a bulk chunk's inserts go together as multi-row INSERTs; when they
   * fail, `fn` runs again in a new transaction with each unit sending its own (transactions.ts,
   * docs/bulk.md "Round trips"). `fn` must be safe to run again from its start. Inside the
   * context's transaction it runs between a savepoint of its own, which a failure of the carried
   * writes rolls back to before `fn` runs again; on SQLite it is `transaction`.
   */
  transactionCarrying<R>(ctx: RequestContext, fn: () => Promise<R>): Promise<R> {
    return this.transactions.carrying(ctx, fn);
  }

  /**
   * Housekeeping of the service's own tables across sites (the webhook dispatcher's claims and
   * results, the retention sweeps): one short transaction with no request context and no journal
   * (transactions.ts), running named statements. Only the statements files call it.
   */
  housekeeping<R>(fn: (tx: Housekeeper) => Promise<R>): Promise<R> {
    return this.transactions.housekeeping((manager) => fn(new ManagerHousekeeper(manager)));
  }

  /**
   * Serializes structural changes of one site's trees (reporting lines, organization parents) on
   * MySQL/MariaDB by locking the site's row until the transaction ends, so two concurrent moves
   * cannot each pass a cycle check the other invalidates. SQLite runs one transaction at a time
   * anyway.
   */
  async lockSiteTrees(ctx: RequestContext): Promise<void> {
    await this.lockSite(ctx);
  }

  /**
   * Locks the context's site row until the transaction ends, cluster-wide on Galera (MySQL/MariaDB; SQLite runs one
   * transaction at a time anyway): serializes the writes of what a site has at most one of and
   * may not have yet, such as its dashboard settings, whose first write is an insert.
   */
  async lockSite(ctx: RequestContext): Promise<void> {
    this.assertInTransaction(ctx, 'lockSite');
    if (this.isSqlite) return;
    await this.sql(ctx, LOCK_SITE, [ctx.siteId]);
  }

  /** The generated primary key of a row just inserted, from the driver's insert result (MySQL's insertId, SQLite's last row id). */
  generatedKeys(metadata: EntityMetadata, raw: unknown): ObjectLiteral | undefined {
    if (!metadata.primaryColumns.some((c) => c.isGenerated)) return undefined;
    return this.dataSource.driver.createGeneratedMap(metadata, raw, 0, 1);
  }

  private view(ctx: RequestContext): TenantTx {
    return { ctx, repo: (entity, label) => this.repo(ctx, entity, label), global: (entity) => this.global(ctx, entity), db: this };
  }
}

function labelOf(targetName: string): string {
  return targetName.replace(/Entity$/, '');
}
