import type { INestApplication } from '@nestjs/common';
import compression from 'compression';
import type { Express } from 'express';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AppConfig } from '../../config/config.js';
import { RequestLogMiddleware } from './request-log.middleware.js';
import type { RouteTable } from './route-table.js';
import { ServerLifecycle } from './server-lifecycle.js';

type Req = IncomingMessage & Record<string, unknown>;
/** A middleware of the Express application, in the order it was registered (body parsers, deadline). */
export type Middleware = (req: Req, res: ServerResponse, next: () => void) => void;

/** Answers shorter than this go out as they are: compressing them saves less than it costs. */
export const COMPRESSION_THRESHOLD = 1024;

/** Runs the middleware in order, then `done`. */
function run(chain: readonly Middleware[], req: Req, res: ServerResponse, done: () => void): void {
  let i = 0;
  const next = (): void => {
    const m = chain[i++];
    if (m) m(req, res, next);
    else done();
  };
  next();
}

/**
 * The HTTP server's request listener (docs/architecture.md, "How a request runs"): one path for
 * every request.
 *
 * 1. Shutdown tracking (ServerLifecycle), then the request id and access-log line
 *    (RequestLogMiddleware), then compression (COMPRESSION, on by default: an answer of 1 KB or
 *    more in a compressible media type goes out in `br` or `gzip` when Accept-Encoding takes one —
 *    the API's answers, the OpenAPI document, Swagger UI's assets alike).
 * 2. The route is looked up in the RouteTable (a radix tree of every controller route). A request
 *    that finds one gets what Express gives a request (its request and response prototypes, the
 *    circular references, `originalUrl`, `params`), then the application's middleware in their
 *    order — the same functions Express runs (`middleware`: body parsers, request deadline) —
 *    then the very handler Nest registered for that route: guards, interceptors, pipes, the
 *    controller method and the exception filters.
 * 3. Anything the table does not find (another method, Swagger UI, an unknown path) goes to the
 *    Express application as it is, which answers it as before (405 with Allow, the problem 404).
 *
 * ROUTE_TABLE=off sends every request to Express, whose router then finds the same handlers:
 * the differential test (test/e2e/route-table.e2e-spec.ts) holds the two to the same answers.
 *
 * Installed by createApp once the application is initialised; nothing else changes the server's
 * listeners.
 */
export function installFrontDoor(app: INestApplication, config: AppConfig, table: RouteTable, middleware: readonly Middleware[]): void {
  const server = app.getHttpServer() as Server;
  const express = app.getHttpAdapter().getInstance() as Express;
  const listeners = server.listeners('request');
  if (listeners.length !== 1 || listeners[0] !== express)
    throw new Error('front door: the HTTP server must have the Express application as its only request listener');
  const lifecycle = app.get(ServerLifecycle).middleware;
  const requestLog = app.get(RequestLogMiddleware);
  const toExpress = (req: Req, res: ServerResponse) => express(req as never, res as never);
  const compress: Middleware = config.compression ? (compression({ threshold: COMPRESSION_THRESHOLD }) as unknown as Middleware) : (_req, _res, next) => next();

  const door = (req: Req, res: ServerResponse): void => {
    lifecycle(req, res, () =>
      requestLog.use(req, res, () =>
        compress(req, res, () => {
          const hit = config.routeTable ? table.find(req.method, req.url) : null;
          if (!hit) return toExpress(req, res);
          table.routed++;
          // What Express's app.handle and router do before a route runs.
          const r = req as Req & { res?: ServerResponse; originalUrl?: string; baseUrl?: string; params?: unknown };
          const s = res as ServerResponse & { req?: Req; locals?: object };
          r.res = res;
          s.req = req;
          // Born with Express's prototypes (RecordingExpressAdapter.initHttpServer); set only if not.
          if (!Object.prototype.isPrototypeOf.call(express.request, req)) Object.setPrototypeOf(req, express.request);
          if (!Object.prototype.isPrototypeOf.call(express.response, res)) Object.setPrototypeOf(res, express.response);
          s.locals ??= Object.create(null) as object;
          r.originalUrl ??= req.url;
          r.baseUrl = '';
          r.params = hit.params;
          run(middleware, req, res, () => {
            void hit.handler(req, res, () => toExpress(req, res));
          });
        }),
      ),
    );
  };
  server.removeAllListeners('request');
  server.on('request', door);
}
