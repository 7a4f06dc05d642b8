import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  DataSource,
  DeepPartial,
  EntityManager,
  EntityMetadata,
  EntityTarget,
  FindManyOptions,
  FindOptionsWhere,
  In,
  ObjectLiteral,
  Repository,
  SelectQueryBuilder,
} from 'typeorm';
import { actorIdOf, type RequestContext } from '../common/context/request-context.js';
import { ConflictError, NotFoundError, PreconditionFailedError, ServiceUnavailableError } from '../common/errors/errors.js';
import { isPrimaryKeyViolation, isRetryableConflict } from '../common/errors/db-errors.js';
import { pingDatabase } from './ping.js';
import { affectedOf, RawReader } from './raw-reader.js';
import {
  anchorOf,
  announceWrite,
  compileAnchor,
  compileSimpleFind,
  hydrateRows,
  joinedOf,
  type JoinedColumns,
  keptInsert,
  keptUpdate,
  totalFromPage,
} from './kept-sql.js';
import { MemoStore, RecordMemo, type MemoKind, type MemoVariant } from './record-memo.js';
import { rowAsWritten } from './written-row.js';
import { APP_CONFIG, DEFAULT_LIST_TOTAL_CACHE_MS, DEFAULT_RECORD_MEMO, type AppConfig } from '../config/config.js';
import { ListTotals } from './list-totals.js';
import type { TenantEntity } from './entities/base.entity.js';
import { InvalidationBus } from '../common/invalidation/invalidation-bus.js';
import { actionOf, diffRow, flushJournal, joinBatches, journalBatch, kindOf, type Batch, type RowChange } from './journal.js';

type Where<T> = FindOptionsWhere<T> | FindOptionsWhere<T>[];
type Patch = Record<string, unknown>;

/**
 * Columns input can never write: identity, tenancy, audit and the row version are the service's, and
 * an individual's newest comment is kept by the comment writes (refreshLastComments).
 */
const PROTECTED = new Set(['id', 'siteId', 'created', 'createdBy', 'updated', 'updatedBy', 'version', 'lastCommentId']);

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
const BOUND = new WeakMap<RequestContext, EntityManager>();

/** The by-id statements of an entity: a tenant record's (`read`, `lock`), a global table's (`global`). */
interface ByIdStatements {
  read: string;
  lock: string;
  global: string;
}
const BY_ID = new WeakMap<EntityMetadata, ByIdStatements>();

/**
 * `SELECT <every column> FROM <table> WHERE site_id = ? AND id = ?` (`read`; `lock` adds `FOR
 * UPDATE`), and `… WHERE id = ?` for a global table (`global`), built once per entity.
 */
function byIdStatements(metadata: EntityMetadata): ByIdStatements {
  let s = BY_ID.get(metadata);
  if (!s) {
    const driver = metadata.connection.driver;
    const from = `SELECT ${metadata.columns.map((c) => driver.escape(c.databaseName)).join(', ')} FROM ${driver.escape(metadata.tableName)} WHERE`;
    const read = `${from} ${driver.escape('site_id')} = ? AND ${driver.escape('id')} = ? LIMIT 1`;
    s = { read, lock: `${read} FOR UPDATE`, global: `${from} ${driver.escape('id')} = ? LIMIT 1` };
    BY_ID.set(metadata, s);
  }
  return s;
}

/**
 * The journal of the transaction a context runs in (src/database/journal.ts): the rows changed so
 * far, written as audit rows before commit, and the rows the transaction has locked or written, as
 * they stand now (the "before" of its next change of them, without reading them again).
 */
