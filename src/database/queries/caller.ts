import type { TenantDb } from '../tenant-db.js';
import { UserEntity } from '../entities/user.entity.js';

/** What the AuthGuard needs to know of a token's account, its individual and the acting site. */
export interface CallerRow {
  userId: string;
  userName: string;
  homeSiteId: string;
  isGlobalAdmin: number | boolean;
  tokenGeneration: number | string;
  tokensRevokedAt: Date | string | null;
  /** The account may sign in (false: deactivated by provisioning, docs/identity.md). */
  active: number | boolean;
  individualId: string | null;
  individualIsAdmin: number | boolean | null;
  individualDeleted: number | boolean | null;
  siteId: string | null;
  pm: number | boolean | null;
}

/**
 * The account `userId`, its individual and the site `siteId` in one query. Runs before any
 * request context exists (it is how the context is built), so it is not site-scoped: the caller
 * resolver compares the account's home site with the acting site itself.
 */
export function callerRow(db: TenantDb, userId: string, siteId: string): Promise<CallerRow | undefined> {
  return db
    .global(null, UserEntity)
    .createQueryBuilder('u')
    .select('u.id', 'userId')
    .addSelect('u.user_name', 'userName')
    .addSelect('u.site_id', 'homeSiteId')
    .addSelect('u.is_global_admin', 'isGlobalAdmin')
    .addSelect('u.token_generation', 'tokenGeneration')
    .addSelect('u.tokens_revoked_at', 'tokensRevokedAt')
    .addSelect('u.active', 'active')
    .addSelect('i.id', 'individualId')
    .addSelect('i.is_admin', 'individualIsAdmin')
    .addSelect('i.deleted', 'individualDeleted')
    .addSelect('s.id', 'siteId')
    .addSelect('s.performance_management', 'pm')
    .leftJoin('individuals', 'i', 'i.user_id = u.id')
    .leftJoin('sites', 's', 's.id = :sid', { sid: siteId })
    .where('u.id = :uid', { uid: userId })
    .getRawOne<CallerRow>();
}
