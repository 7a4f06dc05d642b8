import { Worker } from 'node:worker_threads';
import { compiledWorker } from '../common/tasks/compiled-worker.js';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config.js';
import type { JsonLogger } from '../common/logging/json-logger.js';
import { createDataSource } from './data-source.js';
import { runMigrationsLocked } from './migration-lock.js';

/** What the worker needs: the database settings, plain data (structured-cloned into the worker). */
export type MigrateWorkerData = Pick<AppConfig, 'database' | 'dbQueryTimeoutMs' | 'dbAcquireTimeoutMs' | 'migrationLockTimeoutMs' | 'logLevel'> &
  Partial<Pick<AppConfig, 'dbSyncWait'>>;

/**
 * Connects with a data source of its own, applies the pending migrations under the cluster-wide
 * lock and disconnects: `npm run migrate` (migrate.ts) and the start-up's worker (migrate-worker.ts).
 */
export async function migrateDatabase(config: MigrateWorkerData, logger: JsonLogger): Promise<void> {
  const ds = await createDataSource(config);
  await ds.initialize();
  try {
    await runMigrationsLocked(ds, logger, { timeoutMs: config.migrationLockTimeoutMs });
  } finally {
    await ds.destroy();
  }
}

/**
 * The start-up's migrations (docs/performance.md, "Migrations apart from the serving heap"): when
 * some are pending they are applied by a worker thread, with a connection of its own, under the
 * same cluster-wide lock as in-process (migration-lock.ts); the service waits for it and goes on.
 * A service that applied them on its own heap spent about four times as much on garbage collection
 * on every request for the rest of its life (a list of 20 goals: 137 against 29 µs per request):
 * the worker's heap goes with it. Nothing pending: one read of the migrations table, nothing
 * started. In-process as before where a worker cannot reach the same database (SQLite in memory)
 * or there is no compiled worker (the TypeScript sources under test).
 */
export async function migrateAtStart(ds: DataSource, config: MigrateWorkerData, logger: JsonLogger): Promise<'none' | 'worker' | 'in-process'> {
  if (!(await hasPendingMigrations(ds))) return 'none';
  const started = Date.now();
  const done = (where: 'worker' | 'in-process') => {
    logger.event('info', 'Migrate', {
      msg: `pending migrations applied ${where === 'worker' ? 'by a worker thread' : 'in the service'} in ${Date.now() - started} ms`,
      where,
    });
    return where;
  };
  const script = compiledWorker('./migrate-worker.js', import.meta.url);
  const inMemory = config.database.kind === 'sqlite' && config.database.file === ':memory:';
  if (script === null || inMemory) {
    await runMigrationsLocked(ds, logger, { timeoutMs: config.migrationLockTimeoutMs });
    return done('in-process');
  }
  const data: MigrateWorkerData = {
    database: config.database,
    dbQueryTimeoutMs: config.dbQueryTimeoutMs,
    dbAcquireTimeoutMs: config.dbAcquireTimeoutMs,
    migrationLockTimeoutMs: config.migrationLockTimeoutMs,
    logLevel: config.logLevel,
    ...(config.dbSyncWait === undefined ? {} : { dbSyncWait: config.dbSyncWait }),
  };
  await new Promise<void>((resolve, reject) => {
    let failure: Error | undefined;
    const worker = new Worker(script, { workerData: data });
    worker.on('message', (m: { error?: string }) => {
      if (m.error !== undefined) failure = new MigrationFailedError(m.error);
    });
    worker.once('error', (e) => (failure ??= e));
    worker.once('exit', (code) =>
      failure || code !== 0 ? reject(failure ?? new MigrationFailedError(`the migration worker exited with code ${code}`)) : resolve(),
    );
  });
  return done('worker');
}

/**
 * Whether a migration of the data source is not recorded as applied: reads the migrations table
 * and creates nothing (TypeORM's showMigrations creates the table, which replicas starting at once
 * on a new database would race to do outside the migration lock).
 */
export async function hasPendingMigrations(ds: DataSource): Promise<boolean> {
  const table = ds.options.migrationsTableName ?? 'migrations';
  const runner = ds.createQueryRunner();
  try {
    if (!(await runner.hasTable(table))) return ds.migrations.length > 0;
    const rows = (await runner.query(`SELECT name FROM ${ds.driver.escape(table)}`)) as { name: string }[];
    const applied = new Set(rows.map((r) => r.name));
    return ds.migrations.some((m) => !applied.has(m.name ?? m.constructor.name));
  } finally {
    await runner.release();
  }
}

/** A migration applied by the worker failed: the start stops with its one line, as in-process. */
export class MigrationFailedError extends Error {}