interface TxJournal {
  changes: RowChange[];
  rows: Map<string, Record<string, unknown>>;
  /** Writes whose outcome the transaction does not read, sent when it ends (TenantDb.sqlAtCommit). */
  atCommit: Batch[];
}
const JOURNALS = new WeakMap<RequestContext, TxJournal>();

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
function journalChange(
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

/** The record a list hangs on (ScopedRepository.findAndCountUnder). */
export interface Anchor {
  target: EntityTarget<ObjectLiteral>;
  /** The resource name of its 404, e.g. "Individual". */
  label: string;
  id: string | number;
  /** Equality conditions on its properties besides the id (an organization's row type). */
  where?: Readonly<Record<string, string | number | boolean>>;
  /** Its columns to read, by database name (e.g. an individual's names). */
  columns?: readonly string[];
}

/** A page under an anchor: the anchor's id and columns, the records, the total, and each record's joined row. */
export interface ListUnder<T> {
  anchor: Record<string, unknown>;
  rows: T[];
  total: number;
  joined: (Record<string, unknown> | null)[];
}

/** Marks the async flow that holds the SQLite writer lock, so a nested transaction joins it. */
const SQLITE_LOCK_HELD = new AsyncLocalStorage<true>();

/**
 * A repository bound to one request's site (docs/architecture.md, "How a write runs"). Every read
 * adds `site_id = ctx.siteId`; every write sets or checks it. A row of another site is simply not
 * found. It resolves the context's transaction at every call, so a repository made before a
 * transaction started still writes inside it.
 */
export class ScopedRepository<T extends TenantEntity & ObjectLiteral> {
  constructor(
    private readonly db: TenantDb,
    private readonly ctx: RequestContext,
    private readonly target: EntityTarget<T>,
    /** The resource name used in 404 messages, e.g. "Individual". */
    readonly label: string,
  ) {}

  private get repo(): Repository<T> {
    return this.db.managerOf(this.ctx).getRepository(this.target);
  }

  private get siteId(): string {
    return this.ctx.siteId;
  }

  private scope(where?: Where<T>): Where<T> {
    const site = { siteId: this.siteId } as FindOptionsWhere<T>;
    if (!where) return site;
    if (Array.isArray(where)) return where.map((w) => ({ ...w, ...site }));
    return { ...where, ...site };
  }

  // ------------------------------------------------------------------ reads

  /**
   * The records of the caller's site that match. A simple find (equality, `IS NULL` and `In`
   * conditions, an order, a page) runs one statement kept per shape (src/database/kept-sql.ts);
   * any other runs through TypeORM.
   */
  find(options: FindManyOptions<T> = {}): Promise<T[]> {
    const kept = this.kept(options);
    return kept ? kept.rows() : this.repo.find({ ...options, where: this.scope(options.where as Where<T> | undefined) });
  }

  /**
   * A page and the total: the total is counted only when the page cannot tell it (a full page, or
   * an empty one past the start), so a list shorter than its page costs one statement.
   */
  async findAndCount(options: FindManyOptions<T> = {}): Promise<[T[], number]> {
    const kept = this.kept(options);
    if (!kept) return this.repo.findAndCount({ ...options, where: this.scope(options.where as Where<T> | undefined) });
    const rows = await kept.rows();
    return [rows, totalFromPage(rows.length, options.take, options.skip) ?? (await kept.count())];
  }

  /**
   * `findAndCount` of a simple find (src/database/kept-sql.ts), each record with the columns of the
   * row of another tenant table it references (a goal's individual's name), read in the same
   * statement: the records, the total, and per record the joined row's values (null where it
   * references none in the site).
   */
  async findAndCountJoined(options: FindManyOptions<T>, joined: JoinedColumns): Promise<[T[], number, (Record<string, unknown> | null)[]]> {
    const kept = this.keptJoined(options, joined);
    const raw = await kept.raw();
    const rows = hydrateRows<T>(this.db.metadataOf(this.target), raw);
    const total = totalFromPage(rows.length, options.take, options.skip) ?? (await kept.count());
    return [rows, total, raw.map((r) => joinedOf(joined, r))];
  }

  /** The record with this id in the caller's site and the row it references (see findAndCountJoined), or a 404. */
  async getJoined(id: string | number, joined: JoinedColumns): Promise<[T, Record<string, unknown> | null]> {
    const [raw] = await this.keptJoined({ where: { id } as unknown as FindOptionsWhere<T>, take: 1 }, joined).raw();
    if (!raw) throw new NotFoundError(this.label, id);
    return [hydrateRows<T>(this.db.metadataOf(this.target), [raw])[0], joinedOf(joined, raw)];
  }

  /**
   * A page of the records under one record of another table (an individual's goals, the comments
   * on a record), that record and the total: one statement for a page with records in it
   * (src/database/kept-sql.ts, AnchorColumns) instead of a check of the record before the page,
   * and a read of the record alone after an empty page. A 404 named after the anchor when it is not
   * a record of the caller's site (with `anchor.where`'s conditions), whatever is listed under its
   * id. `options` is a simple find whose conditions name the anchor's id; with `joined`, each
   * record also brings the row it references (see findAndCountJoined).
   */
  async findAndCountUnder(anchor: Anchor, options: FindManyOptions<T>, joined?: JoinedColumns): Promise<ListUnder<T>> {
    const metadata = this.db.metadataOf(this.target);
    const under = compileAnchor(this.db.metadataOf(anchor.target), this.siteId, anchor.id, anchor.where, anchor.columns);
    const simple = under && compileSimpleFind(metadata, this.siteId, options, joined, under.anchor);
    if (!simple) throw new Error(`${this.label}: a list under a record takes a simple find and plain conditions on the record`);
    const reader = this.db.reader(this.ctx);
    const prepare = { prepare: simple.prepare };
    // The anchor's values come first in the statement's text (its join), then the list's.
    const raw = await reader.rows<Record<string, unknown>>(simple.rows, [...under.params, ...simple.params, ...simple.paging], prepare);
    const first = raw[0] ?? (await reader.rows<Record<string, unknown>>(simple.anchor!, under.params))[0];
    const record = anchorOf(under.anchor, first);
    if (!record) throw new NotFoundError(anchor.label, anchor.id);
    const rows = hydrateRows<T>(metadata, raw);
    const counted = async () => Number((await reader.rows<{ n: number | string }>(simple.count, simple.params, prepare))[0]?.n ?? 0);
    const total = totalFromPage(rows.length, options.take, options.skip) ?? (await counted());
    return { anchor: record, rows, total, joined: joined ? raw.map((r) => joinedOf(joined, r)) : [] };
  }

  /**
   * The answers of rows read through this repository, as `resource` writes them with `extras`,
   * each kept with its rendered texts in the record memo (src/database/record-memo.ts,
   * docs/performance.md "Record memo"): a row read again unchanged, with the same variant, is
   * answered without building or rendering it again. `variantOf` gives, per row, everything its
   * answer takes from `extras` (a joined name); without it the answer must take nothing from them
   * that varies between calls.
   */
  answers<A extends object, X>(rows: readonly T[], resource: { toWire(row: T, extras?: X): A }, extras?: X, variantOf?: (row: T) => MemoVariant): A[] {
    const memo = this.db.answerMemo<A>(this.target, resource);
    return rows.map((row) => {
      const id = String(row.id);
      const variant = variantOf ? variantOf(row) : 0;
      return memo.answer(id, row, variant, () => resource.toWire(row, extras));
    });
  }

  private keptJoined(options: FindManyOptions<T>, joined: JoinedColumns): NonNullable<ReturnType<ScopedRepository<T>['kept']>> {
    const kept = this.kept(options, joined);
    if (!kept) throw new Error(`${this.label}: a joined read takes a simple find (equality, IS NULL, IN and ranges on columns, an order, a page)`);
    return kept;
  }

  /** The first record that matches (no order: any one). */
  findOne(where: Where<T>): Promise<T | null> {
    return this.find({ where, take: 1 } as FindManyOptions<T>).then(([row]) => row ?? null);
  }

  /**
   * The kept statements of a simple find (src/database/kept-sql.ts), bound to its values, on the
   * context's connection: its rows, hydrated, and its count. Null for any other find.
   */
  private kept(
    options: FindManyOptions<T>,
    joined?: JoinedColumns,
  ): { rows: () => Promise<T[]>; raw: () => Promise<Record<string, unknown>[]>; count: () => Promise<number> } | null {
    const metadata = this.db.metadataOf(this.target);
    const simple = compileSimpleFind(metadata, this.siteId, options, joined);
    if (!simple) return null;
    const reader = this.db.reader(this.ctx);
    const prepare = { prepare: simple.prepare };
    const raw = () => reader.rows<Record<string, unknown>>(simple.rows, [...simple.params, ...simple.paging], prepare);
    return {
      raw,
      rows: () => raw().then((rows) => hydrateRows<T>(metadata, rows)),
      count: () => reader.rows<{ n: number | string }>(simple.count, simple.params, prepare).then(([counted]) => Number(counted?.n ?? 0)),
    };
  }

  /**
   * The record with this id in the caller's site, or null: one prepared statement per entity
   * (built once from its metadata), its row hydrated as TypeORM hydrates it — the read every
   * by-id route and every write's check makes, without building the query anew each time.
   */
  async findById(id: string | number): Promise<T | null> {
    return this.byId(id, false);
  }

  private async byId(id: string | number, forUpdate: boolean): Promise<T | null> {
    const metadata = this.db.metadataOf(this.target);
    const statements = byIdStatements(metadata);
    const statement = forUpdate && !this.db.isSqlite ? statements.lock : statements.read;
    const rows = await this.db.reader(this.ctx).rows<Record<string, unknown>>(statement, [this.siteId, id]);
    return rows.length === 0 ? null : hydrateRows<T>(metadata, rows, 'all')[0];
  }

  /** The record with this id in the caller's site, or a 404. */
  async get(id: string | number): Promise<T> {
    const row = await this.findById(id);
    if (!row) throw new NotFoundError(this.label, id);
    return row;
  }

  /**
   * The record, locked against concurrent writers until the transaction ends (`SELECT … FOR
   * UPDATE` on MySQL/MariaDB; on SQLite the transaction already holds the only writer lock), or a
   * 404. For checks that guard a write: call it inside `TenantDb.transaction`.
   */
  async lock(id: string | number): Promise<T> {
    this.db.assertInTransaction(this.ctx, 'lock');
    const row = await this.byId(id, true);
    if (!row) throw new NotFoundError(this.label, id);
    this.remember(row);
    return row;
  }

  /** Locks (MySQL/MariaDB) the rows of these ids that exist in the site; answers them. */
  async lockMany(ids: readonly (string | number)[]): Promise<T[]> {
    this.db.assertInTransaction(this.ctx, 'lockMany');
    if (ids.length === 0) return [];
    const unique = [...new Set(ids)];
    if (unique.length === 1) {
      // One record (a comment's ancestor, a membership's individual): the kept statement of `lock`.
      const row = await this.byId(unique[0], true);
      if (row) this.remember(row);
      return row ? [row] : [];
    }
    const qb = this.qb('t').andWhere('t.id IN (:...__ids)', { __ids: unique });
    if (!this.db.isSqlite) qb.setLock('pessimistic_write');
    const rows = await qb.getMany();
    for (const row of rows) this.remember(row);
    return rows;
  }

  /** The records with these ids in the caller's site (one query, any order). */
  findByIds(ids: readonly (string | number)[]): Promise<T[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.find({ where: { id: In([...new Set(ids)]) } as unknown as FindOptionsWhere<T> });
  }

  /** How many records match. */
  count(where?: Where<T>): Promise<number> {
    return this.kept({ where } as FindManyOptions<T>)?.count() ?? this.repo.count({ where: this.scope(where) });
  }

  async exists(where: Where<T>): Promise<boolean> {
    return (await this.findOne(where)) !== null;
  }

  /**
   * A query builder restricted to the caller's site. The site condition is kept apart from the
   * builder's own WHERE list and ANDed to it when the SQL is built, so a later `.where()` or
   * `.orWhere()` cannot drop or bypass it (a test holds this). Joined tenant tables must be joined
   * on `site_id` as well.
   */
  qb(alias: string): SelectQueryBuilder<T> {
    const qb = this.repo.createQueryBuilder(alias);
    qb.expressionMap.extraAppendedAndWhereCondition = `${alias}.site_id = :__siteId`;
    return qb.setParameter('__siteId', this.siteId);
  }

  // ------------------------------------------------------------------ writes

  /**
   * Inserts a record of the caller's site; id, site, audit and version columns are set here.
   * Always an INSERT, never an upsert: a supplied id that is taken — in any site, since ids are
   * primary keys — is a 409 `id-taken`, and a race on the same id fails in the database, never
   * overwriting the other row. The answer is the same wherever the id is used, and names no
   * record, so it tells a caller nothing about another site (docs/http-and-xml.md).
   *
   * `atCommit`: when the id is made here (a new uuid) and the insert is one kept statement, it is
   * sent when the transaction commits (TenantDb.sqlAtCommit: on MySQL/MariaDB in the COMMIT's round
   * trip), not now. For a row nothing later in the transaction reads except other writes left for
   * the commit, which follow it in order, and whose failure the caller does not interpret: its new
   * uuid cannot clash, but any other unique index or a foreign key may refuse the row there, and
   * then the commit fails with that error and everything rolls back.
   */
  async insert(values: DeepPartial<T>, opts: { atCommit?: boolean } = {}): Promise<T> {
    return this.db.transaction(this.ctx, async () => {
      const repo = this.repo;
      const now = new Date();
      const clean = Object.fromEntries(Object.entries(values as object).filter(([k]) => !PROTECTED.has(k) || k === 'id'));
      const entity = repo.create({
        ...clean,
        siteId: this.siteId,
        created: now,
        createdBy: actorIdOf(this.ctx.caller),
        updated: now,
        updatedBy: actorIdOf(this.ctx.caller),
        version: 1,
      } as DeepPartial<T>);
      const rec = entity as Record<string, unknown>;
      const idCol = repo.metadata.primaryColumns[0];
      let madeId = false;
      if (idCol && !idCol.isGenerated) {
        if (rec.id === undefined || rec.id === null) {
          rec.id = randomUUID();
          madeId = true;
        } else if (await repo.exists({ where: { id: rec.id } as unknown as FindOptionsWhere<T> })) {
          throw idTaken(rec.id);
        }
      }
      // The answer is built from this object: give unset columns their defaults (or null) as the
      // database will, without reading the row back.
      for (const col of repo.metadata.columns) {
        if (col.isGenerated || rec[col.propertyName] !== undefined) continue;
        if (col.default !== undefined && col.default !== null && typeof col.default !== 'function') rec[col.propertyName] = typedDefault(col.type, col.default);
        else if (col.isNullable) rec[col.propertyName] = null;
      }
      try {
        // One statement: the entity is not read back (every column is set above), only a
        // generated id is taken from the insert's own result.
        const statement = keptInsert(repo.metadata, rec);
        const runner = repo.manager.queryRunner;
        let raw: unknown;
        if (statement && runner) {
          if (opts.atCommit && madeId) this.db.sqlAtCommit(this.ctx, statement.sql, statement.params);
          else raw = await runner.query(statement.sql, statement.params);
          await announceWrite('afterInsert', repo.metadata, runner, rec);
        } else {
          raw = (
            await repo
              .createQueryBuilder()
              .insert()
              .into(repo.metadata.target)
              .values(entity as never)
              .updateEntity(false)
              .execute()
          ).raw;
        }
        const generated = this.db.generatedKeys(repo.metadata, raw);
        if (generated) Object.assign(rec, generated);
      } catch (e) {
        // Another unique index is the caller's to interpret (e.g. a duplicate membership).
        if (isPrimaryKeyViolation(e)) throw idTaken(rec.id);
        throw e;
      }
      this.journal(null, rec);
      return entity;
    });
  }

  /**
   * Inserts many records of the caller's site with few statements (a chunk of rows each): ids are
   * always generated, site, audit and version columns set here. For rows the service derives
   * itself (the archives of a closing period), never for input that may name its own id. Answers
   * the number of rows written.
   */
  async insertMany(values: DeepPartial<T>[], chunkSize = 200): Promise<number> {
    if (values.length === 0) return 0;
    return this.db.transaction(this.ctx, async () => {
      const repo = this.repo;
      const now = new Date();
      const by = actorIdOf(this.ctx.caller);
      const generated = repo.metadata.primaryColumns[0]?.isGenerated ?? false;
      const rows = values.map((v) => ({
        ...Object.fromEntries(Object.entries(v as object).filter(([k]) => !PROTECTED.has(k))),
        ...(generated ? {} : { id: randomUUID() }),
        siteId: this.siteId,
        created: now,
        createdBy: by,
        updated: now,
        updatedBy: by,
        version: 1,
      }));
      for (let i = 0; i < rows.length; i += chunkSize) {
        await repo
          .createQueryBuilder()
          .insert()
          .values(rows.slice(i, i + chunkSize) as never)
          .updateEntity(false)
          .execute();
      }
      for (const row of rows) this.journal(null, row);
      return rows.length;
    });
  }

  /**
   * Writes the defined keys of `patch` (protected columns ignored) to the record `id` of the
   * caller's site in one `UPDATE … WHERE site_id = ? AND id = ?`, bumping its version. With
   * `ifMatch`, the versions the request's If-Match header names are part of that WHERE, so of
   * concurrent writers holding the same ETag exactly one succeeds. Answers the row as written: the
   * locked row with the values set, the audit columns and the version bumped when the database
   * stores every value exactly (src/database/written-row.ts), else the row read back in the same
   * transaction. 404 when the record is not in the site, 412 when If-Match names another version.
   */
  async update(id: string | number, patch: DeepPartial<T> | Patch, opts: { ifMatch?: boolean } = {}): Promise<T> {
    return this.db.transaction(this.ctx, async () => {
      const before = await this.before(id);
      const where: Patch = { siteId: this.siteId, id };
      const versions = opts.ifMatch ? this.ctx.ifMatchVersions : null;
      if (versions) where.version = In(versions.length ? versions : [-1]);
      const { affected, set } = await this.write(where, patch);
      if (affected === 0) throw new PreconditionFailedError();
      const metadata = this.repo.metadata;
      const written = rowAsWritten(metadata, before, set);
      const after = written ? (Object.assign(metadata.create(), written) as T) : await this.get(id);
      this.journal(before, after);
      return after;
    });
  }

  /**
   * Sets columns on every row of the caller's site that matches (cascades, bulk flags), each row's
   * version bumped, in one UPDATE. Answers the number of rows changed.
   */
  async updateWhere(where: FindOptionsWhere<T>, patch: Patch): Promise<number> {
    return this.db.transaction(this.ctx, async () => {
      // The rows are read (and locked) first and changed by id: the trail records exactly them.
      const before = await this.lockedWhere(where);
      const ids = before.map((r) => r.id as string | number);
      let affected = 0;
      for (let i = 0; i < ids.length; i += 500) affected += (await this.write({ siteId: this.siteId, id: In(ids.slice(i, i + 500)) }, patch)).affected;
      const after = new Map((await this.findByIdsChunked(ids)).map((r) => [String(r.id), r]));
      for (const row of before) this.journal(row, after.get(String(row.id)) ?? null);
      return affected;
    });
  }

  /**
   * A value for `update`/`updateWhere` that adds `by` to a counter column in the UPDATE itself
   * (no read-modify-write across awaits).
   */
  plus(column: keyof T & string, by: number): () => string {
    const col = this.repo.metadata.findColumnWithPropertyName(column);
    if (!col) throw new Error(`${this.label} has no column ${column}`);
    const name = this.db.escape(col.databaseName);
    const n = Number(by);
    if (!Number.isFinite(n)) throw new Error('plus() takes a finite number');
    return () => `${name} + ${n}`;
  }

  /**
   * Removes the record `id` of the caller's site (for records without soft delete); with
   * `ifMatch`, only at the version the request names. 404 / 412 as `update`.
   */
  async remove(id: string | number, opts: { ifMatch?: boolean } = {}): Promise<void> {
    await this.db.transaction(this.ctx, async () => {
      const before = await this.before(id);
      const where: Patch = { siteId: this.siteId, id };
      const versions = opts.ifMatch ? this.ctx.ifMatchVersions : null;
      if (versions) where.version = In(versions.length ? versions : [-1]);
      const res = await this.repo.delete(where as FindOptionsWhere<T>);
      if (!res.affected) throw new PreconditionFailedError();
      this.journal(before, null);
    });
  }

  /** Removes matching rows of the caller's site (for records without soft delete). */
  async deleteWhere(where: FindOptionsWhere<T>): Promise<number> {
    return this.db.transaction(this.ctx, async () => {
      const before = await this.lockedWhere(where);
      const ids = before.map((r) => r.id as string | number);
      let affected = 0;
      for (let i = 0; i < ids.length; i += 500) {
        const res = await this.repo.delete({ siteId: this.siteId, id: In(ids.slice(i, i + 500)) } as unknown as FindOptionsWhere<T>);
        affected += res.affected ?? 0;
      }
      for (const row of before) this.journal(row, null);
      return affected;
    });
  }

  // ------------------------------------------------------------------ the journal (src/database/journal.ts)

  private key(id: unknown): string {
    return `${this.repo.metadata.tableName}:${String(id)}`;
  }

  /** Keeps a copy of a row the transaction locked or wrote: the "before" of its next change. */
  private remember(row: T): void {
    JOURNALS.get(this.ctx)?.rows.set(this.key(row.id), { ...row });
  }

  /**
   * The row as it stands before a change: as this transaction last locked or wrote it, else read
   * and locked now (MySQL/MariaDB; the UPDATE would take the same lock a moment later). 404 when
   * the record is not in the site.
   */
  private async before(id: string | number): Promise<Record<string, unknown>> {
    const kept = JOURNALS.get(this.ctx)?.rows.get(this.key(id));
    if (kept) return kept;
    const row = await this.byId(id, true);
    if (!row) throw new NotFoundError(this.label, id);
    return { ...row };
  }

  /** The rows of the site matching `where`, locked (MySQL/MariaDB) for the bulk change that follows. */
  private lockedWhere(where: FindOptionsWhere<T>): Promise<T[]> {
    return this.repo.find({ where: this.scope(where), ...(this.db.isSqlite ? {} : { lock: { mode: 'pessimistic_write' as const } }) });
  }

  private async findByIdsChunked(ids: readonly (string | number)[]): Promise<T[]> {
    const out: T[] = [];
    for (let i = 0; i < ids.length; i += 500) out.push(...(await this.findByIds(ids.slice(i, i + 500))));
    return out;
  }

  /** Reports one changed row to the transaction's journal (a row before and after; null: none). */
  private journal(before: Record<string, unknown> | null, after: Record<string, unknown> | null): void {
    const tx = journalChange(this.ctx, this.repo.metadata, before, after);
    if (!tx) return;
    const row = (after ?? before)!;
    if (after) tx.rows.set(this.key(row.id), { ...after });
    else tx.rows.delete(this.key(row.id));
  }

  /** One UPDATE of the rows `where` matches: the rows changed, and every value set (the audit columns included; the version is bumped). */
  private async write(where: Patch, patch: DeepPartial<T> | Patch): Promise<{ affected: number; set: Patch }> {
    const set: Patch = {};
    for (const [k, v] of Object.entries(patch as Patch)) if (!PROTECTED.has(k) && v !== undefined) set[k] = v;
    set.updated = new Date();
    set.updatedBy = actorIdOf(this.ctx.caller);
    const repo = this.repo;
    const statement = keptUpdate(repo.metadata, set, where);
    const runner = repo.manager.queryRunner;
    if (statement && runner) {
      const affected = (await runner.query(statement.sql, statement.params, true)).affected ?? 0;
      await announceWrite('afterUpdate', repo.metadata, runner);
      return { affected, set };
    }
    const version = this.db.escape('version');
    const res = await repo
      .createQueryBuilder()
      .update()
      .set({ ...set, version: () => `${version} + 1` } as never)
      .where(where as FindOptionsWhere<T>)
      .execute();
    return { affected: res.affected ?? 0, set };
  }
}

/** The reads of a global table (sites, login accounts): its writes go through `TenantDb.journaled` so the trail records them. */
export type GlobalReads<T extends ObjectLiteral> = Pick<
  Repository<T>,
  'find' | 'findBy' | 'findOne' | 'findOneBy' | 'findAndCount' | 'count' | 'countBy' | 'exists' | 'existsBy' | 'create' | 'createQueryBuilder' | 'metadata'
>;

/**
 * The writes of a global table — login accounts, sites — recorded in the audit trail as the
 * scoped path records tenant rows (docs/audit.md): each row changed is read (and locked) before
 * and read after, in the context's transaction, and journaled in the trail of the site `siteOf`
 * names (an account's home site, a site's own). Password hashes and other secrets are recorded
 * only as changed.
 */
export class JournaledRows<T extends ObjectLiteral & { id: string }> {
  constructor(
    private readonly db: TenantDb,
    private readonly ctx: RequestContext,
    private readonly target: EntityTarget<T>,
    private readonly siteOf: (row: T) => string,
  ) {}

  private get repo(): Repository<T> {
    return this.db.managerOf(this.ctx).getRepository(this.target);
  }

  /** Inserts the row (its id given) and answers it as stored. */
  async insert(values: DeepPartial<T> & { id: string }): Promise<T> {
    return this.db.transaction(this.ctx, async () => {
      await this.repo.insert(values as never);
      const row = (await this.read(values.id, false))!;
      this.journal(null, row);
      return row;
    });
  }

  /**
   * Sets `patch` on the row `id` where `where` also holds (e.g. a row version); answers the number
   * of rows changed (0: no such row, or `where` did not hold).
   */
  async update(id: string, patch: Record<string, unknown>, where: FindOptionsWhere<T> = {}): Promise<number> {
    return this.db.transaction(this.ctx, async () => {
      const before = await this.read(id, true);
      if (!before) return 0;
      const res = await this.repo
        .createQueryBuilder()
        .update()
        .set(patch as never)
        .where({ ...where, id } as FindOptionsWhere<T>)
        .execute();
      const affected = res.affected ?? 0;
      if (affected) this.journal(before, await this.read(id, false));
      return affected;
    });
  }

  /** The row, locked for the change that follows (MySQL/MariaDB; SQLite runs one write transaction at a time). */
  private read(id: string, lock: boolean): Promise<T | null> {
    const qb = this.repo.createQueryBuilder('t').where('t.id = :id', { id });
    if (lock && !this.db.isSqlite) qb.setLock('pessimistic_write');
    return qb.getOne();
  }

  private journal(before: T | null, after: T | null): void {
    journalChange(this.ctx, this.repo.metadata, before && { ...before }, after && { ...after }, this.siteOf((after ?? before)!));
  }
}

/** Runs one SELECT with `?` placeholders and answers its rows (see `TenantDb.reader`). */
export interface RowReader {
  rows<T>(sql: string, params: readonly unknown[], opts?: { prepare?: boolean }): Promise<T[]>;
}

/** The transaction-bound view handed to `TenantDb.transaction` callbacks. */
export interface TenantTx {
  /** The context, bound to this transaction while the callback runs. */
  ctx: RequestContext;
  repo<T extends TenantEntity & ObjectLiteral>(entity: EntityTarget<T>, label?: string): ScopedRepository<T>;
  /** A global table (sites, login accounts) in this transaction, to read; see `TenantDb.global` (writes: `TenantDb.journaled`). */
  global<T extends ObjectLiteral>(entity: EntityTarget<T>): GlobalReads<T>;
  /** The database, for the query functions of `src/database/queries/` (called with `ctx`, they run in this transaction). */
  db: TenantDb;
}

/**
 * The single entry point to the database for modules (docs/architecture.md). Tenant tables are
 * reached through `repo(ctx, Entity)`, which scopes every statement to the context's site; the
 * global tables (sites, login accounts) through `global(ctx, Entity)`; raw SQL only through the
 * query functions in `src/database/queries/`. Modules never see a DataSource or EntityManager.
 */
@Injectable()
export class TenantDb {
  private readonly logger = new Logger('TenantDb');
  /** SQLite has one connection: transactions run one at a time (see `transaction`). */
  private sqliteQueue: Promise<unknown> = Promise.resolve();
  readonly isSqlite: boolean;

  /**
   * The totals of lists (X-Total-Count) of this database, reused for LIST_TOTAL_CACHE_MS unless a
   * transaction of the site committed since (src/database/list-totals.ts).
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
    const rows = await (ctx ? this.reader(ctx) : RawReader.of(this.dataSource)).rows<Record<string, unknown>>(byIdStatements(metadata).global, [id]);
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
   * Raw SQL on the context's connection (its transaction when one runs). Only the query modules
   * of `src/database/` call it, and every statement they write filters by the `ctx.siteId` they
   * are given; modules use those functions (a test holds the boundary).
   */
  sql<R = Record<string, unknown>>(ctx: RequestContext, statement: string, params: unknown[]): Promise<R[]> {
    // A raw write may change rows the transaction keeps as "before" states: read them again.
    if (!/^\s*SELECT/i.test(statement)) JOURNALS.get(ctx)?.rows.clear();
    return this.managerOf(ctx).query(statement, params) as Promise<R[]>;
  }

  /**
   * A raw write sent when the transaction ends, before its trail, rather than now: on MySQL/MariaDB
   * in the COMMIT's own round trip (docs/performance.md, "Writes: fewer round trips"). For a
   * statement whose outcome nothing later in the transaction reads, on rows the transaction has
   * locked already (so it waits for nobody); a failure fails the commit, and the transaction rolls
   * back as if the statement had failed where it was asked for. Only the query modules of
   * `src/database/` call it, as `sql`.
   */
  sqlAtCommit(ctx: RequestContext, statement: string, params: unknown[]): void {
    const journal = JOURNALS.get(ctx);
    if (!journal) throw new Error('sqlAtCommit() must run inside TenantDb.transaction');
    journal.rows.clear();
    journal.atCommit.push({ sql: statement, params });
  }

  /**
   * The hot-read path of `src/database/queries/` (docs/performance.md): outside a transaction a
   * prepared statement on the driver's own pool; inside one, the transaction's connection, so a
   * read after a write in the same transaction sees that write.
   */
  reader(ctx: RequestContext): RowReader {
    const manager = BOUND.get(ctx);
    if (!manager) return RawReader.of(this.dataSource);
    return { rows: <T>(statement: string, params: readonly unknown[]) => manager.query(statement, [...params]) as Promise<T[]> };
  }

  /**
   * A background job's look for work in the service's own tables across sites (the webhook
   * dispatcher's and the dashboard summaries' polls): one read on the pool, outside any
   * transaction, so a poll that finds nothing costs one round trip, not three. What it finds is
   * only a candidate: the claim that follows checks it again in its own transaction. Only
   * src/database/queries call it.
   */
  pollRead<R>(statement: string, params: readonly unknown[]): Promise<R[]> {
    return RawReader.of(this.dataSource).rows<R>(statement, params);
  }

  /**
   * One write statement of the service's own bookkeeping (a lease taken or given back, a cursor
   * moved) that needs no transaction around it: on MySQL/MariaDB one autocommitted statement on the
   * pool (one round trip instead of three); on SQLite it waits its turn with the transactions, as
   * `housekeeping` does. Answers the rows it changed. Only src/database/queries call it.
   */
  async housekeepingWrite(statement: string, params: readonly unknown[]): Promise<number> {
    if (this.isSqlite) return this.housekeeping(async (m) => affectedOf(await m.queryRunner!.query(statement, [...params], true)));
    return affectedOf(await this.dataSource.query(statement, [...params]));
  }

  /**
   * The total of a list of the context's site named `key` (list and filters): reused for
   * LIST_TOTAL_CACHE_MS unless the site was written since (src/database/list-totals.ts); inside a
   * transaction always counted, so it sees that transaction's own writes.
   */
  listTotal(ctx: RequestContext, key: string, count: () => Promise<number>): Promise<number> {
    return BOUND.has(ctx) ? count() : this.totals.of(ctx.siteId, key, count);
  }

  /**
   * A small value read from the rows of the context's site (its periods), kept and reused like a
   * list's total (src/database/list-totals.ts): for LIST_TOTAL_CACHE_MS unless the site was written
   * since, here or, through the InvalidationBus, on another replica; inside a transaction always
   * read. `key` names what is read; the value is shared by every caller, who must not change it.
   */
  siteValue<V>(ctx: RequestContext, key: string, load: () => Promise<V>): Promise<V> {
    return BOUND.has(ctx) ? load() : this.totals.of(ctx.siteId, `value:${key}`, load);
  }

  /**
   * The memo of answers built from rows of one kind (src/database/record-memo.ts); one per kind
   * and database, all of them bounded together by RECORD_MEMO (read on every insert, so a test
   * may change it).
   */
  memo<T extends object>(kind: MemoKind): RecordMemo<T> {
    let memo = this.memos.get(kind);
    if (!memo) this.memos.set(kind, (memo = new RecordMemo<object>(kind, this.memoStore)));
    return memo as RecordMemo<T>;
  }

  /**
   * The record memo of the answers `resource` builds from rows of `target`
   * (ScopedRepository.answers): every selected column of the entity is compared.
   */
  answerMemo<A extends object>(target: EntityTarget<ObjectLiteral>, resource: object): RecordMemo<A> {
    let kinds = this.answerKinds.get(resource);
    if (!kinds) this.answerKinds.set(resource, (kinds = new Map()));
    let kind = kinds.get(target);
    if (!kind) {
      const columns = this.metadataOf(target)
        .columns.filter((c) => c.isSelect !== false)
        .map((c) => c.propertyName);
      kinds.set(target, (kind = { columns }));
    }
    return this.memo<A>(kind);
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
   * Runs `fn` in one transaction: all of its writes land, or none does. The context is bound to
   * the transaction while `fn` runs, so anything called with `ctx` takes part in it; a nested
   * call with the same context joins the outer transaction. A transaction that fails on a
   * deadlock or a lock wait is run again (up to TRANSACTION_ATTEMPTS times in all), then answers
   * 503 with Retry-After. On SQLite, whose single connection cannot hold two transactions at once,
   * transactions are queued.
   */
  async transaction<R>(ctx: RequestContext, fn: (tx: TenantTx) => Promise<R>): Promise<R> {
    if (BOUND.has(ctx)) return fn(this.view(ctx));
    // Asked once per process, before any connection is taken for the transaction.
    const batching = !this.isSqlite && (await this.trailWithCommit());
    for (let attempt = 1; ; attempt++) {
      try {
        let sites: string[] = [];
        let trail: Batch | null = null;
        const result = await this.exclusive(() =>
          this.run(
            async (manager) => {
              const journal: TxJournal = { changes: [], rows: new Map(), atCommit: [] };
              BOUND.set(ctx, manager);
              JOURNALS.set(ctx, journal);
              try {
                const answer = await fn(this.view(ctx));
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
        // Committed: totals of the site's lists counted before now are not reused (list-totals.ts).
        if (ctx.siteId) this.totals.written(ctx.siteId);
        for (const site of sites) this.bus.publish(CHANGES_TOPIC, site);
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

  private trailBatching: Promise<boolean> | null = null;

  /**
   * Whether a transaction's trail is sent with its COMMIT in one round trip (docs/audit.md,
   * "Cost"): on a single MySQL/MariaDB server, yes; on a Galera node (`wsrep_on`), no — there the
   * cluster suite saw writes acknowledged after such a batch missing from the cluster when a
   * replica was killed under load, so the trail goes as separate statements before a plain COMMIT.
   * Asked once; asked again after a failure (the database may have been away).
   */
  private trailWithCommit(): Promise<boolean> {
    this.trailBatching ??= (this.dataSource.query("SHOW VARIABLES LIKE 'wsrep_on'") as Promise<{ Value?: string }[]>).then(
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
  private async run<R>(fn: (manager: EntityManager) => Promise<R>, last?: () => Batch | null): Promise<R> {
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
          const state = runner as unknown as { isTransactionActive: boolean; transactionDepth: number };
          state.isTransactionActive = false;
          state.transactionDepth = 0;
        } else await runner.commitTransaction();
        return result;
      } catch (e) {
        if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
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
    return SQLITE_LOCK_HELD.exit(() => this.exclusive(() => this.run(fn)));
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
    // A write, not SELECT … FOR UPDATE: on Galera only a written row is certified on every node
    // (migration 1732000001800), so the lock holds across nodes; on one server it locks the same.
    await this.sql(ctx, 'UPDATE sites SET lock_seq = lock_seq + 1 WHERE id = ?', [ctx.siteId]);
  }

  /** The generated primary key of a row just inserted, from the driver's insert result (MySQL's insertId, SQLite's last row id). */
  generatedKeys(metadata: EntityMetadata, raw: unknown): ObjectLiteral | undefined {
    if (!metadata.primaryColumns.some((c) => c.isGenerated)) return undefined;
    return this.dataSource.driver.createGeneratedMap(metadata, raw, 0, 1);
  }

  private view(ctx: RequestContext): TenantTx {
    return { ctx, repo: (entity, label) => this.repo(ctx, entity, label), global: (entity) => this.global(ctx, entity), db: this };
  }

  private exclusive<R>(fn: () => Promise<R>): Promise<R> {
    if (!this.isSqlite || SQLITE_LOCK_HELD.getStore()) return fn();
    const run = this.sqliteQueue.then(() => SQLITE_LOCK_HELD.run(true, fn));
    this.sqliteQueue = run.catch(() => undefined);
    return run;
  }
}

/** A column default as the entity holds it: drivers keep boolean defaults as 0/1 in metadata. */
function typedDefault(type: unknown, value: unknown): unknown {
  if (type === 'boolean' || type === Boolean) return value === true || value === 1 || value === '1' || value === 'true';
  if (type === 'integer' || type === 'int' || type === Number) return Number(value);
  return value;
}

function labelOf(targetName: string): string {
  return targetName.replace(/Entity$/, '');
}
