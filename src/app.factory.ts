import 'reflect-metadata';
import { INestApplication, RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { AppConfig } from './config/config.js';
import { WireCodec } from './common/http/codec.js';
import { applyTrustProxy, registerBodyParsers, registerFallback } from './common/http/express-body.js';
import { setupOpenApi } from './common/http/openapi.js';
import { requestDeadline } from './common/http/request-deadline.js';
import { installFrontDoor } from './common/http/front-door.js';
import { applyServerTimeouts } from './common/http/server-lifecycle.js';
import type { Server } from 'node:http';
import { JsonLogger } from './common/logging/json-logger.js';

/**
 * Builds the whole application for a configuration: the service's main and every e2e test use
 * this one function, so tests exercise exactly what runs in production.
 */
export async function createApp(config: AppConfig, logger: JsonLogger = new JsonLogger(config.logLevel)): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule.forRoot(config, logger), {
    bodyParser: false,
    logger,
    abortOnError: false,
  });
  // Shutdown tracking and the request log run first, in the server's front door (installed below);
  // then Express: the deadline starts once the body is read.
  applyTrustProxy(app, config.trustProxy);
  registerBodyParsers(app, app.get(WireCodec));
  const deadline = requestDeadline(config.requestTimeoutMs, app.get(WireCodec), logger);
  app.use(deadline);
  // GET /metrics only: POST /v4/metrics (the Metric resource) keeps its prefix (route-index.ts).
  app.setGlobalPrefix('v4', { exclude: ['health/live', 'health/ready', { path: 'metrics', method: RequestMethod.GET }] });
  setupOpenApi(app, config);
  await app.init();
  registerFallback(app, app.get(WireCodec));
  installFrontDoor(app, deadline);
  applyServerTimeouts(app.getHttpServer() as Server, config.requestTimeoutMs);
  return app;
}
