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
 *    started for it, and answered without Express when it succeeds.
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
        let served = false;
        try {
          served = hot.tryServe(req as HotReq, res, toExpress, () => deadline(req, res, () => undefined));
        } catch {
          // A hot read that fails before it starts is the route's, like any failing hot read.
        }
        if (!served) toExpress();
      }),
    );
  };
  server.removeAllListeners('request');
  server.on('request', door);
}
