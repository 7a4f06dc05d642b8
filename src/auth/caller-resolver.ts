import type { Caller } from '../common/context/request-context.js';
import type { TokenClaims } from './token.service.js';

/**
 * What the guard asks to turn a verified bearer credential into the request's Caller (401 when the
 * account, its individual or the site is gone, or the credential was ended). The guard lives on the
 * common floor and knows no table: the implementation that reads the accounts, API tokens, identity
 * providers and Permission records is the auth feature's (src/modules/auth/caller.resolver.ts),
 * bound to this token in src/core.module.ts. Every kind resolves through the CallerCache, so a
 * revocation is an invalidation of it (docs/identity.md, "Revocation").
 */
export abstract class CallerResolver {
  /** A password login's token (already verified by the TokenService). */
  abstract resolve(claims: TokenClaims): Promise<Caller>;
  /** An API token's secret (`pms_…`, checksum already checked): its service principal. */
  abstract resolveApiToken(secret: string): Promise<Caller>;
  /** An identity provider's JWT naming `issuer` (not yet verified: the site's configuration says how). */
  abstract resolveExternal(token: string, issuer: string): Promise<Caller>;
}
