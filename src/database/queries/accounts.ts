import { IsNull } from 'typeorm';
import { userNameKey } from '../../auth/user-name.js';
import type { RequestContext } from '../../common/context/request-context.js';
import { IndividualEntity } from '../entities/individual.entity.js';
import { OrganizationMemberEntity } from '../entities/organization-member.entity.js';
import { OrganizationEntity, ROW_TYPE_ORGANIZATION } from '../entities/organization.entity.js';
import { UserEntity } from '../entities/user.entity.js';
import type { TenantDb } from '../tenant-db.js';
import { newRecordId } from '../../common/ids.js';

/**
 * Ends every token of an account issued until now (docs/identity.md, "Revocation"): moves its token
 * generation on (this service's tokens carry theirs) and records the instant (identity providers'
 * tokens are compared by `iat`). A write to `users`, so the CallerCache drops what it kept.
 */
export async function endTokens(db: TenantDb, ctx: RequestContext, userId: string): Promise<void> {
  const now = new Date();
  await accounts(db, ctx).update(userId, { tokenGeneration: () => 'token_generation + 1', tokensRevokedAt: now, updated: now });
}

/** Writes of login accounts, recorded in the trail of each account's home site (docs/audit.md). */
export function accounts(db: TenantDb, ctx: RequestContext) {
  return db.journaled(ctx, UserEntity, (u) => u.siteId);
}

/** The organization new people join when nothing else is said: the site's first live top-level organization. */
export async function defaultOrganizationId(db: TenantDb, ctx: RequestContext): Promise<string | null> {
  const [org] = await db
    .repo(ctx, OrganizationEntity, 'Organization')
    .find({ where: { parentId: IsNull(), rowType: ROW_TYPE_ORGANIZATION, deleted: false }, order: { rank: 'ASC', created: 'ASC' }, take: 1 });
  return org?.id ?? null;
}

export interface NewPerson {
  userName: string;
  email: string | null;
  firstName: string;
  lastName: string;
  title: string | null;
  organizationId: string;
  managerId?: string | null;
}

/**
 * A person provisioned from outside (single sign-on's just-in-time creation): a login account
 * without a password in the acting site, its individual, and the primary membership, inside the
 * caller's transaction. The unique user-name key decides a race (the caller maps the violation).
 */
export async function createPerson(db: TenantDb, ctx: RequestContext, p: NewPerson): Promise<{ userId: string; individualId: string }> {
  db.assertInTransaction(ctx, 'createPerson');
  const userId = newRecordId();
  const individualId = newRecordId();
  const now = new Date();
  await accounts(db, ctx).insert({
    id: userId,
    siteId: ctx.siteId,
    userName: p.userName,
    userNameKey: userNameKey(p.userName),
    email: p.email,
    passwordHash: null,
    isGlobalAdmin: false,
    created: now,
    updated: now,
  });
  await db.repo(ctx, IndividualEntity, 'Individual').insert({
    id: individualId,
    userId,
    isAdmin: false,
    firstName: p.firstName,
    lastName: p.lastName,
    email: p.email,
    primaryOrganizationId: p.organizationId,
    primaryTitle: p.title,
    primaryReportsTo: p.managerId ?? null,
  });
  await db
    .repo(ctx, OrganizationMemberEntity, 'OrganizationMember')
    .insert({ individualId, organizationId: p.organizationId, title: p.title, deletedByRef: false });
  return { userId, individualId };
}
