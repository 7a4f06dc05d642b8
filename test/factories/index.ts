import { randomUUID } from 'node:crypto';
import { Passwords } from '../../src/auth/password.js';
import { userNameKey } from '../../src/auth/user-name.js';
import { RequestContext } from '../../src/common/context/request-context.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { accounts } from '../../src/database/queries/accounts.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationEntity, ROW_TYPE_ORGANIZATION } from '../../src/database/entities/organization.entity.js';
import { OrganizationMemberEntity } from '../../src/database/entities/organization-member.entity.js';
import { SiteEntity } from '../../src/database/entities/site.entity.js';
import { bearer, TestApp } from '../e2e/harness.js';

/**
 * Small factories that build test data straight through the data layer (fast, and independent of
 * the endpoints under test). Each returns what a test needs to act as the record it made.
 */
export interface TestSite {
  siteId: string;
  orgId: string;
  admin: TestPerson;
}

export interface TestPerson {
  individualId: string;
  userId: string;
  userName: string;
  password: string;
  token: string;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}${randomUUID().slice(0, 4)}`;

/** A site with a root organization and a site administrator (not a global one). */
export async function createSite(t: TestApp, opts: { name?: string; pm?: boolean } = {}): Promise<TestSite> {
  const siteId = randomUUID();
  const now = new Date();
  const db = t.app.get(TenantDb);
  // Through the data layer's journaled path, as the service writes sites: the site's trail starts with it.
  await db
    .journaled(RequestContext.system(siteId), SiteEntity, (s) => s.id)
    .insert({
      id: siteId,
      name: opts.name ?? unique('Site '),
      performanceManagement: opts.pm ?? true,
      created: now,
      updated: now,
      createdBy: null,
      updatedBy: null,
      version: 1,
    });
  const org = await db.repo(RequestContext.system(siteId), OrganizationEntity).insert({ name: 'Root Org', rowType: ROW_TYPE_ORGANIZATION, rank: 0 });
  const admin = await createPerson(t, { siteId, orgId: org.id }, { isAdmin: true });
  return { siteId, orgId: org.id, admin };
}

/** An individual with a login account in the site; `token` is a real bearer token for it. */
export async function createPerson(
  t: TestApp,
  site: { siteId: string; orgId: string },
  opts: { isAdmin?: boolean; firstName?: string; lastName?: string; reportsTo?: string | null; password?: string } = {},
): Promise<TestPerson> {
  const userName = unique('user');
  const password = opts.password ?? 'password-123';
  const userId = randomUUID();
  const now = new Date();
  const db = t.app.get(TenantDb);
  const ctx = RequestContext.system(site.siteId);
  await accounts(db, ctx).insert({
    id: userId,
    siteId: site.siteId,
    userName,
    userNameKey: userNameKey(userName),
    email: `${userName}@example.test`,
    passwordHash: await t.app.get(Passwords).hash(password),
    isGlobalAdmin: false,
    created: now,
    updated: now,
  });
  const ind = await db.repo(ctx, IndividualEntity).insert({
    userId,
    isAdmin: opts.isAdmin ?? false,
    firstName: opts.firstName ?? 'Test',
    lastName: opts.lastName ?? userName,
    email: `${userName}@example.test`,
    primaryOrganizationId: site.orgId,
    primaryTitle: 'Tester',
    primaryReportsTo: opts.reportsTo ?? null,
  });
  await db.repo(ctx, OrganizationMemberEntity).insert({ individualId: ind.id, organizationId: site.orgId, title: 'Tester' });
  const login = await t.http().post('/v4/auth/token').send({ UserName: userName, Password: password });
  if (login.status !== 200) throw new Error(`login of ${userName} failed: ${login.status} ${login.text}`);
  return { individualId: ind.id, userId, userName, password, token: login.body.access_token as string };
}

export { bearer };
