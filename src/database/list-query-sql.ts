import { type EntityMetadata, type EntityTarget, In, type ObjectLiteral } from 'typeorm';
import type { RequestContext } from '../common/context/request-context.js';
import { ValidationError } from '../common/errors/errors.js';
import type { Condition, KeyValue, ListQuery, QueryableField } from '../http/wire/list-query.js';
import { columnOf } from './hydrate.js';
import { familyWithParams, placeholders, type Statement } from './statements.js';
import type { TenantDb } from './tenant-db.js';
import type { TenantEntity } from './entities/base.entity.js';

/**
 * A list's `filter=`, `sort=` and `cursor=` in SQL (docs/queries.md): the kept statement builder of
 * queried lists. A checked ListQuery (src/http/wire/list-query.ts) becomes two statements of the
 * `lists.*` families — the page's keys (ID and sort values) and the count — over one tenant table,
 * `site_id = ?` first, then the list's own scope (its `deleted`, the records a Deny hides from the
 * caller), then the filter, then the cursor's keyset condition. Table and column names come from the
 * entity's metadata, operators from a fixed table; every value is bound as a parameter. A feature
 * reads the page's rows by those IDs, with whatever its answer joins.
 *
 * Text is filtered case-insensitively (MySQL/MariaDB's `_ci` collation; `COLLATE NOCASE` and
 * SQLite's ASCII-case-insensitive `LIKE` on SQLite); `co`, `sw`, `ew` are `LIKE` with `!` as escape.
 * Pages are ordered in the column's collation, the order its index holds (case-insensitive on
 * MySQL/MariaDB, binary on SQLite), and a cursor's keyset compares in that same collation.
 */

/**
 * The list's own conditions before the query: equality on properties, one of several sets of
 * equalities (`anyOf`: an individual's dialogs, those they lead or those about them), a property
 * among values (`in`: the scopes of the projects the caller owns), and IDs left out.
 */
export interface ListScope {
  /**
   * The table is not a tenant table (the sites themselves): no `site_id` condition, so the scope's
   * own conditions are the whole rule (`GET /v4/sites`: every site for a global administrator, the
   * caller's own by `equal: { id }` for anyone else). Never set on a tenant table.
   */
  readonly global?: boolean;
  readonly equal?: Readonly<Record<string, string | number | boolean>>;
  readonly in?: { readonly property: string; readonly values: readonly (string | number)[] };
  readonly anyOf?: readonly Readonly<Record<string, string | number | boolean>>[];
  readonly notIn?: readonly { readonly property: string; readonly values: readonly unknown[] }[];
}

/** A column of the page's order. */
interface OrderColumn {
  column: string;
  desc: boolean;
  nullable: boolean;
  /** Read back as a date (SQLite answers dates as text). */
  date?: boolean;
}

/** What the `lists.*` families build a statement from: fragments made here from declarations only. */
export interface ListPlan {
  table: string;
  /** The WHERE after `t.site_id = ?`: ` AND …` fragments with `?` placeholders. */
  where: string;
  order: readonly OrderColumn[];
  sqlite: boolean;
  /** Not a tenant table (ListScope.global): no `t.site_id = ?` first. */
  global?: boolean;
  /**
   * MySQL/MariaDB: the index that reads the page in its order (`USE INDEX`), when the page has no
   * filter (see `orderIndex`).
   */
  index?: string;
}

const ESCAPE = " ESCAPE '!'";
const likeEscape = (s: string) => s.replace(/[!%_]/g, (c) => `!${c}`);

/** A value as both drivers bind it: dates as `YYYY-MM-DD HH:MM:SS.SSS` (UTC), booleans as 0/1. */
function paramOf(v: KeyValue | undefined): unknown {
  if (v instanceof Date) return v.toISOString().slice(0, 23).replace('T', ' ');
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v ?? null;
}

function column(metadata: EntityMetadata, property: string): string {
  const c = columnOf(metadata, property);
  if (!c || c.relationMetadata || c.embeddedMetadata) throw new Error(`${metadata.tableName}: ${property} is not a plain column`);
  return `t.${c.databaseName}`;
}

