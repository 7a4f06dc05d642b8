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
  LastCommentColumns & { o_name: string | null; u_user_name: string | null; u_email: string | null; u_is_global_admin: unknown; manages?: unknown };

const SELECT =
  `SELECT ${COLUMNS.map((c) => `i.${c}`).join(', ')}, o.name AS o_name, u.user_name AS u_user_name, u.email AS u_email,` +
  ` u.is_global_admin AS u_is_global_admin, ${LAST_COMMENT_COLUMNS}`;
const FROM =
  ' FROM individuals i' +
  ' LEFT JOIN organizations o ON o.site_id = i.site_id AND o.id = i.primary_organization_id' +
  ' LEFT JOIN users u ON u.id = i.user_id AND u.site_id = i.site_id ' +
  lastCommentJoins('i') +
  ' WHERE i.site_id = ? AND i.id = ?';

/** As an administrator (every right): the record and its decorations. */
const AS_ADMIN = SELECT + FROM;
/**
 * As anyone else: also whether the caller is above the record in the PrimaryReportsTo chain,
 * walking up from the record (its depth, not the size of the caller's team; bounded like
 * AccessService.reportsTo).
 */
const AS_MEMBER =
  'WITH RECURSIVE up(id, depth) AS (' +
  ' SELECT primary_reports_to, 1 FROM individuals WHERE site_id = ? AND id = ?' +
  ' UNION ALL SELECT x.primary_reports_to, up.depth + 1 FROM up CROSS JOIN individuals x WHERE x.site_id = ? AND x.id = up.id AND up.depth < 256) ' +
  SELECT +
  ', (SELECT COUNT(*) FROM up WHERE up.id = ?) AS manages' +
  FROM;

/**
 * One individual of the caller's site with everything its answer shows — organization name,
 * account, newest comment and the caller's rights — in one statement (one round trip), or null.
 * It answers exactly what IndividualsService's batched reads answer for a page.
 */
export async function readIndividual(db: TenantDb, ctx: RequestContext, id: string): Promise<IndividualDto | null> {
  const me = ctx.user;
  const reader = RawReader.of(db.dataSource);
  const rows = me.isAdmin
    ? await reader.rows<Row>(AS_ADMIN, [ctx.siteId, id])
    : await reader.rows<Row>(AS_MEMBER, [ctx.siteId, id, ctx.siteId, me.individualId ?? '', ctx.siteId, id]);
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
  const own = me.isAdmin || id === me.individualId || Number(r.manages ?? 0) > 0;
  return IndividualDto.from(entity, {
    user,
    organizationName: r.o_name,
    lastComment: lastCommentOf(r),
    rights: me.isAdmin ? { read: true, update: true, delete: true, delegate: true } : { read: true, update: own, delete: false, delegate: false },
  });
}

/** The two statements, for tests that check their plans. */
export const INDIVIDUAL_READ_SQL = { asAdmin: AS_ADMIN, asMember: AS_MEMBER } as const;
