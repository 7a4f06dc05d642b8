import type { RequestContext } from '../../common/context/request-context.js';
import { boolOf, dateOf } from '../../database/raw-reader.js';
import type { TenantDb } from '../../database/tenant-db.js';
import type { MemoKind } from '../../http/wire/record-memo.js';
import type { UserEntity } from '../../database/entities/user.entity.js';
import { hiddenIndividuals, overlayRights, type Rights } from '../../authorization/access.service.js';
import { lastCommentOf } from '../../database/queries/last-comment.js';
import {
  ANSWER_COLUMNS,
  CHAIN_DEPTH,
  chainsReaching,
  countIndividuals,
  individualPageRows,
  individualRows,
  individualRowsByIds,
  queriedIndividualRows,
  type IndividualRow as Row,
} from './individuals.statements.js';
import { Individual, type IndividualDto } from './dto/individual.dto.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { countQueried, type ListScope } from '../../database/list-query-sql.js';
import type { KeyValue, ListQuery } from '../../http/wire/list-query.js';

/**
 * The record memo's kind (src/http/wire/record-memo.ts): every column an answer is built from. The
 * manager chain only decides the rights, which are the memo's variant.
 */
export const INDIVIDUAL_MEMO: MemoKind = { columns: ANSWER_COLUMNS };

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
  const rows = await individualRows(db, ctx, id, joinsChain(ctx, reports));
  return rows.length ? (await toDtos(db, ctx, rows, reports))[0] : null;
}

/**
 * Individuals of the caller's site by id, each as `readIndividual` answers it (the ones a Deny on
 * Read hides, and ids of no record, left out): one statement for all of them.
 */
export async function readIndividuals(
  db: TenantDb,
  ctx: RequestContext,
  ids: readonly string[],
  reports: ReadonlySet<string> | null = null,
): Promise<Map<string, IndividualDto>> {
  const hidden = new Set(hiddenIndividuals(ctx.user));
  const wanted = ids.filter((id) => !hidden.has(id));
  if (!wanted.length) return new Map();
  const rows = await individualRowsByIds(db, ctx, wanted, joinsChain(ctx, reports));
  const dtos = await toDtos(db, ctx, rows, reports);
  return new Map(rows.map((r, k) => [r.id as string, dtos[k]]));
}

/** Whether a read must join the manager chain to know the caller's rights (see `reports` above). */
function joinsChain(ctx: RequestContext, reports: ReadonlySet<string> | null): boolean {
  return !ctx.user.isAdmin && reports === null;
}

/**
 * A page of the site's individuals in the list's order (`deleted`: 0 live, 1 deleted, 2 all) and
 * their total: two statements whatever the page size (the page with its decorations, the count,
 * which a recent total of the site makes one: src/database/caches/list-totals.ts), and a third only when
 * a non-administrator reads records more than eight managers below someone.
 */
export async function readIndividualPage(
  db: TenantDb,
  ctx: RequestContext,
  q: { deleted?: number; take: number; skip: number },
  reports: ReadonlySet<string> | null = null,
): Promise<{ items: IndividualDto[]; total: number }> {
  const d = q.deleted === 1 || q.deleted === 2 ? q.deleted : 0;
  // Records a Deny on Read hides are left out in the statement itself, so pages stay full.
  const hidden = hiddenIndividuals(ctx.user);
  const counted = () => countIndividuals(db, ctx, d, hidden);
  const [rows, total] = await Promise.all([
    individualPageRows(db, ctx, d, joinsChain(ctx, reports), hidden, q.take, q.skip),
    // A total that leaves out records a Deny hides from this caller is counted every time.
    hidden.length ? counted() : db.listTotal(ctx, `individuals/${d}`, counted),
  ]);
  return { items: await toDtos(db, ctx, rows, reports), total };
}

/** The list's own order, when a query names none: LastName (then FirstName), then ID. */
const BY_NAME = [{ field: Individual.queryable.get('lastname')!, desc: false }] as const;

/**
 * A page of a queried list of the site's individuals (docs/queries.md): `filter`, `sort` and
 * `cursor` applied in the database after the list's own scope — `deleted` and the records a Deny
 * on Read hides from the caller, so neither a page nor the total ever holds or counts them. The
 * page's keys are read through the index of its order (src/database/list-query-sql.ts) and its
 * rows with their decorations joined to them, in one statement; the total (kept like the plain
 * list's) only when paged by offset. `next`: the position after the page when another follows (keyset paging).
 */
export async function readQueriedIndividualPage(
  db: TenantDb,
  ctx: RequestContext,
  query: ListQuery,
  q: { deleted?: number; take: number; skip: number },
  reports: ReadonlySet<string> | null = null,
): Promise<{ items: IndividualDto[]; total: number; next: KeyValue[] | null }> {
  const d = q.deleted === 1 || q.deleted === 2 ? q.deleted : 0;
  const hidden = hiddenIndividuals(ctx.user);
  const scope: ListScope = { equal: d === 2 ? {} : { deleted: d === 1 }, notIn: [{ property: 'id', values: hidden }] };
  const [page, total] = await Promise.all([
    queriedIndividualRows(db, ctx, scope, query, BY_NAME, joinsChain(ctx, reports), q.take, q.skip),
    query.cursor === null ? countQueried(db, ctx, IndividualEntity, scope, query) : Promise.resolve(-1),
  ]);
  const { rows, keys } = page;
  return { items: await toDtos(db, ctx, rows, reports), total, next: keys.next };
}

const ALL_RIGHTS = Object.freeze({ read: true, update: true, delete: true, delegate: true });
const READ_ONLY = Object.freeze({ read: true, update: false, delete: false, delegate: false });
const READ_UPDATE = Object.freeze({ read: true, update: true, delete: false, delegate: false });

/** The answers for rows read with SELECT (and CHAIN_COLUMNS for a non-administrator whose `reports` are not known). */
async function toDtos(db: TenantDb, ctx: RequestContext, rows: Row[], reports: ReadonlySet<string> | null): Promise<IndividualDto[]> {
  const me = ctx.user;
  let deep = new Set<string>();
  if (!me.isAdmin && me.individualId && reports === null) {
    const beyond = [...new Set(rows.filter((r) => r.beyond && r.id !== me.individualId && !managedWithin(r, me.individualId!)).map((r) => r.beyond!))];
    if (beyond.length) deep = await chainsReaching(db, ctx, beyond, me.individualId);
  }
  // The same row read again with the same rights gives the same answer, kept with its rendered
  // texts (src/http/wire/record-memo.ts); an export's are built and not kept.
  const memo = db.answersOf<IndividualDto>(ctx, INDIVIDUAL_MEMO);
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
    externalId: r.external_id,
  } as IndividualEntity;
}
