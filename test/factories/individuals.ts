import { randomUUID } from 'node:crypto';
import { RequestContext } from '../../src/common/context/request-context.js';
import { refreshLastComments } from '../../src/database/queries/last-comment.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { UserEntity } from '../../src/database/entities/user.entity.js';
import { CommentEntity } from '../../src/database/entities/comment.entity.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationEntity, ROW_TYPE_DEPARTMENT } from '../../src/database/entities/organization.entity.js';
import { OrganizationMemberEntity } from '../../src/database/entities/organization-member.entity.js';
import type { TestApp } from '../e2e/harness.js';

/** A department of the site, written around the API. */
export async function createDepartment(
  t: TestApp,
  siteId: string,
  opts: { name?: string; deleted?: boolean; parentId?: string | null } = {},
): Promise<OrganizationEntity> {
  return t.app
    .get(TenantDb)
    .repo(RequestContext.system(siteId), OrganizationEntity)
    .insert({
      name: opts.name ?? `Dept ${randomUUID().slice(0, 8)}`,
      rowType: ROW_TYPE_DEPARTMENT,
      parentId: opts.parentId ?? null,
      rank: 0,
      deleted: opts.deleted ?? false,
      deletedByRef: false,
    });
}

/**
 * A comment on an individual with a chosen Created instant (the API never lets a client write it),
 * written around the API as an import would, with its author's name, then the individual's newest
 * comment refreshed as docs/operations.md tells importers to.
 */
export async function insertIndividualComment(
  t: TestApp,
  siteId: string,
  individualId: string,
  opts: { body: string; created: Date; authorId: string | null; deleted?: boolean },
): Promise<CommentEntity> {
  const [author] = opts.authorId
    ? ((await t.ds.query('SELECT first_name, last_name FROM individuals WHERE site_id = ? AND id = ?', [siteId, opts.authorId])) as {
        first_name: string;
        last_name: string;
      }[])
    : [];
  const row = await t.ds.getRepository(CommentEntity).save({
    id: randomUUID(),
    authorFirstName: author?.first_name ?? null,
    authorLastName: author?.last_name ?? null,
    siteId,
    ancestorId: individualId,
    ancestorType: 'individuals',
    body: opts.body,
    authorId: opts.authorId,
    deleted: opts.deleted ?? false,
    deletedByRef: false,
    created: opts.created,
    updated: opts.created,
    createdBy: opts.authorId,
    updatedBy: opts.authorId,
  });
  await refreshNewestComments(t, siteId, [individualId]);
  return row;
}

/** After comments on these individuals were written around the API: their kept newest comment. */
export async function refreshNewestComments(t: TestApp, siteId: string, individualIds: readonly string[]): Promise<void> {
  const db = t.app.get(TenantDb);
  await db.transaction(RequestContext.system(siteId), (tx) => refreshLastComments(tx.db, tx.ctx, individualIds));
}

/** Stored rows, read around the API (to prove what a request changed, or that it changed nothing). */
export const individualRow = (t: TestApp, id: string) => t.ds.getRepository(IndividualEntity).findOneBy({ id });
export const userRow = (t: TestApp, id: string) => t.ds.getRepository(UserEntity).findOneBy({ id });
export const userByName = (t: TestApp, userName: string) => t.ds.getRepository(UserEntity).findOneBy({ userNameKey: userName.toLowerCase() });
export const membershipRows = (t: TestApp, individualId: string) =>
  t.ds.getRepository(OrganizationMemberEntity).find({ where: { individualId }, order: { organizationId: 'ASC' } });

