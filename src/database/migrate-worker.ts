import 'reflect-metadata';
import { parentPort, workerData } from 'node:worker_threads';
import { JsonLogger } from '../common/logging/json-logger.js';
import { createDataSource } from './data-source.js';
import type { MigrateWorkerData } from './migrate-apart.js';
import { runMigrationsLocked } from './migration-lock.js';

/**
 * The worker thread of migrateAtStart (migrate-apart.ts): applies the pending migrations with a
 * connection of its own, under the cluster-wide lock, and ends; a failure is posted as its message
 * (the service's start stops with it).
 */
async function run(config: MigrateWorkerData): Promise<void> {
  const logger = new JsonLogger(config.logLevel);
  const ds = await createDataSource(config);
  await ds.initialize();
  try {
    await runMigrationsLocked(ds, logger, { timeoutMs: config.migrationLockTimeoutMs });
  } finally {
    await ds.destroy();
  }
}

run(workerData as MigrateWorkerData).catch((e: unknown) => {
  parentPort?.postMessage({ error: e instanceof Error ? e.message : String(e) });
  process.exitCode = 1;
});
