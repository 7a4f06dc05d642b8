import { type EntityMetadata, FindOperator, type FindManyOptions, type ObjectLiteral, type QueryRunner } from 'typeorm';

/**
 * Statements kept per entity and shape (docs/performance.md, "Kept statements"): the reads and
 * writes nearly every route makes, built once instead of through TypeORM's query builder on every
 * call. Anything they do not cover answers null and runs through TypeORM as before.
 *
 * The statements of a simple `find`/`findAndCount` of one tenant table. A simple find is what
 * nearly every list of the service asks: equality, `IsNull()` and `In([...])` conditions on columns, an order of
 * columns, a page (`take`/`skip`). Anything else (relations, `select`, other operators, OR lists,
 * a bare null, which TypeORM refuses) answers null and runs through TypeORM's query builder as before.
 */
export interface SimpleFind {
  /** `SELECT <columns> FROM t WHERE site_id = ? AND … ORDER BY … [LIMIT ? [OFFSET ?]]` */
  rows: string;
  /** `SELECT COUNT(*) AS n FROM t WHERE site_id = ? AND …` */
  count: string;
  /** The values of the WHERE: the site first. */
  params: unknown[];
  /** The values of LIMIT and OFFSET, after `params`. */
  paging: number[];
}

const ALLOWED_OPTIONS = new Set(['where', 'order', 'take', 'skip']);
const STATEMENTS = new WeakMap<EntityMetadata, Map<string, { rows: string; count: string }>>();
/** Shapes kept per entity at most: a shape is the set of columns compared, never their values. */
const MAX_SHAPES = 200;

type Condition = { column: string; kind: 'eq' | 'null' | 'in'; size: number };

export function compileSimpleFind<T extends ObjectLiteral>(metadata: EntityMetadata, siteId: string, options: FindManyOptions<T>): SimpleFind | null {
  for (const key of Object.keys(options)) {
    if (!ALLOWED_OPTIONS.has(key) && (options as Record<string, unknown>)[key] !== undefined) return null;
  }
  const where = options.where;
  if (Array.isArray(where) || (where !== undefined && (typeof where !== 'object' || where === null))) return null;
  const params: unknown[] = [siteId];
  const conditions = conditionsOf(metadata, (where ?? {}) as Record<string, unknown>, params, false);
  if (!conditions) return null;
  const order: string[] = [];
  for (const [property, direction] of Object.entries((options.order ?? {}) as Record<string, unknown>)) {
    if (direction === undefined) continue;
    const column = metadata.findColumnWithPropertyName(property);
    if (!column || column.relationMetadata || column.embeddedMetadata) return null;
    const dir = typeof direction === 'string' ? direction.toUpperCase() : null;
    if (dir !== 'ASC' && dir !== 'DESC') return null;
    order.push(`${metadata.connection.driver.escape(column.databaseName)} ${dir}`);
  }
  const take = options.take;
  const skip = options.skip;
  if (take !== undefined && !(Number.isSafeInteger(take) && take >= 0)) return null;
  if (skip !== undefined && !(Number.isSafeInteger(skip) && skip >= 0)) return null;
  // MySQL has no OFFSET without LIMIT: leave that rare shape to TypeORM.
  if (skip && take === undefined) return null;
  const paging: number[] = [];
  if (take !== undefined) paging.push(take);
  if (take !== undefined && skip) paging.push(skip);

  const shape = `${conditions.map((c) => `${c.column}:${c.kind}${c.size}`).join(',')}|${order.join(',')}|${paging.length}`;
  let shapes = STATEMENTS.get(metadata);
  if (!shapes) STATEMENTS.set(metadata, (shapes = new Map()));
  let statements = shapes.get(shape);
  if (!statements) {
    statements = build(metadata, conditions, order, paging.length);
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(shape, statements);
  }
  return { ...statements, params, paging };
}

/** The entities of rows read with {@link compileSimpleFind}, hydrated as TypeORM hydrates them. */
export function hydrateRows<T>(metadata: EntityMetadata, rows: Record<string, unknown>[]): T[] {
  const driver = metadata.connection.driver;
  const columns = metadata.columns.filter((c) => c.isSelect !== false);
  return rows.map((row) => {
    const entity = metadata.create() as T;
    for (const column of columns) column.setEntityValue(entity as ObjectLiteral, driver.prepareHydratedValue(row[column.databaseName], column));
    return entity;
  });
}

