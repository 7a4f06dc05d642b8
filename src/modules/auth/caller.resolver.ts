import { Inject, Injectable } from '@nestjs/common';
import type { JWTPayload } from 'jose';
import { In } from 'typeorm';
import { apiTokenHash } from '../../auth/api-token.js';
import { CallerResolver } from '../../auth/caller-resolver.js';
import { OidcVerifier } from '../../auth/oidc-verifier.js';
import type { TokenClaims } from '../../auth/token.service.js';
import { userNameKey, userNameProblem } from '../../auth/user-name.js';
import type { Caller } from '../../common/context/request-context.js';
import { RequestContext } from '../../common/context/request-context.js';
import { UnauthorizedError } from '../../common/errors/errors.js';
import { isUniqueViolation } from '../../common/errors/db-errors.js';
import { LIMITS } from '../../common/limits.js';
import { callerRow, type CallerRow } from '../../database/queries/caller.js';
import { createPerson, defaultOrganizationId } from '../../database/queries/accounts.js';
import { grantsOfUser } from '../../authorization/grants.statements.js';
import { TenantDb } from '../../database/tenant-db.js';
import { CallerCache } from '../../database/caches/caller-cache.js';
import { ApiTokenEntity } from '../../database/entities/api-token.entity.js';
import { groupMappingsOf, IdentityProviderEntity } from '../../database/entities/identity-provider.entity.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { SecurityGroupMemberEntity } from '../../database/entities/security-group.entity.js';
import { SiteEntity } from '../../database/entities/site.entity.js';
import { UserEntity } from '../../database/entities/user.entity.js';
import { ApiTokenUses } from './api-token-uses.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { audiencesOf } from '../../database/entities/identity-provider-audience.entity.js';

/**
 * Turns a verified credential into the Caller of the request (docs/identity.md), every kind through
 * the CallerCache, so that ending a credential is a write that invalidates it:
 *
 * - a password login's token: the account, its individual and the acting site in one query and, for
 *   a non-administrator, the Permission records that apply (docs/authorization.md). A deleted
 *   individual, a removed account, a site that is gone, or a token generation
 *   behind the account's (password change, logout everywhere, deletion) make it unusable (401);
 * - an API token: its row by the secret's hash (revoked, expired → 401) as the site's service
 *   principal, an administrator bounded by the token's scopes; its use is noted (ApiTokenUses);
 * - an identity provider's token: verified against the site configuration its issuer and audience
 *   name, then matched to an account of that site by the configured claim (created just in time
 *   when the site allows it), with the configured groups applied; refused when issued before the
 *   account's tokens were last ended.
 */
@Injectable()
export class AccountCallerResolver extends CallerResolver {
  private readonly skewMs: number;

  constructor(
    private readonly db: TenantDb,
    private readonly cache: CallerCache,
    private readonly oidc: OidcVerifier,
    private readonly uses: ApiTokenUses,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super();
    this.skewMs = config.oidcClockSkewSeconds * 1000;
  }

  resolve(claims: TokenClaims): Promise<Caller> {
    return this.cache.get(claims.sub, claims.sid, claims.gen, () => this.load(claims.sub, claims.sid, (row) => Number(row.tokenGeneration) === claims.gen));
  }

  async resolveApiToken(secret: string): Promise<Caller> {
    const hash = apiTokenHash(secret);
    const caller = await this.cache.get(`apitoken:${hash}`, '*', 0, () => this.loadApiToken(hash));
    if (caller.validUntil !== undefined && Date.now() >= caller.validUntil) throw new UnauthorizedError('The API token has expired');
    this.uses.touch(caller.userId);
    return caller;
  }

  async resolveExternal(token: string, issuer: string): Promise<Caller> {
    const configs = await this.providersOf(issuer);
    if (configs.length === 0) throw new UnauthorizedError('No site accepts tokens of this identity provider');
    // The configuration whose audiences the token names: exactly one, or the token names no site.
    const aud = OidcVerifier.audiencesOf(token);
    const matching = configs.filter((c) => audiencesOf(c).some((a) => aud.includes(a)));
    if (matching.length === 0) throw new UnauthorizedError('The identity provider token is not valid here (aud check failed)');
    if (matching.length > 1)
      throw new UnauthorizedError(
        'The identity provider token matches more than one configured identity provider; it is refused until an administrator resolves the collision',
      );
    const config = matching[0];
    const payload = await this.oidc.verify(token, issuer, audiencesOf(config));
    const value = payload[config.userClaim];
    if (typeof value !== 'string' || !value.trim())
      throw new UnauthorizedError(`The identity provider token carries no ${config.userClaim} claim to name the account`);
    const iat = payload.iat as number;
    return this.cache.get(`oidc:${config.id}:${value}`, config.siteId, iat, () => this.loadExternal(config.id, config.siteId, value.trim(), payload));
  }

