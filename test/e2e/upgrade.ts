import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config/config.js';
import { dataSourceOptions, detectMysqlFlavor } from '../../src/database/data-source.js';
import { MIGRATIONS } from '../../src/database/registry.js';
import { createTestDatabase } from './harness.js';

/** An installation of an earlier release, about to be upgraded (see atReleaseBefore). */
export interface Upgrade {
  /** The database URL. */
  url: string;
  /** The schema of the release before `migration`, migrated and open, for the test to fill in SQL. */
  before: DataSource;
  /** Closes `before` and applies every migration from `migration` on, as a release's start does; answers their names. */
  upgrade(): Promise<string[]>;
  /** The upgraded database, open once `upgrade` ran. */
  after: DataSource;
  /** Closes both and drops the database. */
  close(): Promise<void>;
}

/**
 * A database of its own with the migrations before `migration` applied (an existing installation
 * of the release before it); `prepare` runs first on the empty database (e.g. a server default
 * of that time). Data is written in SQL: the entities of today know the columns to come.
 */
export async function atReleaseBefore(migration: unknown, prepare?: (url: string) => Promise<void>): Promise<Upgrade> {
  const db = await createTestDatabase();
  await prepare?.(db.url);
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: db.url, JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'error' });
  const options = dataSourceOptions(config, await detectMysqlFlavor(config));
  const upTo = MIGRATIONS.indexOf(migration as (typeof MIGRATIONS)[number]);
  if (upTo <= 0) throw new Error('atReleaseBefore: not a migration of the registry after the first');
  const before = new DataSource({ ...options, migrations: MIGRATIONS.slice(0, upTo) });
  const after = new DataSource(options);
  await before.initialize();
  await before.runMigrations({ transaction: 'each' });
  return {
    url: db.url,
    before,
    after,
    async upgrade() {
      await before.destroy();
      await after.initialize();
      return (await after.runMigrations({ transaction: 'each' })).map((m) => m.name);
    },
    async close() {
      if (before.isInitialized) await before.destroy();
      if (after.isInitialized) await after.destroy();
      await db.cleanup();
    },
  };
}