/** The SQL of a checked filter, its values pushed onto `params`. */
function conditionSql(metadata: EntityMetadata, node: Condition, params: unknown[], sqlite: boolean): string {
  switch (node.op) {
    case 'and':
    case 'or':
      return `(${node.of.map((c) => conditionSql(metadata, c, params, sqlite)).join(node.op === 'and' ? ' AND ' : ' OR ')})`;
    case 'not':
      // Never NULL inside NOT: a comparison with a NULL column counts as false, and so is left out.
      return `(NOT COALESCE(${conditionSql(metadata, node.of, params, sqlite)}, 0))`;
    case 'pr': {
      const c = column(metadata, node.field.property);
      return node.field.kind === 'string' ? `(${c} IS NOT NULL AND ${c} <> '')` : `${c} IS NOT NULL`;
    }
    default:
      return comparisonSql(column(metadata, node.field.property), node.field, node.op, node.value, params, sqlite);
  }
}

function comparisonSql(c: string, f: QueryableField, op: string, value: KeyValue, params: unknown[], sqlite: boolean): string {
  if (value === null) return op === 'eq' ? `${c} IS NULL` : `${c} IS NOT NULL`;
  const nocase = sqlite && f.kind === 'string' ? ' COLLATE NOCASE' : '';
  const bind = (v: unknown) => {
    params.push(v);
    return '?';
  };
  switch (op) {
    case 'eq':
      return `${c} = ${bind(paramOf(value))}${nocase}`;
    case 'ne':
      return f.nullable ? `(${c} IS NULL OR ${c} <> ${bind(paramOf(value))}${nocase})` : `${c} <> ${bind(paramOf(value))}${nocase}`;
    case 'co':
      return `${c} LIKE ${bind(`%${likeEscape(String(value))}%`)}${ESCAPE}`;
    case 'sw':
      return `${c} LIKE ${bind(`${likeEscape(String(value))}%`)}${ESCAPE}`;
    case 'ew':
      return `${c} LIKE ${bind(`%${likeEscape(String(value))}`)}${ESCAPE}`;
    case 'gt':
      return `${c} > ${bind(paramOf(value))}${nocase}`;
    case 'ge':
      return `${c} >= ${bind(paramOf(value))}${nocase}`;
    case 'lt':
      return `${c} < ${bind(paramOf(value))}${nocase}`;
    case 'le':
      return `${c} <= ${bind(paramOf(value))}${nocase}`;
    default:
      throw new Error(`operator ${op}`);
  }
}

/**
 * The property that identifies a row within its site: the primary column that is not `site_id` —
 * `id` for every record, `seq` for the audit trail (keyed by site and sequence number).
 */
export function keyPropertyOf(metadata: EntityMetadata): string {
  const keys = metadata.primaryColumns.filter((c) => c.databaseName !== 'site_id');
  if (keys.length !== 1) throw new Error(`${metadata.tableName}: a queried list needs one key column besides site_id`);
  return keys[0].propertyName;
}

/**
 * The columns of the page's order: each sort key's column and the columns its index continues
 * with (`then`), then the row's key (keyPropertyOf: the ID), which makes the order total (a keyset
 * needs one). `fallback` is the list's own order, used when the request names none.
 */
function orderOf(metadata: EntityMetadata, query: ListQuery, fallback: readonly { field: QueryableField; desc: boolean }[]): OrderColumn[] {
  const keys = query.sort.length ? query.sort : fallback;
  const out: OrderColumn[] = [];
  const seen = new Set<string>();
  const push = (property: string) => {
    const c = columnOf(metadata, property);
    if (!c || c.relationMetadata || c.embeddedMetadata) throw new Error(`${metadata.tableName}: ${property} is not a plain column`);
    const name = `t.${c.databaseName}`;
    if (seen.has(name)) return;
    seen.add(name);
    const type = typeof c.type === 'string' ? c.type.toLowerCase() : c.type === String ? 'varchar' : c.type === Date ? 'datetime' : '';
    out.push({ column: name, desc, nullable: c.isNullable, date: /date|time/.test(type) });
  };
  let desc = false;
  for (const k of keys) {
    desc = k.desc;
    push(k.field.property);
    for (const p of k.field.then) push(p);
  }
  push(keyPropertyOf(metadata));
  return out;
}

