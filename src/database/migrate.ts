import 'reflect-metadata';
import { loadConfigOrExit, loadConfigWithoutCredentials } from '../config/config.js';
import { JsonLogger } from '../common/logging/json-logger.js';
import { migrateDatabase } from './migrate-apart.js';

/**
 * Runs pending migrations and exits: the Kubernetes migration Job and `npm run migrate`. The
 * service also runs them at start-up, under the same cluster-wide lock (migration-lock.ts), so a
 * replica starting while the Job runs waits for it and finds nothing left to do; running them
 * first as a Job keeps a slow migration out of the pods' readiness window.
 */
async function migrate(): Promise<void> {
  // The database's settings only: a migration signs no token and creates no administrator.
  const config = loadConfigOrExit('pms-api migrate', process.env, loadConfigWithoutCredentials);
  await migrateDatabase(config, new JsonLogger(config.logLevel));
}

migrate().catch((err: unknown) => {
  process.stderr.write(`pms-api migrate: failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
