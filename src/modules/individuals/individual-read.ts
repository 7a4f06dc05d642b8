import type { RequestContext } from '../../common/context/request-context.js';
import { boolOf, dateOf, placeholders } from '../../database/raw-reader.js';
import type { RowReader, TenantDb } from '../../database/tenant-db.js';
import type { MemoKind } from '../../database/record-memo.js';
import type { UserEntity } from '../../database/entities/user.entity.js';
import { hiddenIndividuals, overlayRights, type Rights } from '../../authorization/access.service.js';
import { LAST_COMMENT_COLUMNS, lastCommentJoins, lastCommentOf, type LastCommentColumns } from '../../database/queries/last-comment.js';
import { Individual, type IndividualDto } from './dto/individual.dto.js';
import type { IndividualEntity } from '../../database/entities/individual.entity.js';

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
] as const;

type Row = Record<(typeof COLUMNS)[number], unknown> &
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
 * The record memo's kind (src/database/record-memo.ts): every column an answer is built from,
 * taken from the same lists the SELECT is written from, so a column added there is compared too.
 * The manager chain only decides the rights, which are the memo's variant.
 */
export const INDIVIDUAL_MEMO: MemoKind = {
  columns: [...COLUMNS, ...[...DECORATIONS.matchAll(/ AS (\w+)/g)].map((m) => m[1])],
};

const JOINS =
  ' LEFT JOIN organizations o ON o.site_id = i.site_id AND o.id = i.primary_organization_id' +
  ' LEFT JOIN users u ON u.id = i.user_id AND u.site_id = i.site_id ' +
  lastCommentJoins('i');
const byId = (joins: string) => ' FROM individuals i' + joins + ' WHERE i.site_id = ? AND i.id = ?';

/** As an administrator (every right): the record and its decorations. */
const AS_ADMIN = SELECT + byId(JOINS);

/** How many managers above the record one statement looks at; deeper chains take a second query. */
const CHAIN_DEPTH = 8;
const CHAIN_JOINS = Array.from(
  { length: CHAIN_DEPTH },
  (_, k) => ` LEFT JOIN individuals m${k + 1} ON m${k + 1}.site_id = i.site_id AND m${k + 1}.id = ${k === 0 ? 'i' : `m${k}`}.primary_reports_to`,
).join('');
const CHAIN_COLUMNS = Array.from({ length: CHAIN_DEPTH }, (_, k) => `, m${k + 1}.id AS m${k + 1}`).join('') + `, m${CHAIN_DEPTH}.primary_reports_to AS beyond`;
/**
 * As anyone else: also the first managers above the record (primary-key lookups), to tell whether
 * the caller is one of them (CanUpdate).
 */
const AS_MEMBER = SELECT + CHAIN_COLUMNS + byId(JOINS + CHAIN_JOINS);
/**
 * Above the CHAIN_DEPTH-th manager: which of these managers have `managerId` at or above them,
 * walking up (bounded like AccessService.reportsTo), for all of a page's deep chains at once.
 */
const restOfChains = (n: number) =>
  `WITH RECURSIVE up(start, id, depth) AS (SELECT x.id, x.id, 1 FROM individuals x WHERE x.site_id = ? AND x.id IN (${placeholders(n)})` +
  ' UNION ALL SELECT up.start, x.primary_reports_to, up.depth + 1 FROM up CROSS JOIN individuals x' +
  ' WHERE x.site_id = ? AND x.id = up.id AND up.depth < 256) SELECT DISTINCT start FROM up WHERE id = ?';

const ORDER_BY = ' ORDER BY i.last_name, i.first_name, i.id';
const LIMIT = ' LIMIT ? OFFSET ?';
const DELETED = { 0: ' AND i.deleted = 0', 1: ' AND i.deleted = 1', 2: '' } as const;
/**
 * A page in the list's order (LastName, FirstName, ID), for each `deleted` filter and with `extra`
 * conditions, in one of two shapes that answer the same rows:
 * - `first` (offset 0): one join walked in the order of `ix_individuals_site_name`, which stops
 *   after the page's rows;
 * - `later`: the page's ids are cut from the index alone (no row read for the rows skipped), then
 *   the page's rows and decorations are joined to those ids only. Walking the join past 9,000
 *   skipped rows took 110 ms; this 17 ms (docs/performance.md).
 */