/**
 * The index of the table that holds a page's rows in its order: its columns `site_id`, then every
 * equality of the scope, then the order's columns (the primary key last, as InnoDB appends it to
 * every index), all in one direction. Named to MySQL/MariaDB in the keys' statement (`USE INDEX`)
 * when the page has no filter and its scope no `in` or `anyOf`: then no other index can read it
 * better, and without the hint the
 * optimizer weighs every index that starts with `site_id` on each statement — on a site of
 * 1,000,000 people 1.1–1.6 ms of the optimizer's for a cursor page's ranges, against 0.25 ms with
 * it, and the reading itself 0.1 ms (docs/queries.md, "Cost"). Null when no index fits (the
 * optimizer chooses, as before).
 */
function orderIndex(metadata: EntityMetadata, scope: ListScope, order: readonly OrderColumn[]): string | undefined {
  if (order.some((o) => o.desc !== order[0].desc)) return undefined;
  const equal = new Set(Object.keys(scope.equal ?? {}).map((p) => columnOf(metadata, p)?.databaseName));
  const wanted = order.map((o) => o.column.slice(2));
  const key = metadata.primaryColumns.map((c) => c.databaseName);
  for (const index of metadata.indices) {
    const columns = index.columns.map((c) => c.databaseName);
    if (columns[0] !== 'site_id' || !index.name) continue;
    let i = 1;
    while (i < columns.length && equal.has(columns[i])) i++;
    // Every equality of the scope in the index's first columns: no other index could read fewer rows.
    if (i - 1 !== equal.size) continue;
    const rest = columns.slice(i);
    const read = [...rest, ...key.filter((k) => !rest.includes(k))];
    if (wanted.every((c, j) => read[j] === c)) return index.name;
  }
  return undefined;
}

/** The keyset condition of a cursor: rows strictly after `position` in `order`. */
function keysetSql(order: readonly OrderColumn[], position: readonly KeyValue[], params: unknown[]): string {
  // A cursor is bound to its list and query (CursorCodec), so this is only one made by another
  // version of the service whose order had other keys: the client's to start again, never a 500.
  if (position.length !== order.length)
    throw new ValidationError([{ field: 'cursor', message: 'The cursor does not fit this list’s order: start again with cursor=start' }]);
  const ors: string[] = [];
  for (let i = 0; i < order.length; i++) {
    const o = order[i];
    const v = position[i];
    // NULL sorts first ascending and last descending, on both databases: nothing follows a NULL descending.
    if (v === null && o.desc) continue;
    const own: unknown[] = [];
    const parts = order.slice(0, i).map((p, j) => {
      const w = position[j];
      if (w === null) return `${p.column} IS NULL`;
      own.push(paramOf(w));
      return `${p.column} = ?`;
    });
    if (v === null) {
      parts.push(`${o.column} IS NOT NULL`);
    } else {
      own.push(paramOf(v));
      const cmp = `${o.column} ${o.desc ? '<' : '>'} ?`;
      parts.push(o.desc && o.nullable ? `(${cmp} OR ${o.column} IS NULL)` : cmp);
    }
    ors.push(`(${parts.join(' AND ')})`);
    params.push(...own);
  }
  return ors.length ? `(${ors.join(' OR ')})` : '1 = 0';
}

/**
 * The site parameter a list's statement starts with, or none for a global scope. A global scope on
 * a table that has a `site_id` column would list every tenant's rows: that is refused here, in
 * code, not left to the feature that builds the scope.
 */
function tenantParams(ctx: RequestContext, metadata: EntityMetadata, scope: ListScope): unknown[] {
  if (!scope.global) return [ctx.siteId];
  if (metadata.columns.some((c) => c.databaseName === 'site_id')) {
    throw new Error(`ListScope.global on ${metadata.tableName}, a tenant table: its lists are scoped to the caller's site`);
  }
  return [];
}

/** The tenant condition a list starts with: the caller's site, or none on a global table (its scope says the rule). */
const tenantSql = (plan: Pick<ListPlan, 'global'>) => (plan.global ? '1 = 1' : 't.site_id = ?');

const orderBySql = (order: readonly OrderColumn[]) => order.map((o) => `${o.column}${o.desc ? ' DESC' : ''}`).join(', ');

