import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { CallerResolver } from '../../modules/auth/caller.resolver.js';
import { CONTEXT_KEY, RequestContext } from '../context/request-context.js';
import { AdminRequiredError, AppError, ForbiddenError, PmDisabledError, UnauthorizedError, ValidationError } from '../errors/errors.js';
import { parseTimeZone, TimeZone, UnknownTimeZoneError, UTC } from '../http/dates.js';
import { BODY_ERROR } from '../http/express-body.js';
import { routeTemplate } from '../http/route-index.js';
import { ROUTE_KEY } from '../logging/http-metrics.js';
import { ACCESS_KEY, AccessRule } from './access.decorators.js';
import { TokenService } from './token.service.js';

type Req = Record<string, unknown> & {
  headers: Record<string, string | string[] | undefined>;
  query?: Record<string, unknown>;
  ip?: string;
  socket?: { remoteAddress?: string };
};

/** The request id set by the request-id middleware (or a fresh one). */
export function requestIdOf(req: Req): string {
  return (req.__pmsRequestId as string | undefined) ?? randomUUID();
}

/**
 * The one global guard, deny by default: it throws a recorded body error, parses `tz`, verifies
 * the bearer token, resolves the caller once, applies the route's access rule (Public, Admin, PM,
 * global admin) and leaves the RequestContext on the request for @Ctx().
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokenService,
    private readonly callers: CallerResolver,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Req>();
    req[ROUTE_KEY] = routeTemplate(context.getClass(), context.getHandler());
    const bodyError = req[BODY_ERROR];
    if (bodyError instanceof AppError) throw bodyError;

    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_KEY, [context.getHandler(), context.getClass()]) ?? 'authenticated';
    const tz = this.timeZone(req);
    const ifMatch = typeof req.headers['if-match'] === 'string' ? req.headers['if-match'] : null;
    const ip = req.ip ?? req.socket?.remoteAddress ?? '';
    const requestId = requestIdOf(req);

    if (rule === 'public') {
      req[CONTEXT_KEY] = new RequestContext(requestId, tz, null, ifMatch, ip);
      return true;
    }

    const header = req.headers.authorization;
    const m = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!m) throw new UnauthorizedError('A bearer token is required: Authorization: Bearer <token> (get one at POST /v4/auth/token)');
    const caller = await this.callers.resolve(this.tokens.verify(m[1]));
    req[CONTEXT_KEY] = new RequestContext(requestId, tz, caller, ifMatch, ip);

    switch (rule) {
      case 'authenticated':
        return true;
      case 'admin':
        if (!caller.isAdmin) throw new AdminRequiredError('Only a site or global administrator may do this');
        return true;
      case 'pm':
        if (!caller.pmEnabled) throw new PmDisabledError('Performance management is switched off for this site');
        return true;
      case 'pm+admin':
        if (!caller.pmEnabled) throw new PmDisabledError('Performance management is switched off for this site');
        if (!caller.isAdmin) throw new AdminRequiredError('Only a site or global administrator may do this');
        return true;
      case 'global-admin':
        if (!caller.isGlobalAdmin) throw new ForbiddenError('Only a global administrator may do this');
        return true;
    }
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
