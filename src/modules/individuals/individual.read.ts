import type { RequestContext } from '../../common/context/request-context.js';
import { boolOf, dateOf, RawReader } from '../../database/raw-reader.js';
import type { TenantDb } from '../../database/tenant-db.js';
import type { UserEntity } from '../auth/user.entity.js';
import { LAST_COMMENT_COLUMNS, lastCommentJoins, lastCommentOf, type LastCommentColumns } from '../comments/last-comment.query.js';
import { IndividualDto } from './dto/individual.dto.js';
import type { IndividualEntity } from './individual.entity.js';

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
] as const;

type Row = Record<(typeof COLUMNS)[number], unknown> &
  LastCommentColumns & {
    o_name: string | null;
    u_user_name: string | null;
    u_email: string | null;
    u_is_global_admin: unknown;
    beyond?: string | null;
  } & Record<`m${number}`, string | null | undefined>;

const SELECT =
  `SELECT ${COLUMNS.map((c) => `i.${c}`).join(', ')}, o.name AS o_name, u.user_name AS u_user_name, u.email AS u_email,` +
  ` u.is_global_admin AS u_is_global_admin, ${LAST_COMMENT_COLUMNS}`;
const JOINS =
  ' FROM individuals i' +
  ' LEFT JOIN organizations o ON o.site_id = i.site_id AND o.id = i.primary_organization_id' +
  ' LEFT JOIN users u ON u.id = i.user_id AND u.site_id = i.site_id ' +
  lastCommentJoins('i');
const WHERE = ' WHERE i.site_id = ? AND i.id = ?';
const FROM = JOINS + WHERE;

/** As an administrator (every right): the record and its decorations. */
const AS_ADMIN = SELECT + FROM;

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
const AS_MEMBER = SELECT + CHAIN_COLUMNS + JOINS + CHAIN_JOINS + WHERE;
/** Above the CHAIN_DEPTH-th manager: the rest of the chain, walked up (bounded like AccessService.reportsTo). */
const REST_OF_CHAIN =
  'WITH RECURSIVE up(id, depth) AS (SELECT ?, 1 UNION ALL' +
  ' SELECT x.primary_reports_to, up.depth + 1 FROM up CROSS JOIN individuals x WHERE x.site_id = ? AND x.id = up.id AND up.depth < 256)' +
  ' SELECT COUNT(*) AS n FROM up WHERE id = ?';

/**
 * One individual of the caller's site with everything its answer shows — organization name,
 * account, newest comment and the caller's rights — in one statement (one round trip), or null.
 * It answers exactly what IndividualsService's batched reads answer for a page.
 */
export async function readIndividual(db: TenantDb, ctx: RequestContext, id: string): Promise<IndividualDto | null> {
  const me = ctx.user;
  const reader = RawReader.of(db.dataSource);
  const rows = me.isAdmin ? await reader.rows<Row>(AS_ADMIN, [ctx.siteId, id]) : await reader.rows<Row>(AS_MEMBER, [ctx.siteId, id]);
  const r = rows[0];
  if (!r) return null;
  const entity = {
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
  } as IndividualEntity;
  const user = r.u_user_name === null ? null : ({ userName: r.u_user_name, email: r.u_email, isGlobalAdmin: boolOf(r.u_is_global_admin) } as UserEntity);
  const own = me.isAdmin || (me.individualId !== null && (id === me.individualId || (await managedBy(reader, ctx, r, me.individualId))));
  return IndividualDto.from(entity, {
    user,
    organizationName: r.o_name,
    lastComment: lastCommentOf(r),
    rights: me.isAdmin ? { read: true, update: true, delete: true, delegate: true } : { read: true, update: own, delete: false, delegate: false },
  });
}

/** Whether `managerId` is above the record read in `r` in the PrimaryReportsTo chain. */
async function managedBy(reader: RawReader, ctx: RequestContext, r: Row, managerId: string): Promise<boolean> {
  for (let k = 1; k <= CHAIN_DEPTH; k++) if (r[`m${k}`] === managerId) return true;
  if (!r.beyond) return false;
  const [rest] = await reader.rows<{ n: number | string }>(REST_OF_CHAIN, [r.beyond, ctx.siteId, managerId]);
  return Number(rest?.n ?? 0) > 0;
}

/** The two statements, for tests that check their plans. */
export const INDIVIDUAL_READ_SQL = { asAdmin: AS_ADMIN, asMember: AS_MEMBER } as const;