/** The keys of a page: the IDs and order values of its rows, in the page's order. */
const PAGE_KEYS = familyWithParams(
  'lists.page-keys',
  (plan: ListPlan, params: unknown[], offset: boolean) => ({
    text:
      `SELECT ${plan.order.map((o, i) => `${o.column} AS k${i}`).join(', ')} FROM ${plan.table} t${plan.index && !plan.sqlite ? ` USE INDEX (${plan.index})` : ''} WHERE ${tenantSql(plan)}${plan.where}` +
      ` ORDER BY ${orderBySql(plan.order)} LIMIT ?${offset ? ' OFFSET ?' : ''}`,
    params,
  }),
  [
    [
      {
        table: 'individuals',
        where: " AND t.deleted = ? AND (t.last_name LIKE ? ESCAPE '!')",
        order: [
          { column: 't.last_name', desc: false, nullable: false },
          { column: 't.first_name', desc: false, nullable: false },
          { column: 't.id', desc: false, nullable: false },
        ],
        sqlite: false,
      },
      [],
      true,
    ],
    [
      {
        table: 'individuals',
        where: ' AND t.deleted = ? AND ((t.hire_date < ?) OR (t.hire_date = ? AND t.id < ?))',
        order: [
          { column: 't.hire_date', desc: true, nullable: true },
          { column: 't.id', desc: true, nullable: false },
        ],
        sqlite: false,
      },
      [],
      false,
    ],
    [
      {
        table: 'individuals',
        where: ' AND t.deleted = ? AND ((t.last_name > ?) OR (t.last_name = ? AND t.first_name > ?) OR (t.last_name = ? AND t.first_name = ? AND t.id > ?))',
        order: [
          { column: 't.last_name', desc: false, nullable: false },
          { column: 't.first_name', desc: false, nullable: false },
          { column: 't.id', desc: false, nullable: false },
        ],
        sqlite: false,
        index: 'ix_individuals_site_name',
      },
      [],
      false,
    ],
  ],
).rows<Record<string, unknown>>();

/** The number of rows a filter selects in the list's scope. */
const COUNT = familyWithParams(
  'lists.count',
  (plan: Pick<ListPlan, 'table' | 'where' | 'global'>, params: unknown[]) => ({
    text: `SELECT COUNT(*) AS n FROM ${plan.table} t WHERE ${tenantSql(plan)}${plan.where}`,
    params,
  }),
  [[{ table: 'individuals', where: " AND t.deleted = ? AND (t.last_name LIKE ? ESCAPE '!')" }, []]],
).rows<{ n: number | string }>();

function scopeSql(metadata: EntityMetadata, scope: ListScope, params: unknown[]): string {
  let where = '';
  for (const [property, value] of Object.entries(scope.equal ?? {})) {
    where += ` AND ${column(metadata, property)} = ?`;
    params.push(paramOf(value));
  }
  if (scope.in) {
    where += scope.in.values.length ? ` AND ${column(metadata, scope.in.property)} IN (${placeholders(scope.in.values.length)})` : ' AND 1 = 0';
    params.push(...scope.in.values);
  }
  if (scope.anyOf?.length) {
    const alternatives = scope.anyOf.map((equal) =>
      Object.entries(equal)
        .map(([property, value]) => {
          params.push(paramOf(value));
          return `${column(metadata, property)} = ?`;
        })
        .join(' AND '),
    );
    where += ` AND (${alternatives.map((a) => `(${a})`).join(' OR ')})`;
  }
  for (const { property, values } of scope.notIn ?? []) {
    if (!values.length) continue;
    where += ` AND ${column(metadata, property)} NOT IN (${placeholders(values.length)})`;
    params.push(...values);
  }
  return where;
}

/** One page of a queried list: its rows' IDs in order, and the cursor position after its last row (null when none follows). */
export interface PageKeys<I> {
  ids: I[];
  next: KeyValue[] | null;
}

/**
 * The keys of one page of a queried list of `metadata`'s table in the caller's site: `take` rows in
 * the query's order (or `fallback`, the list's own), after the cursor's position or `skip` rows.
 * Reads one row more than the page to know whether another follows.
 */
