import 'reflect-metadata';
import type { Server } from 'node:http';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type AppConfig, loadConfigOrExit } from './config/config.js';
import { JsonLogger } from './common/logging/json-logger.js';
import { ServerLifecycle } from './http/pipeline/server-lifecycle.js';
import { StartGate } from './modules/health/start-gate.js';
import type { BootstrapService } from './modules/auth/bootstrap.service.js';

/** Once every request is answered, how long closing the database pool and Redis may take. */
const CLEANUP_MS = 1000;

async function main(): Promise<void> {
  const config = loadConfigOrExit('pms-api');
  const logger = new JsonLogger(config.logLevel);
  // Listening comes first (docs/operations.md, "Probes"): liveness answers 200 and everything else
  // 503 + Retry-After while the application's modules load, the database is migrated (or another
  // process's migrations are waited for, under the migration lock) and the application is built.
  const gate = await StartGate.listen(config);
  let stop: ((signal: string) => void) | null = null;
  const onSignal = (signal: string) => {
    if (stop) return stop(signal);
    // Nothing is served yet: nothing to finish. (PID 1 in a container has no default action for SIGTERM.)
    logger.event('info', 'Main', { msg: `${signal} received while starting: exiting` });
    process.exit(0);
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  // The application's modules load behind the gate (most of a start's first seconds).
  const [{ createApp }, { HttpMetrics }, { metricsPortOf, startMetricsServer }, { BootstrapService: Bootstrap }] = await Promise.all([
    import('./app.factory.js'),
    import('./http/pipeline/http-metrics.js'),
    import('./http/pipeline/metrics-server.js'),
    import('./modules/auth/bootstrap.service.js'),
  ]);
  const app = await createApp(config, logger, { gate });
  const server = app.getHttpServer() as Server;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  let metricsServer: Server | null = null;

  // Shutdown (docs/operations.md): readiness 503 and no new connections at once, every request
  // already received answered (with Connection: close), then exit 0 — or 1 when requests are
  // still open after SHUTDOWN_GRACE_MS. In place from the moment the application serves.
  const lifecycle = app.get(ServerLifecycle);
  let stopping = false;
  stop = (signal: string) => {
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
    // The scrape stays up while requests drain, so the last figures can still be collected.
    void lifecycle.drain(server).then(async () => {
      metricsServer?.close();
      logger.event('info', 'Main', { msg: 'every request answered; closing', ms: Date.now() - started });
      const cleanup = app.close().catch((err: unknown) => logger.error(err instanceof Error ? err : String(err), 'Main'));
      const late = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), CLEANUP_MS).unref());
      if ((await Promise.race([cleanup, late])) === 'late') {
        logger.event('warn', 'Main', { msg: `closing the database and Redis took longer than ${CLEANUP_MS} ms; exiting anyway` });
      }
      process.exit(0);
    });
  };

  if (config.metricsPort !== null) {
    try {
      metricsServer = await startMetricsServer(app.get(HttpMetrics), config.host, config.metricsPort);
    } catch (e) {
      process.stderr.write(`pms-api: ${e instanceof Error ? e.message : String(e)}\n`);
      await app.close();
      process.exit(2);
    }
  }
  const everywhere = config.host === '0.0.0.0' || config.host === '::';
  const url = `http://${everywhere ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const bootstrap: BootstrapService = app.get(Bootstrap);
  const first = bootstrap.firstStart;
  const shown = first?.generatedPassword ? revealPassword(first.generatedPassword, config) : null;
  const login = shown
    ? ` First start: log in as "${first!.userName}" with the generated password ${shown} (set ADMIN_PASSWORD before the first start to choose it; change it with PUT /v4/individuals/{your ID from GET /v4/me}).`
    : first
      ? ` First start: log in as "${first.userName}" with ADMIN_PASSWORD.`
      : '';
  logger.event(first?.generatedPassword ? 'warn' : 'info', 'Main', {
    msg: `pms-api is listening on ${url}${everywhere ? ` (every interface, ${config.host})` : ''} — API ${url}/v4, Swagger UI ${url}/docs, OpenAPI ${url}/docs/openapi.json${metricsServer ? `; Prometheus metrics on port ${metricsPortOf(metricsServer)} (/metrics)` : ''}.${login}`,
    host: config.host,
    port,
    metricsPort: metricsServer ? metricsPortOf(metricsServer) : null,
    database:
      config.database.kind === 'sqlite'
        ? `sqlite:${config.database.file}`
        : `mysql://${config.database.host}:${config.database.port}/${config.database.database}`,
  });
  if (!first && config.adminPassword) await warnIfAdminPasswordIgnored(bootstrap, config, logger);
}

/**
 * The generated administrator password goes to the person starting the service, never into the
 * JSON log a platform ships to its log store (docs/operations.md, "First start"): on a terminal,
 * a plain line on stderr; otherwise a file beside the SQLite database (mode 0600), or for MySQL in
 * ./data; only when no file can be written, a plain stderr line. Answers where it went.
 */
function revealPassword(password: string, config: AppConfig): string {
  const line = `\npms-api: the generated password of "${config.adminUserName}" is: ${password}\n(shown only this once)\n\n`;
  if (process.stderr.isTTY) {
    process.stderr.write(line);
    return 'printed on the terminal above (not logged)';
  }
  const dir = config.database.kind === 'sqlite' && config.database.file !== ':memory:' ? dirname(resolve(config.database.file)) : resolve('data');
  const file = join(dir, 'admin-password');
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, password + '\n', { mode: 0o600, flag: 'w' });
    chmodSync(file, 0o600);
    return `written to ${file} (mode 0600; not logged)`;
  } catch {
    process.stderr.write(line);
    return `printed on stderr (${file} could not be written; not logged)`;
  }
}

/** A later start with ADMIN_PASSWORD set: say clearly when it is not the administrator's password. */
async function warnIfAdminPasswordIgnored(bootstrap: BootstrapService, config: AppConfig, logger: JsonLogger): Promise<void> {
  const matches = await bootstrap.adminPasswordMatches(config.adminPassword!);
  if (matches) return;
  logger.event('warn', 'Main', {
    msg:
      `ADMIN_PASSWORD is set but was ignored: it is used only on the first start, with an empty database, and "${config.adminUserName}" ` +
      `${matches === null ? 'does not exist in this database' : 'has another password here'}. Log in with the password of the first start ` +
      '(the file admin-password beside the SQLite database, when it was generated) and change it with PUT /v4/individuals/{your ID from GET /v4/me}, ' +
      'or start with an empty database.',
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`pms-api: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
