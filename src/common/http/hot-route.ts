import { Inject, Injectable, Type } from '@nestjs/common';
import { HttpAdapterHost, Reflector } from '@nestjs/core';
import type { Express } from 'express';
import fresh from 'fresh';
import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyaddr from 'proxy-addr';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { accessRuleOf, RequestAuthenticator, type Req } from '../auth/auth.guard.js';
import type { AccessRule } from '../auth/access.decorators.js';
import { CONTEXT_KEY, type RequestContext } from '../context/request-context.js';
import { ROUTE_KEY } from '../logging/http-metrics.js';
import { routeTemplate } from './route-index.js';
import { WIRE_RESULT, type WireResultMeta } from './wire.js';
import { WireWriter } from './wire.interceptor.js';

/**
 * One hot read: a GET route of a controller whose successful answer is served before Nest's router
 * (docs/performance.md, "Hot reads"). `answer` calls the route's own handler on the context, its
 * arguments first put through the pipes the route's decorators name — which the hot read's
 * definition names again itself (individuals.hot-reads.ts: GuidPipe for the id, AppValidationPipe
 * for the query); it throws for anything but a success.
 */
export interface HotRoute {
  /** The controller and handler the route belongs to: its access rule, wire metadata and metrics label come from them. */
  controller: Type<unknown>;
  handler: string;
  /** The exact path, with one capture group per path parameter, e.g. `^/v4/individuals/([^/]+)$`. */
  path: RegExp;
  answer(ctx: RequestContext, params: string[], query: Record<string, unknown>): Promise<unknown>;
}

interface Compiled extends HotRoute {
  rule: AccessRule;
  template: string;
  meta: WireResultMeta | undefined;
}

export type HotReq = IncomingMessage & Req & { originalUrl?: string; query?: Record<string, unknown>; ip?: string };

/**
 * Serves the success path of the hot reads from the server's front door (front-door.ts), before
 * Express and Nest's per-request pipeline (router layers, guard, interceptor and pipe chains
 * through rxjs), which cost more CPU than the read itself. It runs the very code that route runs:
 * the guard's RequestAuthenticator under the handler's own access rule, the handler (its
 * arguments through the pipes the hot read's definition names), the interceptor's WireWriter; the request's query and client address come from
 * Express's own settings (`query parser fn`, `trust proxy fn`), and the answer is sent as
 * Express's `res.send` sends it (send() below), on Node's request and response. Request id,
 * access log, metrics, deadline and shutdown tracking are the front door's, the same for every
 * request.
 *
 * Anything else — no or a bad token, a bad `tz`, id or query, a record not found or hidden, any
 * error at all — is handed on unchanged to Express and the Nest route, which answer it as they
 * answer every request; so no failure has a second code path. HOT_READS=off hands on everything.
 */
@Injectable()
export class HotRoutes {
  private readonly routes: Compiled[] = [];
  /** Requests answered here, not by the Nest route (tests check that the hot path really serves). */
  served = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reflector: Reflector,
    private readonly authenticator: RequestAuthenticator,
    private readonly writer: WireWriter,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** Registers a hot read (modules call this once, at init). */
  add(route: HotRoute): void {
    const handler = (route.controller.prototype as Record<string, unknown>)[route.handler];
    if (typeof handler !== 'function') throw new Error(`hot route: ${route.controller.name}.${route.handler} is not a handler`);
    this.routes.push({
      ...route,
      rule: accessRuleOf(this.reflector, route.controller, handler),
      template: routeTemplate(route.controller, handler),
      meta: this.reflector.get<WireResultMeta | undefined>(WIRE_RESULT, handler),
    });
  }

  /**
   * Serves the request if it is a hot read and succeeds; `fallback` (the Express application) gets
   * it otherwise. `prepare` runs first when a route matches (the front door's Express setup and
   * deadline). Answers false at once, without touching the request, when no hot route matches.
   */
  tryServe(req: HotReq, res: ServerResponse, fallback: () => void, prepare: () => void): boolean {
    if (req.method !== 'GET' || !this.config.hotReads || hasBody(req)) return false;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    for (const route of this.routes) {
      const m = route.path.exec(path);
      if (!m) continue;
      prepare();
      // What Express's getters would answer (its `req.query` parses anew on every read).
      const app = this.adapterHost.httpAdapter.getInstance<Express>();
      const parse = app.get('query parser fn') as ((s: string) => Record<string, unknown>) | undefined;
      req.query = parse ? parse(q < 0 ? '' : url.slice(q + 1)) : {};
      req.ip = proxyaddr(req, app.get('trust proxy fn') as (addr: string, i: number) => boolean);
      this.serve(route, m.slice(1), req, res).then(
        (answered) => answered || fallback(),
        () => fallback(),
      );
      return true;
    }
    return false;
  }

  private async serve(route: Compiled, params: string[], req: HotReq, res: ServerResponse): Promise<boolean> {
    let ctx: RequestContext;
    let result: unknown;
    try {
      ctx = await this.authenticator.contextOf(req, route.rule);
      result = await route.answer(ctx, params, req.query!);
    } catch {
      return false;
    }
    req[ROUTE_KEY] = route.template;
    req[CONTEXT_KEY] = ctx;
    send(req, res, this.writer.render(req, res, result, route.meta, true));
    this.served++;
    return true;
  }
}

/**
 * A 200 answer whose headers are set, as Express's `res.send` writes it for a GET: `304 Not
 * Modified` without body or entity headers when the request's If-None-Match names the ETag
 * (decided by `fresh`, the module Express uses), else Content-Length and the body.
 */
function send(req: IncomingMessage, res: ServerResponse, body: string | Buffer): void {
  const etag = res.getHeader('ETag');
  if (etag !== undefined && fresh(req.headers, { etag })) {
    res.statusCode = 304;
    res.removeHeader('Content-Type');
    res.removeHeader('Content-Length');
    res.removeHeader('Transfer-Encoding');
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  res.end(body);
}

function hasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}