export async function readPageKeys<I = string>(
  db: TenantDb,
  ctx: RequestContext,
  entity: EntityTarget<ObjectLiteral>,
  scope: ListScope,
  query: ListQuery,
  fallback: readonly { field: QueryableField; desc: boolean }[],
  take: number,
  skip: number,
): Promise<PageKeys<I>> {
  const keys = pageKeysOf(db, ctx, entity, scope, query, fallback, take, skip);
  const rows = await db.reader(ctx).rows(keys.statement, keys.params);
  return pageOfKeys<I>(keys, rows, take);
}

/**
 * The statement of a page's keys (see readPageKeys), not run: for a feature whose statements file
 * joins its answer's rows to it in one statement (`FROM (<keys>) p JOIN …`, ordered by `orderBy`
 * over the `k0…` columns), read back with pageOfKeys. The keys are `k0 … k<n-1>`, the ID last.
 */
export interface KeysStatement {
  readonly statement: Statement<Record<string, unknown>>;
  readonly params: unknown[];
  /** The ORDER BY of the page over the derived table `p`'s key columns: `p.k0 DESC, p.k1 DESC`. */
  readonly orderBy: string;
  /** How many key columns (the ID is `k<count-1>`). */
  readonly count: number;
  /** Which key columns are dates (read back as Date). */
  readonly dates: readonly boolean[];
}

export function pageKeysOf(
  db: TenantDb,
  ctx: RequestContext,
  entity: EntityTarget<ObjectLiteral>,
  scope: ListScope,
  query: ListQuery,
  fallback: readonly { field: QueryableField; desc: boolean }[],
  take: number,
  skip: number,
): KeysStatement {
  const metadata = db.metadataOf(entity);
  const sqlite = db.isSqlite;
  const params = tenantParams(ctx, metadata, scope);
  let where = scopeSql(metadata, scope, params);
  if (query.filter) where += ` AND ${conditionSql(metadata, query.filter, params, sqlite)}`;
  const order = orderOf(metadata, query, fallback);
  if (Array.isArray(query.cursor)) where += ` AND ${keysetSql(order, query.cursor, params)}`;
  // After a cursor's position too: an export reads ahead that way (READ_AHEAD in src/http/wire/list-query.ts).
  const offset = query.cursor !== 'start' && skip > 0;
  params.push(take + 1);
  if (offset) params.push(skip);
  const index = query.filter || sqlite || scope.global || scope.in || scope.anyOf?.length ? undefined : orderIndex(metadata, scope, order);
  const bound = PAGE_KEYS.of({ table: metadata.tableName, where, order, sqlite, global: scope.global, index }, params, offset);
  return {
    statement: bound.statement,
    params: bound.params,
    orderBy: order.map((o, i) => `p.k${i}${o.desc ? ' DESC' : ''}`).join(', '),
    count: order.length,
    dates: order.map((o) => !!o.date),
  };
}

/** The page of rows read with a KeysStatement (`k0…` among their columns): their IDs and the position after the page. */
export function pageOfKeys<I = string>(keys: Pick<KeysStatement, 'count' | 'dates'>, rows: readonly object[], take: number): PageKeys<I> {
  const keyed = rows as readonly Record<string, unknown>[];
  const page = keyed.slice(0, take);
  const last = page[page.length - 1];
  return {
    ids: page.map((r) => r[`k${keys.count - 1}`] as I),
    next: keyed.length > take && last ? keys.dates.map((date, i) => keyOf(last[`k${i}`], date)) : null,
  };
}

/**
 * The number of rows a queried list selects in the caller's site (its scope and filter; no cursor),
 * reused for LIST_TOTAL_CACHE_MS unless the site was written since, as a plain list's total is.
 */
export function countQueried(db: TenantDb, ctx: RequestContext, entity: EntityTarget<ObjectLiteral>, scope: ListScope, query: ListQuery): Promise<number> {
  const count = () => countNow(db, ctx, entity, scope, query);
  // A total that leaves out records a Deny hides from this caller is counted every time; any other
  // is kept like the plain list's (src/database/caches/list-totals.ts), by its scope and query.
  if (scope.notIn?.some((n) => n.values.length)) return count();
  // A global table's total is not the caller's site's to keep: another site's writes change it.
  if (scope.global) return count();
  return db.listTotal(
    ctx,
    `query:${db.metadataOf(entity).tableName}:${JSON.stringify(scope.equal ?? {})}${scope.anyOf ? JSON.stringify(scope.anyOf) : ''}${scope.in ? JSON.stringify(scope.in) : ''}:${query.binding}`,
    count,
  );
}

