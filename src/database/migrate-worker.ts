import 'reflect-metadata';
import { parentPort, workerData } from 'node:worker_threads';
import { JsonLogger } from '../common/logging/json-logger.js';
import { migrateDatabase, type MigrateWorkerData } from './migrate-apart.js';

/**
 * The worker thread of migrateAtStart (migrate-apart.ts): applies the pending migrations with a
 * connection of its own, under the cluster-wide lock, and ends; a failure is posted as its message
 * (the service's start stops with it).
 */
const config = workerData as MigrateWorkerData;
migrateDatabase(config, new JsonLogger(config.logLevel)).catch((e: unknown) => {
  parentPort?.postMessage({ error: e instanceof Error ? e.message : String(e) });
  process.exitCode = 1;
});