function build(metadata: EntityMetadata, conditions: Condition[], order: string[], pagingValues: number): { rows: string; count: string } {
  const driver = metadata.connection.driver;
  const q = (name: string) => driver.escape(name);
  const columns = metadata.columns
    .filter((c) => c.isSelect !== false)
    .map((c) => q(c.databaseName))
    .join(', ');
  const predicates = [`${q('site_id')} = ?`, ...predicatesOf(q, conditions)];
  const from = `FROM ${q(metadata.tableName)} WHERE ${predicates.join(' AND ')}`;
  const orderBy = order.length ? ` ORDER BY ${order.join(', ')}` : '';
  const limit = pagingValues === 0 ? '' : pagingValues === 1 ? ' LIMIT ?' : ' LIMIT ? OFFSET ?';
  return { rows: `SELECT ${columns} ${from}${orderBy}${limit}`, count: `SELECT COUNT(*) AS n ${from}` };
}

/**
 * The conditions of a `where` (equality, `IsNull()`, `In([...])` on columns), their values pushed
 * to `params`; null when one is anything else. `withSite`: the site is one of them (writes);
 * otherwise a site condition is refused, since the statement adds the caller's own (reads).
 */
function conditionsOf(metadata: EntityMetadata, where: Record<string, unknown>, params: unknown[], withSite: boolean): Condition[] | null {
  const conditions: Condition[] = [];
  for (const [property, value] of Object.entries(where)) {
    if (value === undefined) continue;
    const column = metadata.findColumnWithPropertyName(property);
    if (!column || column.relationMetadata || column.embeddedMetadata) return null;
    if (property === 'siteId' && !withSite) return null;
    if (value instanceof FindOperator && value.type === 'isNull') {
      conditions.push({ column: column.databaseName, kind: 'null', size: 0 });
    } else if (value instanceof FindOperator) {
      if (value.type !== 'in' || !Array.isArray(value.value) || value.useParameter === false) return null;
      const list = value.value as unknown[];
      if (!list.every(isScalar)) return null;
      conditions.push({ column: column.databaseName, kind: 'in', size: list.length });
      for (const v of list) params.push(paramOf(v));
    } else if (isScalar(value)) {
      conditions.push({ column: column.databaseName, kind: 'eq', size: 0 });
      params.push(paramOf(value));
    } else {
      return null;
    }
  }
  return conditions;
}

function predicatesOf(q: (name: string) => string, conditions: readonly Condition[]): string[] {
  return conditions.map((c) =>
    c.kind === 'eq'
      ? `${q(c.column)} = ?`
      : c.kind === 'null'
        ? `${q(c.column)} IS NULL`
        : c.size === 0
          ? '1 = 0'
          : `${q(c.column)} IN (${new Array<string>(c.size).fill('?').join(', ')})`,
  );
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';
}

/** Booleans as 1/0: how both databases store them (better-sqlite3 binds no booleans). */
function paramOf(v: string | number | boolean): string | number {
  return typeof v === 'boolean' ? (v ? 1 : 0) : v;
}

/**
 * The total of a page without counting, when the page itself tells it: a page shorter than asked
 * ends the list (and is not empty, or starts at the top). Null when only a COUNT can tell.
 */
export function totalFromPage(found: number, take: number | undefined, skip: number | undefined): number | null {
  const offset = skip ?? 0;
  if (take !== undefined && found >= take) return null;
  if (found === 0 && offset > 0) return null;
  return offset + found;
}

const INSERTS = new WeakMap<EntityMetadata, Map<string, string>>();
const UPDATES = new WeakMap<EntityMetadata, Map<string, string>>();

/** A value a kept write binds as it is: no SQL expression (a function), no find operator, no plain object. */
function isBindable(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof Date || Buffer.isBuffer(v);
}

