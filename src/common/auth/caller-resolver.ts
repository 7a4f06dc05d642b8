import type { Caller } from '../context/request-context.js';
import type { TokenClaims } from './token.service.js';

/**
 * What the guard asks to turn verified token claims into the request's Caller (401 when the
 * account, its individual or the site is gone). The guard lives on the common floor and knows no
 * table: the implementation that reads the account and its Permission records is the auth
 * feature's (src/modules/auth/caller.resolver.ts), bound to this token in src/core.module.ts.
 */
export abstract class CallerResolver {
  abstract resolve(claims: TokenClaims): Promise<Caller>;
}