const pageOf = (asAdmin: boolean, d: 0 | 1 | 2, shape: 'first' | 'later', extra = '') => {
  const columns = asAdmin ? SELECT : SELECT + CHAIN_COLUMNS;
  const joins = asAdmin ? JOINS : JOINS + CHAIN_JOINS;
  const where = ' WHERE i.site_id = ?' + DELETED[d] + extra;
  if (shape === 'first') return columns + ' FROM individuals i' + joins + where + ORDER_BY + LIMIT;
  const ids = '(SELECT i.id FROM individuals i' + where + ORDER_BY + LIMIT + ') p';
  return columns + ' FROM ' + ids + ' JOIN individuals i ON i.id = p.id' + joins + ORDER_BY;
};
const DELETED_FILTERS = [0, 1, 2] as const;
const pagesOf = (asAdmin: boolean) => ({
  first: DELETED_FILTERS.map((d) => pageOf(asAdmin, d, 'first')),
  later: DELETED_FILTERS.map((d) => pageOf(asAdmin, d, 'later')),
});
const PAGE = {
  asAdmin: pagesOf(true),
  asMember: pagesOf(false),
  count: DELETED_FILTERS.map((d) => 'SELECT COUNT(*) AS n FROM individuals i WHERE i.site_id = ?' + DELETED[d]),
};

/**
 * One individual of the caller's site with everything its answer shows — organization name,
 * account, newest comment and the caller's rights — in one statement (one round trip), or null.
 *
 * `reports`: everyone below a non-administrator caller, when known (AccessService.keptReports);
 * the statement then leaves out the manager chain, which costs the database about half as much
 * again as the read itself (docs/performance.md, "Callers and managers' reports").
 */
export async function readIndividual(db: TenantDb, ctx: RequestContext, id: string, reports: ReadonlySet<string> | null = null): Promise<IndividualDto | null> {
  // A Deny on Read hides the record: for this caller it is not there (docs/authorization.md).
  if (hiddenIndividuals(ctx.user).includes(id)) return null;
  const reader = db.reader(ctx);
  const rows = await reader.rows<Row>(joinsChain(ctx, reports) ? AS_MEMBER : AS_ADMIN, [ctx.siteId, id]);
  return rows.length ? (await toDtos(db, reader, ctx, rows, reports))[0] : null;
}

/** Whether a read must join the manager chain to know the caller's rights (see `reports` above). */
function joinsChain(ctx: RequestContext, reports: ReadonlySet<string> | null): boolean {
  return !ctx.user.isAdmin && reports === null;
}

/**
 * A page of the site's individuals in the list's order (`deleted`: 0 live, 1 deleted, 2 all) and
 * their total: two statements whatever the page size (the page with its decorations, the count,
 * which a recent total of the site makes one: src/database/list-totals.ts), and a third only when
 * a non-administrator reads records more than eight managers below someone.
 */
export async function readIndividualPage(
  db: TenantDb,
  ctx: RequestContext,
  q: { deleted?: number; take: number; skip: number },
  reports: ReadonlySet<string> | null = null,
): Promise<{ items: IndividualDto[]; total: number }> {
  const reader = db.reader(ctx);
  const d = q.deleted === 1 || q.deleted === 2 ? q.deleted : 0;
  const shape = q.skip === 0 ? 'first' : 'later';
  const chain = joinsChain(ctx, reports);
  let page = (chain ? PAGE.asMember : PAGE.asAdmin)[shape][d];
  let count = PAGE.count[d];
  // Records a Deny on Read hides are left out in the statement itself, so pages stay full.
  const hidden = hiddenIndividuals(ctx.user);
  if (hidden.length) {
    const notHidden = ` AND i.id NOT IN (${placeholders(hidden.length)})`;
    page = pageOf(!chain, d, shape, notHidden);
    count += notHidden;
  }
  const counted = async () => Number((await reader.rows<{ n: number | string }>(count, [ctx.siteId, ...hidden], { prepare: hidden.length === 0 }))[0]?.n ?? 0);
  const [rows, total] = await Promise.all([
    reader.rows<Row>(page, [ctx.siteId, ...hidden, q.take, q.skip], { prepare: hidden.length === 0 }),
    // A total that leaves out records a Deny hides from this caller is counted every time.
    hidden.length ? counted() : db.listTotal(ctx, `individuals/${d}`, counted),
  ]);
  return { items: await toDtos(db, reader, ctx, rows, reports), total };
}

