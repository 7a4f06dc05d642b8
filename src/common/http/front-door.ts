import type { INestApplication } from '@nestjs/common';
import type { Express } from 'express';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { RequestLogMiddleware } from '../logging/request-log.middleware.js';
import { HotRoutes, type HotReq } from './hot-route.js';
import { ServerLifecycle } from './server-lifecycle.js';

type Middleware = (req: IncomingMessage & Record<string, unknown>, res: ServerResponse, next: () => void) => void;

/**
 * The HTTP server's request listener (docs/performance.md, "Front door"): what every request
 * meets before Express.
 *
 * 1. Shutdown tracking (ServerLifecycle).
 * 2. The request id, log scope and access-log line (RequestLogMiddleware).
 * 3. A hot read (src/common/http/hot-route.ts) is tried here, with the request deadline
 *    started for it, and answered without Express's router when it succeeds.
 * 4. Everything else, and every hot read that does not succeed, goes to the Express application
 *    (body parsers, the deadline, Nest's routes) exactly as it would without this door; the
 *    deadline does not start twice.
 *
 * Installed by createApp once the application is initialised; nothing else changes the server's
 * listeners.
 */
export function installFrontDoor(app: INestApplication, deadline: Middleware): void {
  const server = app.getHttpServer() as Server;
  const express = app.getHttpAdapter().getInstance() as Express;
  const listeners = server.listeners('request');
  if (listeners.length !== 1 || listeners[0] !== express)
    throw new Error('front door: the HTTP server must have the Express application as its only request listener');
  const lifecycle = app.get(ServerLifecycle).middleware;
  const requestLog = app.get(RequestLogMiddleware);
  const hot = app.get(HotRoutes);

  const door = (req: IncomingMessage & Record<string, unknown>, res: ServerResponse): void => {
    lifecycle(req, res, () =>
      requestLog.use(req, res, () => {
        const toExpress = () => express(req as never, res as never);
        if (!hot.tryServe(req as HotReq, res, toExpress, () => enterExpress(express, req, res, deadline))) toExpress();
      }),
    );
  };
  server.removeAllListeners('request');
  server.on('request', door);
}

/**
 * What Express's `app.handle` does to a request before its router (circular references, its
 * request and response prototypes, `res.locals`), so the hot read's writer can use Express's
 * `res.send` (charset, `304` by freshness, Content-Length) as the route does; then the deadline.
 */
function enterExpress(express: Express, req: IncomingMessage & Record<string, unknown>, res: ServerResponse, deadline: Middleware): void {
  const r = res as unknown as Record<string, unknown>;
  req.res = res;
  r.req = req;
  Object.setPrototypeOf(req, express.request);
  Object.setPrototypeOf(res, express.response);
  r.locals ??= Object.create(null);
  req.originalUrl ??= req.url;
  deadline(req, res, () => undefined);
}
