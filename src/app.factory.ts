import 'reflect-metadata';
import { INestApplication, RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { AppConfig } from './config/config.js';
import { WireCodec } from './common/http/codec.js';
import { WireWriter } from './common/http/wire-writer.js';
import { applyTrustProxy, registerBodyParsers, registerFallback } from './common/http/express-body.js';
import { setupOpenApi } from './common/http/openapi.js';
import { requestDeadline } from './common/http/request-deadline.js';
import { installFrontDoor, type Middleware } from './common/http/front-door.js';
import { RecordingExpressAdapter, RouteTable } from './common/http/route-table.js';
import { applyServerTimeouts } from './common/http/server-lifecycle.js';
import type { Server } from 'node:http';
import { JsonLogger } from './common/logging/json-logger.js';

/**
 * Builds the whole application for a configuration: the service's main and every e2e test use
 * this one function, so tests exercise exactly what runs in production.
 */
export async function createApp(config: AppConfig, logger: JsonLogger = new JsonLogger(config.logLevel)): Promise<INestApplication> {
  const adapter = new RecordingExpressAdapter();
  const app = await NestFactory.create(AppModule.forRoot(config, logger), adapter, {
    bodyParser: false,
    logger,
    abortOnError: false,
  });
  adapter.writer = app.get(WireWriter);
  // Shutdown tracking and the request log run first, in the server's front door (installed below);
  // then the middleware — the deadline starts once the body is read — then the route.
  applyTrustProxy(app, config.trustProxy);
  const parseBody = registerBodyParsers(app, app.get(WireCodec));
  const deadline = requestDeadline(config.requestTimeoutMs, app.get(WireCodec), logger);
  app.use(deadline);
  const middleware = [parseBody, deadline] as Middleware[];
  // The Prometheus scrape has a port of its own (METRICS_PORT, main.ts), so /v4/metrics is the Metric resource.
  // The probes and SCIM provisioning (/scim/v2, docs/identity.md) live outside /v4.
  app.setGlobalPrefix('v4', { exclude: ['health/live', 'health/ready', { path: 'scim/v2/{*path}', method: RequestMethod.ALL }] });
  setupOpenApi(app, config);
  await app.init();
  registerFallback(app, app.get(WireCodec));
  adapter.table = new RouteTable(adapter.recorded);
  installFrontDoor(app, config, adapter.table, middleware);
  applyServerTimeouts(app.getHttpServer() as Server, config.requestTimeoutMs);
  return app;
}
