import { EntityMetadata, EntityTarget, FindManyOptions, FindOptionsWhere, In, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import type { RequestContext } from '../common/context/request-context.js';
import { NotFoundError } from '../common/errors/errors.js';
import { anchorOf, compileAnchor, compileSimpleFind, joinedOf, type JoinedColumns, totalFromPage } from './kept-sql.js';
import { hydrateRows } from './hydrate.js';
import type { MemoVariant } from '../http/wire/record-memo.js';
import type { TenantEntity } from './entities/base.entity.js';
import { JOURNALS, journalChange, type RowStore, type Where } from './row-store.js';

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
export function byIdStatements(metadata: EntityMetadata): ByIdStatements {
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

/**
 * A repository bound to one request's site (docs/architecture.md, "How a write runs"). Every read
 * adds `site_id = ctx.siteId`; every write sets or checks it. A row of another site is simply not
 * found. It resolves the context's transaction at every call, so a repository made before a
 * transaction started still writes inside it.
 */
export abstract class ScopedReads<T extends TenantEntity & ObjectLiteral> {
  constructor(
    protected readonly db: RowStore,
    protected readonly ctx: RequestContext,
    protected readonly target: EntityTarget<T>,
    /** The resource name used in 404 messages, e.g. "Individual". */
    readonly label: string,
  ) {}

  protected get repo(): Repository<T> {
    return this.db.managerOf(this.ctx).getRepository(this.target);
  }

  protected get siteId(): string {
    return this.ctx.siteId;
  }

  protected scope(where?: Where<T>): Where<T> {
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
    const reader = this.db.keptReader(this.ctx);
    const prepare = simple.prepare;
    // The anchor's values come first in the statement's text (its join), then the list's.
    const raw = await reader.read<Record<string, unknown>>(simple.rows, [...under.params, ...simple.params, ...simple.paging], prepare);
    const first = raw[0] ?? (await reader.read<Record<string, unknown>>(simple.anchor!, under.params))[0];
    const record = anchorOf(under.anchor, first);
    if (!record) throw new NotFoundError(anchor.label, anchor.id);
    const rows = hydrateRows<T>(metadata, raw);
    const counted = async () => Number((await reader.read<{ n: number | string }>(simple.count, simple.params, prepare))[0]?.n ?? 0);
    const total = totalFromPage(rows.length, options.take, options.skip) ?? (await counted());
    return { anchor: record, rows, total, joined: joined ? raw.map((r) => joinedOf(joined, r)) : [] };
  }

  /**
   * The answers of rows read through this repository, as `resource` writes them with `extras`,
   * each kept with its rendered texts in the record memo (src/http/wire/record-memo.ts,
   * docs/performance.md "Record memo"): a row read again unchanged, with the same variant, is
   * answered without building or rendering it again. `variantOf` gives, per row, everything its
   * answer takes from `extras` (a joined name); without it the answer must take nothing from them
   * that varies between calls.
   */
  answers<A extends object, X>(rows: readonly T[], resource: { toWire(row: T, extras?: X): A }, extras?: X, variantOf?: (row: T) => MemoVariant): A[] {
    const memo = this.db.answersFrom<A>(this.ctx, this.target, resource);
    return rows.map((row) => {
      const id = String(row.id);
      const variant = variantOf ? variantOf(row) : 0;
      return memo.answer(id, row, variant, () => resource.toWire(row, extras));
    });
  }

  private keptJoined(options: FindManyOptions<T>, joined: JoinedColumns): NonNullable<ReturnType<ScopedReads<T>['kept']>> {
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
   * context's connection: its rows, hydrated, and its count. Null for any other find. `lock`: its
   * rows read with `FOR UPDATE` (MySQL/MariaDB; SQLite's transaction holds the whole file).
   */
  private kept(
    options: FindManyOptions<T>,
    joined?: JoinedColumns,
    lock = false,
  ): { rows: () => Promise<T[]>; raw: () => Promise<Record<string, unknown>[]>; count: () => Promise<number> } | null {
    const metadata = this.db.metadataOf(this.target);
    const simple = compileSimpleFind(metadata, this.siteId, options, joined);
    if (!simple) return null;
    const reader = this.db.keptReader(this.ctx);
    const prepare = simple.prepare;
    const rowsSql = lock && !this.db.isSqlite ? `${simple.rows} FOR UPDATE` : simple.rows;
    const raw = () => reader.read<Record<string, unknown>>(rowsSql, [...simple.params, ...simple.paging], prepare);
    return {
      raw,
      rows: () => raw().then((rows) => hydrateRows<T>(metadata, rows)),
      count: () => reader.read<{ n: number | string }>(simple.count, simple.params, prepare).then(([counted]) => Number(counted?.n ?? 0)),
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

  protected async byId(id: string | number, forUpdate: boolean): Promise<T | null> {
    const metadata = this.db.metadataOf(this.target);
    const statements = byIdStatements(metadata);
    const statement = forUpdate && !this.db.isSqlite ? statements.lock : statements.read;
    const rows = await this.db.keptReader(this.ctx).read<Record<string, unknown>>(statement, [this.siteId, id]);
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
   *
   * A row this transaction has locked or written already is answered as the transaction kept it,
   * without a round trip, where every statement passes the journal (MySQL/MariaDB), which drops a
   * kept row when anything may have written it (transactions.ts, `forget`): a bulk chunk locks its
   * records ahead in one statement (`lockMany`) and its items' single writes find them here.
   */
  async lock(id: string | number): Promise<T> {
    this.db.assertInTransaction(this.ctx, 'lock');
    const journal = JOURNALS.get(this.ctx);
    const kept = journal?.tracked ? journal.rows.get(this.key(id)) : undefined;
    if (kept) return Object.assign(this.repo.metadata.create() as T, kept);
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
    const rows = await this.lockedWhere({ id: In(unique) } as unknown as FindOptionsWhere<T>);
    for (const row of rows) this.remember(row);
    return rows;
  }

  /**
   * The rows of the site matching `where`, locked (MySQL/MariaDB) and kept as the "before" of
   * their next change in this transaction (so an update that follows does not read them again).
   */
  async lockWhere(where: FindOptionsWhere<T>): Promise<T[]> {
    this.db.assertInTransaction(this.ctx, 'lockWhere');
    const rows = await this.lockedWhere(where);
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

  // ------------------------------------------------------------------ the journal (src/database/journal.ts)

  protected key(id: unknown): string {
    return `${this.repo.metadata.tableName}:${String(id)}`;
  }

  /** Keeps a copy of a row the transaction locked or wrote: the "before" of its next change. */
  protected remember(row: T): void {
    JOURNALS.get(this.ctx)?.rows.set(this.key(row.id), { ...row });
  }

  /**
   * The row as it stands before a change: as this transaction last locked or wrote it, else read
   * and locked now (MySQL/MariaDB; the UPDATE would take the same lock a moment later). 404 when
   * the record is not in the site.
   */
  protected async before(id: string | number): Promise<Record<string, unknown>> {
    const kept = JOURNALS.get(this.ctx)?.rows.get(this.key(id));
    if (kept) return kept;
    const row = await this.byId(id, true);
    if (!row) throw new NotFoundError(this.label, id);
    return { ...row };
  }

  /** The rows of the site matching `where`, locked (MySQL/MariaDB) for the bulk change that follows. */
  protected lockedWhere(where: FindOptionsWhere<T>): Promise<T[]> {
    // A simple find: its kept statement with `FOR UPDATE` (a bulk chunk locks its 250 records
    // ahead this way: TypeORM's query builder and its hydration cost several times the statement).
    const kept = this.kept({ where } as FindManyOptions<T>, undefined, true);
    if (kept) return kept.rows();
    return this.repo.find({ where: this.scope(where), ...(this.db.isSqlite ? {} : { lock: { mode: 'pessimistic_write' as const } }) });
  }

  protected async findByIdsChunked(ids: readonly (string | number)[]): Promise<T[]> {
    const out: T[] = [];
    for (let i = 0; i < ids.length; i += 500) out.push(...(await this.findByIds(ids.slice(i, i + 500))));
    return out;
  }

  /** Reports one changed row to the transaction's journal (a row before and after; null: none). */
  protected journal(before: Record<string, unknown> | null, after: Record<string, unknown> | null): void {
    const tx = journalChange(this.ctx, this.repo.metadata, before, after);
    if (!tx) return;
    const row = (after ?? before)!;
    if (after) tx.rows.set(this.key(row.id), { ...after });
    else tx.rows.delete(this.key(row.id));
  }
}