/** The field names of the spec's Individual table, in its order. */
export const INDIVIDUAL_FIELDS = [
  'ID',
  'SiteID',
  'IsAdmin',
  'UserID',
  'Prefix',
  'Suffix',
  'FirstName',
  'LastName',
  'UserDefined1',
  'UserDefined2',
  'UserDefined3',
  'UserDefined4',
  'Email',
  'PrimaryOrganizationID',
  'PrimaryTitle',
  'PrimaryReportsTo',
  'UserName',
  'Password',
  'ParentID',
  'PrimaryOrganizationName',
  'FullName',
  'FormalName',
  'FullOrderedName',
  'Deleted',
  'DeletedByRef',
  'Created',
  'Updated',
  'CreatedBy',
  'UpdatedBy',
  'IsGlobalAdmin',
  'UserEmail',
  'LastComment',
  'LastCommentDate',
  'LastCommentByID',
  'LastCommentBy',
  'CanRead',
  'CanUpdate',
  'CanDelete',
  'CanDelegate',
  'SendEvalSurvey',
  'HireDate',
  'ExternalID',
];

/**
 * A create body of POST /v4/individuals (and a bulk item's Record) in the department `orgId`, with a
 * unique LastName and UserName (`userNamePrefix` first) and no password; `over` sets or adds fields.
 */
export function individualBody(orgId: string, over: Record<string, unknown> = {}, userNamePrefix = 'p.'): Record<string, unknown> {
  const unique = randomUUID().replace(/-/g, '').slice(0, 16);
  return {
    FirstName: 'Ada',
    LastName: `L${unique}`,
    UserName: `${userNamePrefix}${unique}`,
    Email: 'ada@example.test',
    UserEmail: 'ada.login@example.test',
    PrimaryOrganizationID: orgId,
    PrimaryTitle: 'Analyst',
    PrimaryReportsTo: null,
    ...over,
  };
}

/**
 * The calls a bulk test of individuals makes as the site's administrator: a new person's body
 * (`individualBody`, user names starting with `userNamePrefix`), `POST /v4/individuals/bulk` with
 * items (and a query, e.g. `?atomic=true`), and a person as its GET answers.
 */
export function individualsBulk(t: TestApp, site: { orgId: string; admin: { token: string } }, userNamePrefix: string) {
  const auth = `Bearer ${site.admin.token}`;
  return {
    person: (over: Record<string, unknown> = {}) => individualBody(site.orgId, over, userNamePrefix),
    bulk: (items: Record<string, unknown>[], query = '') => t.http().post(`/v4/individuals/bulk${query}`).set('Authorization', auth).send({ Items: items }),
    read: async (id: unknown): Promise<Record<string, unknown>> =>
      (
        await t
          .http()
          .get(`/v4/individuals/${String(id)}`)
          .set('Authorization', auth)
          .expect(200)
      ).body as Record<string, unknown>,
  };
}

/**
 * `count` people of `site` without login accounts, inserted around the service in chunks of 500
 * (as an import's rows would be, without their audit trail): a site large enough for exports to
 * outgrow the sockets. Each row's names, e-mail and title make it a few hundred bytes; `more(i)`
 * adds or replaces columns of the i-th.
 */
export async function insertManyPeople(
  t: TestApp,
  site: { siteId: string; orgId: string },
  count: number,
  more: (i: number) => Partial<IndividualEntity> = () => ({}),
): Promise<void> {
  const now = new Date();
  for (let start = 0; start < count; start += 500) {
    const rows = Array.from({ length: Math.min(500, count - start) }, (_, k) => {
      const i = start + k;
      return {
        id: randomUUID(),
        siteId: site.siteId,
        firstName: `First ${i} ${'x'.repeat(30)}`,
        lastName: `Last${String(i).padStart(6, '0')} ${'y'.repeat(30)}`,
        email: `person-${i}@big.test`,
        primaryOrganizationId: site.orgId,
        primaryTitle: 'A title long enough to make rows of a few hundred bytes',
        isAdmin: false,
        sendEvalSurvey: false,
        deleted: false,
        deletedByRef: false,
        created: now,
        createdBy: null,
        updated: now,
        updatedBy: null,
        ...more(i),
      };
    });
    await t.ds.createQueryBuilder().insert().into(IndividualEntity).values(rows).updateEntity(false).execute();
  }
}
