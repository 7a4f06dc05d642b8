import 'reflect-metadata';
import { INestApplication } from '@nestjs/common';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import { type AddedFeature, AppModule } from './app.module.js';
import { AppConfig } from './config/config.js';
import { WireCodec } from './http/wire/codec.js';
import { WireWriter } from './http/pipeline/wire-writer.js';
import { applyTrustProxy, registerBodyParsers, registerFallback } from './http/pipeline/express-body.js';
import { type BuiltDocuments, setupOpenApi } from './openapi/openapi.js';
import { requestDeadline } from './http/pipeline/request-deadline.js';
import { installFrontDoor, type Middleware } from './http/pipeline/front-door.js';
import { RecordingExpressAdapter, RouteTable } from './http/pipeline/route-table.js';
import { outsideV4Routes } from './http/pipeline/route-index.js';
import { applyServerTimeouts } from './http/pipeline/server-lifecycle.js';
import type { Server } from 'node:http';
import { JsonLogger } from './common/logging/json-logger.js';
import type { StartGate } from './modules/health/start-gate.js';

/**
 * Builds the whole application for a configuration: the service's main and every e2e test use
 * this one function, so tests exercise exactly what runs in production. main.ts passes the start
 * gate whose server has listened since the process started (modules/health/start-gate.ts): the
 * application is built on that server and takes its requests once it is ready. A test may add a
 * feature of its own besides the app's (`added`, see AddedFeature), and hand it the documents an
 * application of the same code and settings served (`documents`: the e2e harness, which would
 * otherwise spend a second of CPU building them again for every test file).
 */
export async function createApp(
  config: AppConfig,
  logger: JsonLogger = new JsonLogger(config.logLevel),
  opts: { gate?: StartGate; added?: readonly AddedFeature[]; documents?: BuiltDocuments } = {},
): Promise<INestApplication> {
  const { gate, added = [], documents } = opts;
  const adapter = gate?.adapter ?? new RecordingExpressAdapter();
  const app = await NestFactory.create(AppModule.forRoot(config, logger, added), adapter, {
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
  // The controllers that say so (the probes, SCIM provisioning at /scim/v2) live outside /v4.
  app.setGlobalPrefix('v4', { exclude: outsideV4Routes(app.get(ModulesContainer)) });
  const document = setupOpenApi(app, config, documents);
  await app.init();
  registerFallback(app, app.get(WireCodec));
  adapter.table = new RouteTable(adapter.recorded);
  // The service builds its OpenAPI document before it takes requests: built by the first /docs
  // request instead, it would hold every request of that second.
  if (gate) document.get();
  // Migrated and built: from here the application answers (readiness included), not the gate.
  gate?.release();
  installFrontDoor(app, config, adapter.table, middleware);
  applyServerTimeouts(app.getHttpServer() as Server, config.requestTimeoutMs);
  return app;
}
