import type { RequestContext } from '../../common/context/request-context.js';
import type { TenantDb } from '../../database/tenant-db.js';
import { family, familyWithParams, placeholders, sql } from '../../database/statements.js';
import { type KeysStatement, pageKeysOf, pageOfKeys, type ListScope, type PageKeys } from '../../database/list-query-sql.js';
import type { ListQuery, QueryableField } from '../../http/wire/list-query.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { LAST_COMMENT_COLUMNS, lastCommentJoins, type LastCommentColumns } from '../../database/queries/last-comment.js';

/**
 * The statements of an individual's answer (individual-read.ts maps their rows and works out the
 * caller's rights): the record with its organization's name, its account and its newest comment,
 * and for a caller who is no administrator the first CHAIN_DEPTH managers above it, in one
 * statement for one record and one for a page (docs/performance.md, "Callers and managers' reports").
 */

/** The columns of `individuals` as IndividualEntity names them. */
const COLUMNS = [
  'id',
  'site_id',
  'user_id',
  'is_admin',
  'prefix',
  'suffix',
  'first_name',
  'last_name',
  'user_defined1',
  'user_defined2',
  'user_defined3',
  'user_defined4',
  'email',
  'primary_organization_id',
  'primary_title',
  'primary_reports_to',
  'hire_date',
  'send_eval_survey',
  'deleted',
  'deleted_by_ref',
  'created',
  'created_by',
  'updated',
  'updated_by',
  'version',
  'external_id',
] as const;

/** A row of these statements. */
export type IndividualRow = Record<(typeof COLUMNS)[number], unknown> &
  LastCommentColumns & {
    o_name: string | null;
    u_user_name: string | null;
    u_email: string | null;
    u_is_global_admin: unknown;
    beyond?: string | null;
  } & Record<`m${number}`, string | null | undefined>;

/** The organization, account and newest comment of each record, as `expression AS name`. */
const DECORATIONS = 'o.name AS o_name, u.user_name AS u_user_name, u.email AS u_email, u.is_global_admin AS u_is_global_admin, ' + LAST_COMMENT_COLUMNS;
const SELECT = `SELECT ${COLUMNS.map((c) => `i.${c}`).join(', ')}, ${DECORATIONS}`;

/**
 * Every column an answer is built from (the record memo's kind, individual-read.ts), taken from the
 * same lists the SELECT is written from, so a column added there is compared too. The manager
 * chain only decides the rights.
 */
export const ANSWER_COLUMNS: readonly string[] = [...COLUMNS, ...[...DECORATIONS.matchAll(/ AS (\w+)/g)].map((m) => m[1])];

const JOINS =
  ' LEFT JOIN organizations o ON o.site_id = i.site_id AND o.id = i.primary_organization_id' +
  ' LEFT JOIN users u ON u.id = i.user_id AND u.site_id = i.site_id ' +
  lastCommentJoins('i');
const byId = (joins: string) => ' FROM individuals i' + joins + ' WHERE i.site_id = ? AND i.id = ?';

/** How many managers above the record one statement looks at; deeper chains take a second query. */
export const CHAIN_DEPTH = 8;
const CHAIN_JOINS = Array.from(
  { length: CHAIN_DEPTH },
  (_, k) => ` LEFT JOIN individuals m${k + 1} ON m${k + 1}.site_id = i.site_id AND m${k + 1}.id = ${k === 0 ? 'i' : `m${k}`}.primary_reports_to`,
).join('');
const CHAIN_COLUMNS = Array.from({ length: CHAIN_DEPTH }, (_, k) => `, m${k + 1}.id AS m${k + 1}`).join('') + `, m${CHAIN_DEPTH}.primary_reports_to AS beyond`;

/** As an administrator (every right): the record and its decorations. */
const AS_ADMIN = sql<IndividualRow>('individuals.read-as-admin', SELECT + byId(JOINS));
/**
 * As anyone else: also the first managers above the record (primary-key lookups), to tell whether
 * the caller is one of them (CanUpdate).
 */
const AS_MEMBER = sql<IndividualRow>('individuals.read-as-member', SELECT + CHAIN_COLUMNS + byId(JOINS + CHAIN_JOINS));

/**
 * Several records by id (a bulk chunk's records, read ahead for the items that may find them
 * unchanged: docs/bulk.md, "Round trips"), as the by-id statements read one, in any order.
 */
