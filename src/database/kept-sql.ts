import { type EntityMetadata, FindOperator, type FindManyOptions, type ObjectLiteral } from 'typeorm';
import { columnOf } from './hydrate.js';

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
  /** With an anchor: `SELECT a.id AS __anchor_id, … FROM <anchor> a WHERE <its conditions>`, for a page with no row. */
  anchor?: string;
  /**
   * Whether the statement is worth preparing on MySQL: not when an `IN` list's length makes its
   * text vary (MySQL keeps prepared statements per connection, up to a server-wide limit).
   */
  prepare: boolean;
}

/**
 * Columns of another tenant table's row that a record references, read with the record in the same
 * statement (docs/performance.md, "Kept statements"): `LEFT JOIN <table> j ON j.site_id = t.site_id
 * AND j.id = t.<by's column>`, selected as `__joined_<column>` with `__joined_id` (null where the
 * record references no row of the site).
 */
export interface JoinedColumns {
  table: string;
  columns: readonly string[];
  /** The record's property holding the joined row's id. */
  by: string;
}

/** The joined row's values of one raw row read with a JoinedColumns, by column; null when there was none. */
export function joinedOf(joined: JoinedColumns, row: Record<string, unknown>): Record<string, unknown> | null {
  if (row.__joined_id === null || row.__joined_id === undefined) return null;
  const out: Record<string, unknown> = { id: row.__joined_id };
  for (const c of joined.columns) out[c] = row[`__joined_${c}`];
  return out;
}

/**
 * The record a list hangs on (an individual's goals, the record a page of comments is on), read in
 * the list's own statement instead of by a check before it (docs/performance.md, "Lists under a
 * record"): `… JOIN <table> a ON a.site_id = ? AND a.id = ? [AND a.<column> = ?]` after the list's
 * own tables, its id and `columns` selected as `__anchor_id` and `__anchor_<column>` on every row;
 * an anchor read for its id alone is a subquery in the select list instead (null on every row when
 * the record is missing), which MariaDB evaluates once. The join is an inner one on the anchor's
 * primary key: the database reads the anchor once, as a constant, and walks the list's index in the
 * page's order as without it. No row (a missing anchor, or an empty page) tells nothing of the
 * anchor: SimpleFind.anchor reads it alone.
 */
export interface AnchorColumns {
  table: string;
  /** Columns of the anchor compared by equality, after its site and id (e.g. an organization's row type). */
  where: readonly string[];
  /** Columns of the anchor to read (e.g. an individual's names). */
  columns: readonly string[];
}

/** The anchor's values of one raw row read with an AnchorColumns; null when the row has none. */
export function anchorOf(anchor: AnchorColumns, row: Record<string, unknown> | undefined): Record<string, unknown> | null {
  if (!row || row.__anchor_id === null || row.__anchor_id === undefined) return null;
  const out: Record<string, unknown> = { id: row.__anchor_id };
  for (const c of anchor.columns) out[c] = row[`__anchor_${c}`];
  return out;
}

/**
 * The AnchorColumns of the record `id` of an anchor entity with these equality conditions (its
 * properties) and columns, and the values its statement binds (site, id, conditions); null when a
 * condition is not a plain column compared with a scalar.
 */
export function compileAnchor(
  metadata: EntityMetadata,
  siteId: string,
  id: string | number,
  where: Readonly<Record<string, unknown>> = {},
  columns: readonly string[] = [],
): { anchor: AnchorColumns; params: unknown[] } | null {
  const params: unknown[] = [siteId, id];
  const compared: string[] = [];
  for (const property in where) {
    const column = columnOf(metadata, property);
    const value = where[property];
    if (!column || column.relationMetadata || column.embeddedMetadata || property === 'siteId' || !isScalar(value)) return null;
    compared.push(column.databaseName);
    params.push(paramOf(value));
  }
  return { anchor: { table: metadata.tableName, where: compared, columns }, params };
}

