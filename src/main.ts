import 'reflect-metadata';
import type { Server } from 'node:http';
import { createApp } from './app.factory.js';
import { ConfigError, loadConfig } from './config/config.js';
import { JsonLogger } from './common/logging/json-logger.js';
import { ServerLifecycle } from './common/http/server-lifecycle.js';
import { BootstrapService } from './modules/auth/bootstrap.service.js';

/** Once every request is answered, how long closing the database pool and Redis may take. */
const CLEANUP_MS = 1000;

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
  await app.listen(config.port);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://localhost:${port}`;
  const first = app.get(BootstrapService).firstStart;
  const login = first?.generatedPassword
    ? ` First start: log in as "${first.userName}" with the generated password ${first.generatedPassword} (shown only this once; set ADMIN_PASSWORD before the first start to choose it, or change it with PUT /v4/individuals/{your ID from GET /v4/me}).`
    : first
      ? ` First start: log in as "${first.userName}" with ADMIN_PASSWORD.`
      : '';
  logger.event(first?.generatedPassword ? 'warn' : 'info', 'Main', {
    msg: `pms-api is listening on ${url} — API ${url}/v4, Swagger UI ${url}/docs, OpenAPI ${url}/docs/openapi.json.${login}`,
    port,
    database:
      config.database.kind === 'sqlite'
        ? `sqlite:${config.database.file}`
        : `mysql://${config.database.host}:${config.database.port}/${config.database.database}`,
  });

  // Shutdown (docs/operations.md): readiness 503 and no new connections at once, every request
  // already received answered (with Connection: close), then exit 0 — or 1 when requests are
  // still open after SHUTDOWN_GRACE_MS.
  const lifecycle = app.get(ServerLifecycle);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    logger.event('info', 'Main', {
      msg: `${signal} received: refusing new connections, finishing in-flight requests, then exiting`,
      inFlight: lifecycle.inFlightCount,
    });
    setTimeout(() => {
      logger.event('warn', 'Main', { msg: `requests still open after ${config.shutdownGraceMs} ms; exiting anyway`, inFlight: lifecycle.inFlightCount });
      process.exit(1);
    }, config.shutdownGraceMs).unref();
    void lifecycle.drain(server).then(async () => {
      logger.event('info', 'Main', { msg: 'every request answered; closing', ms: Date.now() - started });
      const cleanup = app.close().catch((err: unknown) => logger.error(err instanceof Error ? err : String(err), 'Main'));
      const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), CLEANUP_MS).unref());
      if ((await Promise.race([cleanup, late])) === 'late') {
        logger.event('warn', 'Main', { msg: `closing the database and Redis took longer than ${CLEANUP_MS} ms; exiting anyway` });
      }
      process.exit(0);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`pms-api: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
