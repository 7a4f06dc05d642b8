import 'reflect-metadata';
import { loadConfigOrExit } from '../config/config.js';
import { JsonLogger } from '../common/logging/json-logger.js';
import { createDataSource } from './data-source.js';
import { runMigrationsLocked } from './migration-lock.js';

/**
 * Runs pending migrations and exits: the Kubernetes migration Job and `npm run migrate`. The
 * service also runs them at start-up, under the same cluster-wide lock (migration-lock.ts), so a
 * replica starting while the Job runs waits for it and finds nothing left to do; running them
 * first as a Job keeps a slow migration out of the pods' readiness window.
 */
async function migrate(): Promise<void> {
  const config = loadConfigOrExit('pms-api migrate');
  const logger = new JsonLogger(config.logLevel);
  const ds = await createDataSource(config);
  await ds.initialize();
  try {
    await runMigrationsLocked(ds, logger, { timeoutMs: config.migrationLockTimeoutMs });
  } finally {
    await ds.destroy();
  }
}

migrate().catch((err: unknown) => {
  process.stderr.write(`pms-api migrate: failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