async function countNow(db: TenantDb, ctx: RequestContext, entity: EntityTarget<ObjectLiteral>, scope: ListScope, query: ListQuery): Promise<number> {
  const metadata = db.metadataOf(entity);
  const params = tenantParams(ctx, metadata, scope);
  let where = scopeSql(metadata, scope, params);
  if (query.filter) where += ` AND ${conditionSql(metadata, query.filter, params, db.isSqlite)}`;
  const rows = await db.reader(ctx).rows(...spread(COUNT.of({ table: metadata.tableName, where, global: scope.global }, params)));
  return Number(rows[0]?.n ?? 0);
}

/**
 * A page of a queried list of one table's records, for a list whose answer is its rows
 * (`Resource.toWire`): the page's keys (readPageKeys), then its rows by ID through the scoped
 * repository (a global scope, the sites: the global reader, which adds no site), in the page's
 * order; the total counted when paged by offset (-1 with a cursor).
 */
export async function readQueriedRows<E extends ObjectLiteral & { id: string | number }>(
  db: TenantDb,
  ctx: RequestContext,
  entity: EntityTarget<E>,
  scope: ListScope,
  query: ListQuery,
  fallback: readonly { field: QueryableField; desc: boolean }[],
  take: number,
  skip: number,
): Promise<{ rows: E[]; total: number; next: KeyValue[] | null }> {
  const [keys, total] = await Promise.all([
    readPageKeys<string | number>(db, ctx, entity, scope, query, fallback, take, skip),
    query.cursor === null ? countQueried(db, ctx, entity, scope, query) : Promise.resolve(-1),
  ]);
  const byIds = { where: { id: In(keys.ids as unknown[]) } as never };
  const found: E[] = !keys.ids.length
    ? []
    : scope.global
      ? await db.global(ctx, entity).find(byIds)
      : await db.repo(ctx, entity as EntityTarget<E & TenantEntity>).find(byIds);
  const byId = new Map(found.map((r) => [String(r.id), r]));
  const rows = keys.ids.map((id) => byId.get(String(id))).filter((r) => r !== undefined) as E[];
  return { rows, total, next: keys.next };
}

/**
 * Every record a query selects in the caller's site, in its order, in batches of `batch` read by
 * keyset: a batch's two statements at a time, memory for one batch, and nothing more read once the
 * caller stops iterating. Records written meanwhile follow the cursor's rules (docs/queries.md).
 * (The streamed exports do not read through it: they run the list's own method by cursor, so every
 * list's rights and decorations are its own; docs/exports.md.)
 */
export async function* queriedBatches<E extends TenantEntity & { id: string | number }>(
  db: TenantDb,
  ctx: RequestContext,
  entity: EntityTarget<E>,
  scope: ListScope,
  query: ListQuery,
  fallback: readonly { field: QueryableField; desc: boolean }[],
  batch = 1000,
): AsyncGenerator<E[]> {
  let at: ListQuery = { ...query, cursor: 'start' };
  for (;;) {
    const page = await readQueriedRows(db, ctx, entity, scope, at, fallback, batch, 0);
    if (page.rows.length) yield page.rows;
    if (!page.next) return;
    at = { ...query, cursor: page.next };
  }
}

function spread<R>(b: { statement: Statement<R>; params: unknown[] }): [Statement<R>, unknown[]] {
  return [b.statement, b.params];
}

/** A key value as a cursor keeps it: dates as Date (SQLite answers them as text). */
function keyOf(v: unknown, date: boolean | undefined): KeyValue {
  if (v === undefined || v === null) return null;
  if (v instanceof Date || typeof v === 'number' || typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return Number(v);
  const s = String(v);
  if (date) return new Date(s.includes('T') || s.endsWith('Z') ? s : s.replace(' ', 'T') + 'Z');
  return s;
}