const MANY = family(
  'individuals.read-many',
  (asMember: boolean, n: number) =>
    (asMember ? SELECT + CHAIN_COLUMNS : SELECT) +
    ' FROM individuals i' +
    (asMember ? JOINS + CHAIN_JOINS : JOINS) +
    ` WHERE i.site_id = ? AND i.id IN (${placeholders(n)})`,
  [
    [false, 2],
    [true, 2],
  ],
).rows<IndividualRow>();

/**
 * Above the CHAIN_DEPTH-th manager: which of `n` managers have a given manager at or above them,
 * walking up (bounded like AccessService.reportsTo), for all of a page's deep chains at once.
 */
const BEYOND = family(
  'individuals.beyond-chains',
  (n: number) =>
    `WITH RECURSIVE up(start, id, depth) AS (SELECT x.id, x.id, 1 FROM individuals x WHERE x.site_id = ? AND x.id IN (${placeholders(n)})` +
    ' UNION ALL SELECT up.start, x.primary_reports_to, up.depth + 1 FROM up CROSS JOIN individuals x' +
    ' WHERE x.site_id = ? AND x.id = up.id AND up.depth < 256) SELECT DISTINCT start FROM up WHERE id = ?',
  [[2]],
).rows<{ start: string }>();

/** The `deleted` filter of a list: 0 live, 1 deleted, 2 all. */
export type DeletedFilter = 0 | 1 | 2;
const ORDER_BY = ' ORDER BY i.last_name, i.first_name, i.id';
const LIMIT = ' LIMIT ? OFFSET ?';
const DELETED = { 0: ' AND i.deleted = 0', 1: ' AND i.deleted = 1', 2: '' } as const;
/** Records a Deny on Read hides are left out in the statement itself, so pages stay full: `n` of them. */
const notHidden = (n: number) => (n ? ` AND i.id NOT IN (${placeholders(n)})` : '');

/**
 * A page in the list's order (LastName, FirstName, ID), for each `deleted` filter and with `hidden`
 * records left out, in one of two shapes that answer the same rows:
 * - `first` (offset 0): one join walked in the order of `ix_individuals_site_name`, which stops
 *   after the page's rows;
 * - `later`: the page's ids are cut from the index alone (no row read for the rows skipped), then
 *   the page's rows and decorations are joined to those ids only. Walking the join past 9,000
 *   skipped rows took 110 ms; this 17 ms (docs/performance.md).
 * A page without hidden records is one of twelve texts, each kept prepared.
 */
const PAGE = family(
  'individuals.page',
  (asMember: boolean, d: DeletedFilter, shape: 'first' | 'later', hidden: number) => {
    const columns = asMember ? SELECT + CHAIN_COLUMNS : SELECT;
    const joins = asMember ? JOINS + CHAIN_JOINS : JOINS;
    const where = ' WHERE i.site_id = ?' + DELETED[d] + notHidden(hidden);
    if (shape === 'first') return columns + ' FROM individuals i' + joins + where + ORDER_BY + LIMIT;
    const ids = '(SELECT i.id FROM individuals i' + where + ORDER_BY + LIMIT + ') p';
    return columns + ' FROM ' + ids + ' JOIN individuals i ON i.id = p.id' + joins + ORDER_BY;
  },
  [
    [false, 0, 'first', 0],
    [false, 0, 'later', 0],
    [true, 1, 'first', 0],
    [true, 2, 'later', 2],
  ],
  { prepared: (_asMember, _d, _shape, hidden) => hidden === 0 },
).rows<IndividualRow>();

/** The number of records of a list, `hidden` of them left out. */
const COUNT = family(
  'individuals.count',
  (d: DeletedFilter, hidden: number) => 'SELECT COUNT(*) AS n FROM individuals i WHERE i.site_id = ?' + DELETED[d] + notHidden(hidden),
  [
    [0, 0],
    [2, 2],
  ],
  { prepared: (_d, hidden) => hidden === 0 },
).rows<{ n: number | string }>();

/**
 * A page of a queried list (docs/queries.md) in one statement: the page's keys, selected by the
 * data floor's builder from the list's scope, filter, order and cursor (src/database/list-query-sql.ts),
 * as a derived table the records and their decorations are joined to by primary key, in the
 * page's order; the keys `k0…` come along for the next page's cursor.
 */
