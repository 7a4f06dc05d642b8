import 'reflect-metadata';
import type { Server } from 'node:http';
import { createApp } from './app.factory.js';
import { ConfigError, loadConfig } from './config/config.js';
import { JsonLogger } from './common/logging/json-logger.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`pms-api: configuration error: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const logger = new JsonLogger(config.logLevel);
  const app = await createApp(config, logger);
  const server = app.getHttpServer() as Server;
  // Keep-alive a little longer than typical load balancers so they close first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await app.listen(config.port);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.event('info', 'Main', {
    msg: `pms-api listening on http://localhost:${port}: API under /v4, Swagger UI at http://localhost:${port}/docs, OpenAPI at /docs/openapi.json`,
    port,
    database:
      config.database.kind === 'sqlite'
        ? `sqlite:${config.database.file}`
        : `mysql://${config.database.host}:${config.database.port}/${config.database.database}`,
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.event('info', 'Main', { msg: `${signal} received: finishing in-flight requests, then exiting` });
    setTimeout(() => {
      logger.event('warn', 'Main', { msg: `requests still open after ${SHUTDOWN_GRACE_MS} ms; exiting anyway` });
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    // Stop accepting, close idle keep-alive connections now, the others when their request ends.
    server.closeIdleConnections();
    app
      .close()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        logger.error(err instanceof Error ? err : String(err), 'Main');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`pms-api: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
