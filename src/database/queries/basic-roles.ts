import type { RequestContext } from '../../common/context/request-context.js';
import type { TenantDb } from '../tenant-db.js';
import { family, placeholders } from '../statements.js';

/** One live individual of the site with the number of their live basic roles. */
export interface BasicRolesCountRow {
  individualId: string;
  firstName: string | null;
  lastName: string | null;
  basicRolesCount: number;
}

/** Individuals a Deny on Read hides, left out: `hidden` of them. */
const notHidden = (hidden: number) => (hidden ? ` AND i.id NOT IN (${placeholders(hidden)})` : '');

/** A page of the live individuals with their basic roles' count and the total on every row; `hidden`: how many are left out. */
const COUNTS = family(
  'basic-roles.counts-page',
  (hidden: number) => `SELECT i.id AS individualId, i.first_name AS firstName, i.last_name AS lastName,
          (SELECT COUNT(*) FROM basic_roles b
            WHERE b.site_id = i.site_id AND b.individual_id = i.id AND b.deleted = 0) AS basicRolesCount,
          COUNT(*) OVER () AS total
     FROM individuals i
    WHERE i.site_id = ? AND i.deleted = 0${notHidden(hidden)}
    ORDER BY i.last_name, i.first_name, i.id
    LIMIT ? OFFSET ?`,
  [[0], [2]],
).rows<{ individualId: string; firstName: string | null; lastName: string | null; basicRolesCount: number | string; total: number | string }>();

/** The number of live individuals (less `hidden` of them), for a page past the end. */
const TOTAL = family(
  'basic-roles.counts-total',
  (hidden: number) => `SELECT COUNT(*) AS total FROM individuals i WHERE i.site_id = ? AND i.deleted = 0${notHidden(hidden)}`,
  [[0], [2]],
).rows<{ total: number | string }>();

/**
 * `GET /sites/{siteid}/individuals/basicroles`: every live individual of the site with the count
 * of their live basic roles, ordered as the individual list (LastName, FirstName, ID), one page of
 * it — in one statement: the count is a correlated subquery on the (site, individual, deleted)
 * index, and `COUNT(*) OVER ()` carries the total number of live individuals on every row (window
 * functions: SQLite 3.25+, MySQL 8, MariaDB 10.2+). Only a page past the end, which has no row to
 * carry it, costs a second statement for the total.
 */
export async function basicRolesCounts(
  db: TenantDb,
  ctx: RequestContext,
  page: { take: number; skip: number },
  /** Individuals to leave out (those a Deny on Read hides from the caller, docs/authorization.md). */
  hidden: readonly string[] = [],
): Promise<{ rows: BasicRolesCountRow[]; total: number }> {
  const raw = await db.sql(ctx, COUNTS.of(hidden.length), [ctx.siteId, ...hidden, page.take, page.skip]);
  let total = raw.length > 0 ? Number(raw[0].total) : 0;
  if (raw.length === 0 && page.skip > 0) {
    const [row] = await db.sql(ctx, TOTAL.of(hidden.length), [ctx.siteId, ...hidden]);
    total = Number(row?.total ?? 0);
  }
  const rows = raw.map((r) => ({ individualId: r.individualId, firstName: r.firstName, lastName: r.lastName, basicRolesCount: Number(r.basicRolesCount) }));
  return { rows, total };
}

/** The live basic roles of `n` individuals, counted per individual (those without any have no row). */
const COUNTS_OF = family(
  'basic-roles.counts-of',
  (n: number) => `SELECT b.individual_id AS individualId, COUNT(*) AS n
     FROM basic_roles b
    WHERE b.site_id = ? AND b.deleted = 0 AND b.individual_id IN (${placeholders(n)})
    GROUP BY b.individual_id`,
  [[1], [3]],
).rows<{ individualId: string; n: number | string }>();

/**
 * The live basic roles of these individuals, counted per individual, for a queried page of
 * `GET /sites/{siteid}/individuals/basicroles` whose keys were read from the individuals (docs/queries.md):
 * one statement on the (site, individual, deleted) index for the page.
 */
export async function basicRolesCountsOf(db: TenantDb, ctx: RequestContext, individualIds: readonly string[]): Promise<Map<string, number>> {
  if (individualIds.length === 0) return new Map();
  const rows = await db.sql(ctx, COUNTS_OF.of(individualIds.length), [ctx.siteId, ...individualIds]);
  return new Map(rows.map((r) => [r.individualId, Number(r.n)]));
}