interface KeptFind {
  rows: string;
  count: string;
  anchor?: string;
  prepare: boolean;
}
/** Per entity: the statements of each shape, or null for a shape that is not simple after all (a relation's property). */
const STATEMENTS = new WeakMap<EntityMetadata, Map<string, KeptFind | null>>();
/** Shapes kept per entity at most: a shape is the set of columns compared, never their values. */
export const MAX_SHAPES = 200;

type Kind = 'eq' | 'null' | 'in' | '<' | '<=' | '>' | '>=';
type Condition = { column: string; kind: Kind; size: number };

/** The range operators a kept read compares with (TypeORM's `LessThan`, `MoreThanOrEqual`, …). */
const RANGES: Partial<Record<string, Kind>> = { lessThan: '<', lessThanOrEqual: '<=', moreThan: '>', moreThanOrEqual: '>=' };

/**
 * The kept statements of a simple find, bound to its values. The shape's key is read off the
 * options as they come (property names, kinds, directions, how many paging values), so a shape
 * seen before costs a walk over the options and one lookup; its columns are resolved only the
 * first time.
 */
export function compileSimpleFind<T extends ObjectLiteral>(
  metadata: EntityMetadata,
  siteId: string,
  options: FindManyOptions<T>,
  joined?: JoinedColumns,
  anchor?: AnchorColumns,
): SimpleFind | null {
  const opts = options as Record<string, unknown>;
  for (const key in opts) {
    if (key !== 'where' && key !== 'order' && key !== 'take' && key !== 'skip' && opts[key] !== undefined) return null;
  }
  const where = options.where;
  if (Array.isArray(where) || (where !== undefined && (typeof where !== 'object' || where === null))) return null;
  const params: unknown[] = [siteId];
  let shape = '';
  const w = (where ?? {}) as Record<string, unknown>;
  for (const property in w) {
    const value = w[property];
    if (value === undefined) continue;
    if (property === 'siteId') return null;
    const kind = conditionOf(value, params, true);
    if (kind === null) return null;
    shape += `${property}:${kind},`;
  }
  shape += '|';
  const order = (options.order ?? {}) as Record<string, unknown>;
  for (const property in order) {
    const direction = order[property];
    if (direction === undefined) continue;
    const dir = typeof direction === 'string' ? direction.toUpperCase() : null;
    if (dir !== 'ASC' && dir !== 'DESC') return null;
    shape += `${property} ${dir},`;
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
  shape += `|${paging.length}`;
  if (joined) shape += `|${joined.table}.${joined.by}:${joined.columns.join(',')}`;
  if (anchor) shape += `|under ${anchor.table}:${anchor.where.join(',')}:${anchor.columns.join(',')}`;

  let shapes = STATEMENTS.get(metadata);
  if (!shapes) STATEMENTS.set(metadata, (shapes = new Map()));
  let statements = shapes.get(shape);
  if (statements === undefined) {
    statements = buildFind(metadata, w, order, paging.length, joined, anchor);
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(shape, statements);
  }
  return statements && { rows: statements.rows, count: statements.count, anchor: statements.anchor, params, paging, prepare: statements.prepare };
}

/** The statements of a shape, its columns resolved from the entity; null when one is not a plain column. */
function buildFind(
  metadata: EntityMetadata,
  where: Record<string, unknown>,
  order: Record<string, unknown>,
  pagingValues: number,
  joined: JoinedColumns | undefined,
  anchor: AnchorColumns | undefined,
): KeptFind | null {
  const conditions = conditionsOf(metadata, where, [], false);
  if (!conditions) return null;
  const orderBy: [string, string][] = [];
  for (const [property, direction] of Object.entries(order)) {
    if (direction === undefined) continue;
    const column = columnOf(metadata, property);
    if (!column || column.relationMetadata || column.embeddedMetadata) return null;
    orderBy.push([column.databaseName, String(direction).toUpperCase()]);
  }
  let join: { column: string; joined: JoinedColumns } | undefined;
  if (joined) {
    const by = columnOf(metadata, joined.by);
    if (!by || by.relationMetadata || by.embeddedMetadata) return null;
    join = { column: by.databaseName, joined };
  }
  return { ...build(metadata, conditions, orderBy, pagingValues, join, anchor), prepare: !conditions.some((c) => c.kind === 'in') };
}

function build(
  metadata: EntityMetadata,
  conditions: Condition[],
  order: [string, string][],
  pagingValues: number,
  join?: { column: string; joined: JoinedColumns },
  anchor?: AnchorColumns,
): { rows: string; count: string; anchor?: string } {
  const driver = metadata.connection.driver;
  const q = (name: string) => driver.escape(name);
  const table = q(metadata.tableName);
  const where = (col: (name: string) => string) => [`${col('site_id')} = ?`, ...predicatesOf(col, conditions)].join(' AND ');
  const listIndex = driver.options.type === 'mysql' || driver.options.type === 'mariadb' ? listIndexOf(metadata, conditions, order) : null;
  const hint = listIndex ? ` FORCE INDEX (${q(listIndex)})` : '';
  const count = `SELECT COUNT(*) AS n FROM ${table}${hint} WHERE ${where(q)}`;
  // With a join every column of the record is qualified by its alias, `t`.
  const col = join || anchor ? (name: string) => `t.${q(name)}` : q;
  let columns = metadata.columns
    .filter((c) => c.isSelect !== false)
    .map((c) => col(c.databaseName))
    .join(', ');
  let from = (join || anchor ? `${table} t` : table) + hint;
  if (join) {
    columns += [`j.${q('id')} AS ${q('__joined_id')}`, ...join.joined.columns.map((c) => `j.${q(c)} AS ${q(`__joined_${c}`)}`)].map((c) => `, ${c}`).join('');
    from += ` LEFT JOIN ${q(join.joined.table)} j ON j.${q('site_id')} = t.${q('site_id')} AND j.${q('id')} = t.${q(join.column)}`;
  }
  let anchorAlone: string | undefined;
  if (anchor) {
    const anchorColumns = [`a.${q('id')} AS ${q('__anchor_id')}`, ...anchor.columns.map((c) => `a.${q(c)} AS ${q(`__anchor_${c}`)}`)].join(', ');
    const anchorIs = ['site_id', 'id', ...anchor.where].map((c) => `a.${q(c)} = ?`).join(' AND ');
    anchorAlone = `SELECT ${anchorColumns} FROM ${q(anchor.table)} a WHERE ${anchorIs}`;
    if (anchor.columns.length === 0) {
      // Its id alone: a subquery of no correlation, evaluated once per statement, costs MariaDB
      // less than a join (docs/performance.md, "Lists under a record").
      columns += `, (${anchorAlone}) AS ${q('__anchor_id')}`;
    } else {
      columns += `, ${anchorColumns}`;
      // An inner join: MariaDB reads the record once while planning (a `const` table) and drops
      // it from the join; as an outer join's inner table it was looked up again for every row
      // (docs/performance.md, "Lists under a record").
      from += ` JOIN ${q(anchor.table)} a ON ${anchorIs}`;
    }
  }
  const orderBy = order.length ? ` ORDER BY ${order.map(([c, dir]) => `${col(c)} ${dir}`).join(', ')}` : '';
  const limit = pagingValues === 0 ? '' : pagingValues === 1 ? ' LIMIT ?' : ' LIMIT ? OFFSET ?';
  return { rows: `SELECT ${columns} FROM ${from} WHERE ${where(col)}${orderBy}${limit}`, count, anchor: anchorAlone };
}

/**
 * The index that answers a list exactly (docs/performance.md, "The list's own index"): its first
 * columns are the site and the columns compared by equality, in any order, and the next ones the
 * order's columns in sequence, one direction for all (the primary key may be left implicit, as
 * InnoDB ends every secondary index with it). MariaDB would choose it anyway; named with `FORCE
 * INDEX`, it is the only one the optimizer estimates, instead of diving into every index that starts
 * with `site_id` too, a cost that grows with the site's rows (a page of 21 comments, with 100,000
 * other comments in the site: 144 → 128 µs of MariaDB per statement). Null when no index fits, the
 * find has no order, or a condition is not an equality.
 */
function listIndexOf(metadata: EntityMetadata, conditions: Condition[], order: [string, string][]): string | null {
  if (order.length === 0 || conditions.some((c) => c.kind !== 'eq') || new Set(order.map(([, dir]) => dir)).size > 1) return null;
  const equal = new Set(['site_id', ...conditions.map((c) => c.column)]);
  const primary = metadata.primaryColumns.map((c) => c.databaseName);
  for (const index of metadata.indices) {
    if (!index.name) continue;
    const columns = index.columns.map((c) => c.databaseName);
    if (columns.length < equal.size || !columns.slice(0, equal.size).every((c) => equal.has(c))) continue;
    const rest = [...columns.slice(equal.size), ...primary.filter((c) => !columns.includes(c))];
    if (order.every(([c], k) => rest[k] === c)) return index.name;
  }
  return null;
}

/**
 * The kind of one condition's value, its values pushed to `params`: equality with a scalar,
 * `IsNull()`, `In([...])` of scalars (`in<length>`), and with `ranges` (reads) `LessThan` &c. of
 * a scalar or a Date; null for anything else.
 */
function conditionOf(value: unknown, params: unknown[], ranges: boolean): string | null {
  if (value instanceof FindOperator) {
    if (value.type === 'isNull') return 'null';
    if (value.useParameter === false) return null;
    if (value.type === 'in') {
      if (!Array.isArray(value.value)) return null;
      const list = value.value as unknown[];
      if (!list.every(isScalar)) return null;
      for (const v of list) params.push(paramOf(v));
      return `in${list.length}`;
    }
    const range = ranges ? RANGES[value.type] : undefined;
    const bound = value.value as unknown;
    if (range === undefined || !(isScalar(bound) || isInstant(bound))) return null;
    params.push(paramOf(bound));
    return range;
  }
  if (!isScalar(value)) return null;
  params.push(paramOf(value));
  return 'eq';
}

/**
 * The conditions of a `where` (equality, `IS NULL`, `IN` and, for reads, ranges on columns),
 * their values pushed to `params`; null when one is anything else. `withSite`: the site is one of
 * them (writes); otherwise a site condition is refused, since the statement adds the caller's own
 * (reads).
 */
export function conditionsOf(metadata: EntityMetadata, where: Record<string, unknown>, params: unknown[], withSite: boolean): Condition[] | null {
  const conditions: Condition[] = [];
  for (const [property, value] of Object.entries(where)) {
    if (value === undefined) continue;
    const column = columnOf(metadata, property);
    if (!column || column.relationMetadata || column.embeddedMetadata) return null;
    if (property === 'siteId' && !withSite) return null;
    const kind = conditionOf(value, params, !withSite);
    if (kind === null) return null;
    const size = kind.startsWith('in') ? (value as FindOperator<unknown[]>).value.length : 0;
    conditions.push({ column: column.databaseName, kind: (kind.startsWith('in') ? 'in' : kind) as Kind, size });
  }
  return conditions;
}

export function predicatesOf(q: (name: string) => string, conditions: readonly Condition[]): string[] {
  return conditions.map((c) =>
    c.kind === 'eq'
      ? `${q(c.column)} = ?`
      : c.kind === 'null'
        ? `${q(c.column)} IS NULL`
        : c.kind !== 'in'
          ? `${q(c.column)} ${c.kind} ?`
          : c.size === 0
            ? '1 = 0'
            : `${q(c.column)} IN (${new Array<string>(c.size).fill('?').join(', ')})`,
  );
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';
}

/** A Date in the years 1000-9999, the instants the columns hold and `paramOf` writes in 23 characters. */
export function isInstant(v: unknown): v is Date {
  if (!(v instanceof Date)) return false;
  const year = v.getUTCFullYear();
  return year >= 1000 && year <= 9999;
}

/**
 * Booleans as 1/0: how both databases store them (better-sqlite3 binds no booleans). An instant
 * as `YYYY-MM-DD HH:MM:SS.mmm` in UTC: how both store a datetime (TypeORM binds a Date so on
 * SQLite, and mysql2 with `timezone: 'Z'` so on MySQL/MariaDB).
 */
function paramOf(v: string | number | boolean | Date): string | number {
  if (v instanceof Date) return v.toISOString().slice(0, 23).replace('T', ' ');
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