const ALL_RIGHTS = Object.freeze({ read: true, update: true, delete: true, delegate: true });
const READ_ONLY = Object.freeze({ read: true, update: false, delete: false, delegate: false });
const READ_UPDATE = Object.freeze({ read: true, update: true, delete: false, delegate: false });

/** The answers for rows read with SELECT (and CHAIN_COLUMNS for a non-administrator whose `reports` are not known). */
async function toDtos(db: TenantDb, reader: RowReader, ctx: RequestContext, rows: Row[], reports: ReadonlySet<string> | null): Promise<IndividualDto[]> {
  const me = ctx.user;
  let deep = new Set<string>();
  if (!me.isAdmin && me.individualId && reports === null) {
    const beyond = [...new Set(rows.filter((r) => r.beyond && r.id !== me.individualId && !managedWithin(r, me.individualId!)).map((r) => r.beyond!))];
    if (beyond.length) {
      const found = await reader.rows<{ start: string }>(restOfChains(beyond.length), [ctx.siteId, ...beyond, ctx.siteId, me.individualId], { prepare: false });
      deep = new Set(found.map((f) => f.start));
    }
  }
  // The same row read again with the same rights gives the same answer, kept with its rendered
  // texts (src/database/record-memo.ts).
  const memo = db.memo<IndividualDto>(INDIVIDUAL_MEMO);
  return rows.map((r) => {
    let rights: Rights = ALL_RIGHTS;
    if (!me.isAdmin) {
      const own =
        me.individualId !== null &&
        (r.id === me.individualId ||
          (reports !== null ? reports.has(r.id as string) : managedWithin(r, me.individualId) || (!!r.beyond && deep.has(r.beyond))));
      rights = overlayRights(me, r.id as string, own ? READ_UPDATE : READ_ONLY);
    }
    const id = r.id as string;
    const variant = rightsVariant(rights);
    return memo.answer(id, r, variant, () =>
      Individual.toWire(entityOf(r), {
        user: r.u_user_name === null ? null : ({ userName: r.u_user_name, email: r.u_email, isGlobalAdmin: boolOf(r.u_is_global_admin) } as UserEntity),
        organizationName: r.o_name,
        lastComment: lastCommentOf(r),
        rights,
      }),
    );
  });
}

/** The rights as the memo's variant: one bit each. */
function rightsVariant(r: Rights): number {
  return (r.read ? 1 : 0) | (r.update ? 2 : 0) | (r.delete ? 4 : 0) | (r.delegate ? 8 : 0);
}

/** Whether `managerId` is one of the first CHAIN_DEPTH managers above the row. */
function managedWithin(r: Row, managerId: string): boolean {
  for (let k = 1; k <= CHAIN_DEPTH; k++) if (r[`m${k}`] === managerId) return true;
  return false;
}

function entityOf(r: Row): IndividualEntity {
  return {
    id: r.id,
    siteId: r.site_id,
    userId: r.user_id,
    isAdmin: boolOf(r.is_admin),
    prefix: r.prefix,
    suffix: r.suffix,
    firstName: r.first_name,
    lastName: r.last_name,
    userDefined1: r.user_defined1,
    userDefined2: r.user_defined2,
    userDefined3: r.user_defined3,
    userDefined4: r.user_defined4,
    email: r.email,
    primaryOrganizationId: r.primary_organization_id,
    primaryTitle: r.primary_title,
    primaryReportsTo: r.primary_reports_to,
    hireDate: dateOf(r.hire_date as Date | string | null),
    sendEvalSurvey: boolOf(r.send_eval_survey),
    deleted: boolOf(r.deleted),
    deletedByRef: boolOf(r.deleted_by_ref),
    created: dateOf(r.created as Date | string),
    createdBy: r.created_by,
    updated: dateOf(r.updated as Date | string),
    updatedBy: r.updated_by,
    version: Number(r.version),
  } as IndividualEntity;
}

/** The statements, for tests that check their plans. */
export const INDIVIDUAL_READ_SQL = { asAdmin: AS_ADMIN, asMember: AS_MEMBER, page: PAGE } as const;