  // ------------------------------------------------------------------ loaders (run on a cache miss)

  private async load(userId: string, siteId: string, generationOk: (row: CallerRow) => boolean): Promise<Caller> {
    const row = await callerRow(this.db, userId, siteId);
    if (!row || !row.siteId) throw new UnauthorizedError('The bearer token names an account or site that no longer exists');
    if (row.individualDeleted) throw new UnauthorizedError('The account of this token has been deleted');
    if (!Number(row.active)) throw new UnauthorizedError('The account of this token has been deactivated');
    if (!generationOk(row))
      throw new UnauthorizedError('The bearer token was issued before the account’s tokens were ended (password change, logout everywhere); log in again');
    const isGlobalAdmin = !!Number(row.isGlobalAdmin);
    if (row.siteId !== row.homeSiteId && !isGlobalAdmin) throw new UnauthorizedError('The bearer token is not valid');
    const isAdmin = isGlobalAdmin || !!Number(row.individualIsAdmin ?? 0);
    // Administrators may do everything in their site: no Permission record applies to them.
    const grants = isAdmin ? [] : await grantsOfUser(this.db, RequestContext.system(row.siteId), row.userId, row.individualId);
    return {
      kind: 'user',
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

  private async loadApiToken(hash: string): Promise<Caller> {
    const token = await this.db.global(null, ApiTokenEntity).findOneBy({ secretHash: hash });
    if (!token || token.secretHash !== hash) throw new UnauthorizedError('The API token is not valid');
    if (token.revoked) throw new UnauthorizedError('The API token has been revoked');
    if (token.expires && token.expires.getTime() <= Date.now()) throw new UnauthorizedError('The API token has expired');
    const site = await this.db.global(null, SiteEntity).findOneBy({ id: token.siteId });
    if (!site) throw new UnauthorizedError('The bearer token names an account or site that no longer exists');
    // A global administrator is invisible to a site's integrations (docs/security.md, "Privileges").
    const globalAdmins = await this.db.global(null, UserEntity).find({ where: { siteId: token.siteId, isGlobalAdmin: true }, select: { id: true } });
    const unseen = globalAdmins.length
      ? (
          await this.db.repo(RequestContext.system(token.siteId), IndividualEntity, 'Individual').find({ where: { userId: In(globalAdmins.map((u) => u.id)) } })
        ).map((i) => i.id)
      : [];
    return {
      kind: 'service',
      userId: token.id,
      userName: `apitoken:${token.name}`,
      individualId: null,
      siteId: token.siteId,
      // A site's service principal may do what an administrator may, within its scopes (docs/identity.md).
      isAdmin: true,
      isGlobalAdmin: false,
      pmEnabled: site.performanceManagement,
      scopes: Object.freeze(token.scopes.split(/\s+/).filter(Boolean)),
      grants: Object.freeze([]),
      unseen: Object.freeze(unseen),
      ...(token.expires ? { validUntil: token.expires.getTime() } : {}),
    };
  }

  private async loadExternal(configId: string, siteId: string, value: string, payload: JWTPayload): Promise<Caller> {
    const ctx = RequestContext.system(siteId);
    const config = await this.db.repo(ctx, IdentityProviderEntity, 'IdentityProvider').findById(configId);
    if (!config?.enabled) throw new UnauthorizedError('Single sign-on with this identity provider is switched off for the site');
    let user = await this.accountOf(siteId, value);
    if (!user) {
      if (!config.jitProvisioning) throw new UnauthorizedError(`No account of this site matches ${config.userClaim} "${value}"`);
      user = await this.createJustInTime(ctx, config, value, payload);
    }
    // A site's provider vouches for people of its site, never for the global scope (docs/security.md).
    if (user.isGlobalAdmin) throw new UnauthorizedError('A global administrator signs in with their password, not through a site’s identity provider');
    // Tokens issued before the account's tokens were ended are refused; `iat` is the provider's
    // clock, which may run ahead of ours by the tolerated skew, so a token is refused until that
    // much after the end (a sign-in right after "log out everywhere" waits out the skew).
    const revokedAt = user.tokensRevokedAt ? user.tokensRevokedAt.getTime() : null;
    const issuedAt = typeof payload.iat === 'number' ? payload.iat * 1000 : null;
    if (revokedAt !== null && (issuedAt === null || issuedAt < revokedAt + this.skewMs)) {
      throw new UnauthorizedError('The identity provider token was issued before the account’s tokens were ended; sign in again');
    }
    if (config.groupsClaim) await this.applyGroups(ctx, config, user.id, payload[config.groupsClaim]);
    return this.load(user.id, siteId, () => true);
  }

  /** The account of the site whose user name (by its key) or, failing that, e-mail is the claim's value. */
  private async accountOf(siteId: string, value: string): Promise<UserEntity | null> {
    const users = this.db.global(null, UserEntity);
    const key = userNameKey(value);
    const byName = await users.findOneBy({ userNameKey: key });
    if (byName && byName.userNameKey === key) return byName.siteId === siteId ? byName : null;
    if (!value.includes('@')) return null;
    const byEmail = await users
      .createQueryBuilder('u')
      .where('u.site_id = :siteId AND LOWER(u.email) = :email', { siteId, email: value.toLowerCase() })
      .orderBy('u.created', 'ASC')
      .getOne();
    return byEmail ?? null;
  }

  private async createJustInTime(ctx: RequestContext, config: IdentityProviderEntity, value: string, payload: JWTPayload): Promise<UserEntity> {
    if (userNameProblem(value) || [...value].length > LIMITS.name) throw new UnauthorizedError(`The ${config.userClaim} claim cannot be a user name`);
    const text = (claim: string, fallback: string) => {
      const v = payload[claim];
      return (typeof v === 'string' && v.trim() ? v.trim() : fallback).slice(0, LIMITS.personName);
    };
    try {
      await this.db.transaction(ctx, async () => {
        const organizationId = config.jitOrganizationId ?? (await defaultOrganizationId(this.db, ctx));
        if (!organizationId) throw new UnauthorizedError('The site has no organization to place a new person in');
        const email = typeof payload.email === 'string' ? payload.email.slice(0, LIMITS.name) : value.includes('@') ? value : null;
        await createPerson(this.db, ctx, {
          userName: value,
          email,
          firstName: text('given_name', value.split('@')[0]),
          lastName: text('family_name', '-'),
          title: null,
          organizationId,
        });
      });
    } catch (e) {
      // Two first requests at once: the other one created the account.
      if (!isUniqueViolation(e)) throw e;
    }
    const user = await this.accountOf(ctx.siteId, value);
    if (!user) throw new UnauthorizedError('The account could not be created');
    return user;
  }

  /**
   * Keeps the person's membership of the mapped security groups in step with the groups claim:
   * added to each group whose claim value the token lists, removed from the other mapped groups.
   * Groups no mapping names are left alone. Writes only what differs.
   */
  private async applyGroups(ctx: RequestContext, config: IdentityProviderEntity, userId: string, claim: unknown): Promise<void> {
    const mappings = groupMappingsOf(config);
    if (mappings.length === 0) return;
    const individual = await this.db.repo(ctx, IndividualEntity, 'Individual').findOne({ userId });
    if (!individual) return;
    const listed = new Set(Array.isArray(claim) ? claim.filter((v): v is string => typeof v === 'string') : typeof claim === 'string' ? [claim] : []);
    const wanted = new Set(mappings.filter((m) => listed.has(m.Claim)).map((m) => m.SecurityGroupID));
    const mapped = new Set(mappings.map((m) => m.SecurityGroupID));
    const members = this.db.repo(ctx, SecurityGroupMemberEntity, 'SecurityGroupMember');
    const current = new Set((await members.find({ where: { individualId: individual.id } })).map((m) => m.groupId));
    const add = [...wanted].filter((g) => !current.has(g));
    const remove = [...mapped].filter((g) => current.has(g) && !wanted.has(g));
    for (const groupId of add) {
      try {
        await members.insert({ groupId, individualId: individual.id });
      } catch (e) {
        // A group deleted since the mapping was written, or a concurrent first request: nothing to add.
        if (!isUniqueViolation(e) && !/foreign key/i.test((e as Error).message)) throw e;
      }
    }
    for (const groupId of remove) await members.deleteWhere({ groupId, individualId: individual.id });
  }

  /** The enabled providers of an issuer (every site's), kept by the CallerCache: a provider's write takes effect at the next request. */
  private providersOf(issuer: string): Promise<IdentityProviderEntity[]> {
    return this.cache.kept(`issuer ${issuer}`, async () => {
      const found = await this.db.global(null, IdentityProviderEntity).find({ where: { issuer, enabled: true }, order: { created: 'ASC' } });
      // The exact text only (a collation may compare case- or accent-insensitively).
      return found.filter((c) => c.issuer === issuer);
    });
  }
}
