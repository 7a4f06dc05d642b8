import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { CallerResolver } from './caller-resolver.js';
import { CONTEXT_KEY, RequestContext } from '../common/context/request-context.js';
import {
  AdminRequiredError,
  AppError,
  ForbiddenError,
  PmDisabledError,
  ScopeMissingError,
  UnauthorizedError,
  ValidationError,
} from '../common/errors/errors.js';
import type { Caller } from '../common/context/request-context.js';
import { isApiTokenSecret, SCIM_SCOPE, scopeFor, scopeGranted } from './api-token.js';
import { OidcVerifier } from './oidc-verifier.js';
import { parseTimeZone, TimeZone, UnknownTimeZoneError, UTC } from '../common/dates.js';
import { BODY_ERROR } from '../http/pipeline/express-body.js';
import { routeTemplate } from '../http/pipeline/route-index.js';
import { ROUTE_HANDLER_KEY } from '../http/wire/wire.js';
import { BULK_ROUTE_KEY, bulkItemCount } from '../http/wire/bulk.js';
import { refuseUnqueried } from '../http/wire/pagination.js';
import { ROUTE_KEY } from '../http/pipeline/http-metrics.js';
import { ACCESS_KEY, AccessRule } from './access.decorators.js';
import { TOKEN_ISSUER, TokenService } from './token.service.js';
import { RequestBudget, type BudgetResponse } from './request-budget.js';

export type Req = Record<string, unknown> & {
  headers: Record<string, string | string[] | undefined>;
  method?: string;
  url?: string;
  originalUrl?: string;
  query?: Record<string, unknown>;
  ip?: string;
  socket?: { remoteAddress?: string };
};

/** The request id set by the request-id middleware (or a fresh one). */
export function requestIdOf(req: Req): string {
  return (req.__pmsRequestId as string | undefined) ?? randomUUID();
}

/**
 * Builds a request's RequestContext under an access rule: parses `tz`, verifies the bearer token,
 * resolves the caller once and applies the rule (Public, Admin, PM, global admin), throwing
 * the typed error of the first check that fails. Three kinds of bearer are told apart by their
 * shape (docs/identity.md, "Token formats"): an API token (`pms_…`), this service's own HS256 JWT
 * (issuer `pms-api`), and an identity provider's JWT (any other issuer). An API token's service
 * principal must also hold the route’s scope. Used by the global guard.
 */
@Injectable()
export class RequestAuthenticator {
  constructor(
    private readonly tokens: TokenService,
    private readonly callers: CallerResolver,
  ) {}

  async contextOf(req: Req, rule: AccessRule): Promise<RequestContext> {
    const tz = this.timeZone(req);
    const ifMatch = typeof req.headers['if-match'] === 'string' ? req.headers['if-match'] : null;
    const ip = req.ip ?? req.socket?.remoteAddress ?? '';
    const requestId = requestIdOf(req);

    const url = String(req.originalUrl ?? req.url ?? '');

    if (rule === 'public') {
      const open = new RequestContext(requestId, tz, null, ifMatch, ip);
      open.url = url;
      return open;
    }

    const header = req.headers.authorization;
    const m = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!m) throw new UnauthorizedError('A bearer token is required: Authorization: Bearer <token> (get one at POST /v4/auth/token)');
    const caller = await this.callerOf(m[1]);
    if (caller.kind === 'service') {
      const needed = rule === 'scim' ? SCIM_SCOPE : scopeFor(req.method ?? 'GET', url);
      if (!needed || !scopeGranted(caller.scopes ?? [], needed)) throw new ScopeMissingError(needed);
    }
    const ctx = new RequestContext(requestId, tz, caller, ifMatch, ip);
    ctx.url = url;
    assertAccess(caller, rule);
    return ctx;
  }

  private callerOf(token: string): Promise<Caller> {
    if (isApiTokenSecret(token)) return this.callers.resolveApiToken(token);
    // A token of ours seen before: neither decoded for its issuer nor verified again.
    const known = this.tokens.remembered(token);
    if (known) return this.callers.resolve(known);
    const issuer = OidcVerifier.issuerOf(token);
    if (issuer !== null && issuer !== TOKEN_ISSUER) return this.callers.resolveExternal(token, issuer);
    return this.callers.resolve(this.tokens.verify(token));
  }

  private timeZone(req: Req): TimeZone {
    const raw = req.query?.tz;
    if (raw === undefined || raw === '') return UTC;
    if (typeof raw !== 'string') throw new ValidationError([{ field: 'tz', message: 'tz must be given once' }]);
    try {
      return parseTimeZone(raw);
    } catch (e) {
      if (e instanceof UnknownTimeZoneError) throw new ValidationError([{ field: 'tz', message: e.message }]);
      throw e;
    }
  }
}

/**
 * Throws the problem of an access rule the caller does not meet (403 admin-required, pm-disabled,
 * or not a global administrator); the rules of docs/identity-and-tenancy.md. Also for reads that
 * answer records of another route (delta sync, history: the record's own GET's rule).
 */
export function assertAccess(caller: Caller, rule: AccessRule): void {
  switch (rule) {
    case 'public':
    case 'authenticated':
      return;
    case 'admin':
      if (!caller.isAdmin) throw new AdminRequiredError('Only a site or global administrator may do this');
      return;
    case 'pm':
      if (!caller.pmEnabled) throw new PmDisabledError('Performance management is switched off for this site');
      return;
    case 'pm+admin':
      assertAccess(caller, 'pm');
      assertAccess(caller, 'admin');
      return;
    case 'global-admin':
      if (!caller.isGlobalAdmin) throw new ForbiddenError('Only a global administrator may do this');
      return;
    case 'scim':
      // The scope was checked for the token; a person never provisions (docs/identity.md).
      if (caller.kind !== 'service') throw new ForbiddenError('SCIM provisioning takes an API token with the scope scim, not a person’s token');
      return;
  }
}

/** The access rule of a route handler (its composite decorator; 'authenticated' when it has none: default deny). */
export function accessRuleOf(reflector: Reflector, ctrl: Function, handler: Function): AccessRule {
  return reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_KEY, [handler, ctrl]) ?? 'authenticated';
}

/**
 * The one global guard, deny by default: it records the route (its template for the logs and
 * metrics, its method for the answer's rendering), throws a recorded body error, then builds the
 * RequestContext under the route's access rule (RequestAuthenticator), leaves it on the
 * request for @Ctx() and spends the caller's request budgets (RequestBudget).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: RequestAuthenticator,
    private readonly budget: RequestBudget,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Req>();
    const handler = context.getHandler();
    req[ROUTE_KEY] = routeTemplate(context.getClass(), handler);
    req[ROUTE_HANDLER_KEY] = handler;
    const bodyError = req[BODY_ERROR];
    if (bodyError instanceof AppError) throw bodyError;
    const ctx = await this.authenticator.contextOf(req, accessRuleOf(this.reflector, context.getClass(), handler));
    req[CONTEXT_KEY] = ctx;
    // Every authenticated request spends its caller's and its site's budgets (docs/limits.md); a bulk request one per item.
    if (ctx.caller) {
      const cost = this.reflector.get<boolean | undefined>(BULK_ROUTE_KEY, handler) ? bulkItemCount((req as { body?: unknown }).body) : 1;
      // In-process budgets answer at once; Redis's are awaited.
      const spending = this.budget.spend(ctx.caller, context.switchToHttp().getResponse<BudgetResponse>(), cost);
      if (spending) await spending;
    }
    refuseUnqueried(req.query as Record<string, unknown> | undefined, context.getClass(), handler);
    return true;
  }
}