function kept(cache: WeakMap<EntityMetadata, Map<string, string>>, metadata: EntityMetadata, shape: string, build: () => string): string {
  let shapes = cache.get(metadata);
  if (!shapes) cache.set(metadata, (shapes = new Map()));
  let sql = shapes.get(shape);
  if (sql === undefined) {
    sql = build();
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(shape, sql);
  }
  return sql;
}

/**
 * `INSERT INTO t (<the columns the entity sets>) VALUES (?, …)` and its values, converted as
 * TypeORM converts them (`preparePersistentValue`), kept per entity and set of columns; null
 * when a value is not a plain one (TypeORM's query builder then writes it).
 */
export function keptInsert(metadata: EntityMetadata, entity: ObjectLiteral): { sql: string; params: unknown[] } | null {
  const driver = metadata.connection.driver;
  const columns = metadata.columns.filter((c) => entity[c.propertyName] !== undefined);
  const params: unknown[] = [];
  for (const c of columns) {
    if (c.relationMetadata || c.embeddedMetadata) return null;
    const value = entity[c.propertyName] as unknown;
    if (!isBindable(value)) return null;
    params.push(driver.preparePersistentValue(value, c));
  }
  const shape = columns.map((c) => c.databaseName).join(',');
  const sql = kept(INSERTS, metadata, shape, () => {
    const names = columns.map((c) => driver.escape(c.databaseName)).join(', ');
    return `INSERT INTO ${driver.escape(metadata.tableName)} (${names}) VALUES (${columns.map(() => '?').join(', ')})`;
  });
  return { sql, params };
}

/**
 * `UPDATE t SET <columns> = ?, …, version = version + 1 WHERE <conditions>` and its values: the
 * set values converted as TypeORM converts them, the conditions equality or `In` on columns (the
 * site among them). Null when a value or a condition is not a plain one.
 */
export function keptUpdate(metadata: EntityMetadata, set: Record<string, unknown>, where: Record<string, unknown>): { sql: string; params: unknown[] } | null {
  const driver = metadata.connection.driver;
  const setColumns: string[] = [];
  const params: unknown[] = [];
  for (const [property, value] of Object.entries(set)) {
    const column = metadata.findColumnWithPropertyName(property);
    if (!column || column.relationMetadata || column.embeddedMetadata || !isBindable(value)) return null;
    setColumns.push(column.databaseName);
    params.push(driver.preparePersistentValue(value, column));
  }
  const conditions = conditionsOf(metadata, where, params, true);
  if (!conditions) return null;
  if (!conditions.some((c) => c.column === 'site_id')) return null;
  const shape = `${setColumns.join(',')}|${conditions.map((c) => `${c.column}:${c.kind}${c.size}`).join(',')}`;
  const sql = kept(UPDATES, metadata, shape, () => {
    const q = (name: string) => driver.escape(name);
    const assignments = [...setColumns.map((c) => `${q(c)} = ?`), `${q('version')} = ${q('version')} + 1`];
    return `UPDATE ${q(metadata.tableName)} SET ${assignments.join(', ')} WHERE ${predicatesOf(q, conditions).join(' AND ')}`;
  });
  return { sql, params };
}

/**
 * Tells the data source's subscribers of a kept write, as TypeORM's query builder would have
 * (`afterInsert`/`afterUpdate`): the caller cache, for one, listens for writes to the tables that
 * decide who a caller is (src/database/caller-cache.ts).
 */
export async function announceWrite(
  event: 'afterInsert' | 'afterUpdate',
  metadata: EntityMetadata,
  queryRunner: QueryRunner,
  entity?: ObjectLiteral,
): Promise<void> {
  const connection = metadata.connection;
  for (const subscriber of connection.subscribers) {
    const listener = subscriber[event] as ((e: unknown) => unknown) | undefined;
    if (!listener) continue;
    const target = subscriber.listenTo?.() as unknown;
    if (
      target &&
      target !== metadata.target &&
      !(typeof metadata.target === 'function' && metadata.target.prototype instanceof (target as { new (): unknown }))
    )
      continue;
    await listener.call(subscriber, { connection, queryRunner, manager: queryRunner.manager, entity, metadata });
  }
}
