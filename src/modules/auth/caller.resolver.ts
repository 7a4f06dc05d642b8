import { Injectable } from '@nestjs/common';
import { CallerResolver } from '../../common/auth/caller-resolver.js';
import type { Caller } from '../../common/context/request-context.js';
import { UnauthorizedError } from '../../common/errors/errors.js';
import type { TokenClaims } from '../../common/auth/token.service.js';
import { RequestContext } from '../../common/context/request-context.js';
import { callerRow } from '../../database/queries/caller.js';
import { grantsOfUser } from '../../authorization/grants.js';
import { TenantDb } from '../../database/tenant-db.js';
import { CallerCache } from '../../database/caller-cache.js';

/**
 * Turns verified token claims into the Caller of the request with one query — the account, its
 * individual and the acting site — and, for a non-administrator, a second for the Permission
 * records that apply to them (docs/authorization.md), kept for a few seconds by the CallerCache. A deleted
 * individual, a removed account, a site that is no longer there, or a password changed since the
 * token was issued (its generation, docs/identity-and-tenancy.md "Tokens") make it unusable (401).
 */
@Injectable()
export class AccountCallerResolver extends CallerResolver {
  constructor(
    private readonly db: TenantDb,
    private readonly cache: CallerCache,
  ) {
    super();
  }

  resolve(claims: TokenClaims): Promise<Caller> {
    return this.cache.get(claims.sub, claims.sid, claims.gen, () => this.load(claims));
  }

  private async load(claims: TokenClaims): Promise<Caller> {
    const row = await callerRow(this.db, claims.sub, claims.sid);
    if (!row || !row.siteId) throw new UnauthorizedError('The bearer token names an account or site that no longer exists');
    if (row.individualDeleted) throw new UnauthorizedError('The account of this token has been deleted');
    if (Number(row.tokenGeneration) !== claims.gen) {
      throw new UnauthorizedError('The bearer token was issued before the password changed; log in again');
    }
    const isGlobalAdmin = !!Number(row.isGlobalAdmin);
    if (row.siteId !== row.homeSiteId && !isGlobalAdmin) throw new UnauthorizedError('The bearer token is not valid');
    const isAdmin = isGlobalAdmin || !!Number(row.individualIsAdmin ?? 0);
    // Administrators may do everything in their site: no Permission record applies to them.
    const grants = isAdmin ? [] : await grantsOfUser(this.db, RequestContext.system(row.siteId), row.userId, row.individualId);
    return {
      userId: row.userId,
      userName: row.userName,
      individualId: row.individualId,
      siteId: row.siteId,
      isAdmin,
      isGlobalAdmin,
      pmEnabled: !!Number(row.pm ?? 0),
      grants: Object.freeze(grants),
    };
  }
}