const QUERIED_PAGE = familyWithParams(
  'individuals.queried-page',
  (asMember: boolean, keys: { text: string; params: unknown[]; orderBy: string; count: number }, siteId: string) => ({
    text:
      (asMember ? SELECT + CHAIN_COLUMNS : SELECT) +
      Array.from({ length: keys.count }, (_, i) => `, p.k${i} AS k${i}`).join('') +
      ` FROM (${keys.text}) p JOIN individuals i ON i.site_id = ? AND i.id = p.k${keys.count - 1}` +
      (asMember ? JOINS + CHAIN_JOINS : JOINS) +
      ` ORDER BY ${keys.orderBy}`,
    params: [...keys.params, siteId],
  }),
  [
    [
      false,
      {
        text: "SELECT t.last_name AS k0, t.first_name AS k1, t.id AS k2 FROM individuals t WHERE t.site_id = ? AND t.deleted = ? AND t.last_name LIKE ? ESCAPE '!' ORDER BY t.last_name, t.first_name, t.id LIMIT ?",
        params: [],
        orderBy: 'p.k0, p.k1, p.k2',
        count: 3,
      },
      '',
    ],
  ],
).rows<IndividualRow & Record<`k${number}`, unknown>>();

/**
 * A page of a queried list of the site's individuals in one statement (QUERIED_PAGE): its rows in
 * order, with the manager chains when `chain`, and the position after it when another follows.
 */
export async function queriedIndividualRows(
  db: TenantDb,
  ctx: RequestContext,
  scope: ListScope,
  query: ListQuery,
  fallback: readonly { field: QueryableField; desc: boolean }[],
  chain: boolean,
  take: number,
  skip: number,
): Promise<{ rows: IndividualRow[]; keys: PageKeys<string> }> {
  const keys: KeysStatement = pageKeysOf(db, ctx, IndividualEntity, scope, query, fallback, take, skip);
  const bound = QUERIED_PAGE.of(chain, { text: keys.statement.text, params: keys.params, orderBy: keys.orderBy, count: keys.count }, ctx.siteId);
  const rows = await db.reader(ctx).rows(bound.statement, bound.params);
  return { rows: rows.slice(0, take), keys: pageOfKeys<string>(keys, rows, take) };
}

/** One record of the caller's site (none: []), with the manager chain when `chain`. */
export function individualRows(db: TenantDb, ctx: RequestContext, id: string, chain: boolean): Promise<IndividualRow[]> {
  return db.reader(ctx).rows(chain ? AS_MEMBER : AS_ADMIN, [ctx.siteId, id]);
}

/** The records with these ids (see MANY), with the manager chains when `chain`. */
export function individualRowsByIds(db: TenantDb, ctx: RequestContext, ids: readonly string[], chain: boolean): Promise<IndividualRow[]> {
  return db.reader(ctx).rows(MANY.of(chain, ids.length), [ctx.siteId, ...ids]);
}

/** A page of the site's records (see PAGE), the `hidden` ones left out, with the manager chains when `chain`. */
export function individualPageRows(
  db: TenantDb,
  ctx: RequestContext,
  deleted: DeletedFilter,
  chain: boolean,
  hidden: readonly string[],
  take: number,
  skip: number,
): Promise<IndividualRow[]> {
  const page = PAGE.of(chain, deleted, skip === 0 ? 'first' : 'later', hidden.length);
  return db.reader(ctx).rows(page, [ctx.siteId, ...hidden, take, skip]);
}

/** The number of records of the site's list, the `hidden` ones left out. */
export async function countIndividuals(db: TenantDb, ctx: RequestContext, deleted: DeletedFilter, hidden: readonly string[]): Promise<number> {
  return Number((await db.reader(ctx).rows(COUNT.of(deleted, hidden.length), [ctx.siteId, ...hidden]))[0]?.n ?? 0);
}

/** Which of these managers (the first above CHAIN_DEPTH of some records) have `managerId` at or above them. */
export async function chainsReaching(db: TenantDb, ctx: RequestContext, beyond: readonly string[], managerId: string): Promise<Set<string>> {
  const found = await db.reader(ctx).rows(BEYOND.of(beyond.length), [ctx.siteId, ...beyond, ctx.siteId, managerId]);
  return new Set(found.map((f) => f.start));
}

/** The by-id statements, for tests that check their plans. */
export const INDIVIDUAL_READ_SQL = { asAdmin: AS_ADMIN, asMember: AS_MEMBER } as const;
