import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource, Migration } from 'typeorm';
import { isRetryableConflict } from '../common/errors/db-errors.js';
import type { JsonLogger } from '../common/logging/json-logger.js';

/** The one-row table that says who runs migrations (docs/scaling.md, "Migrations"). */
export const MIGRATION_LOCK_TABLE = 'schema_migration_lock';

export interface MigrationLockOptions {
  /** How long to wait for another process's migrations before giving up (MIGRATION_LOCK_TIMEOUT_MS). */
  timeoutMs: number;
  /** How long a lease lasts unless renewed: a holder that died frees the lock after this. */
  leaseMs?: number;
  /** How often a waiting process looks again. */
  pollMs?: number;
}

/** Another process held the lock for longer than the timeout: the start stops with this line. */
export class MigrationLockTimeoutError extends Error {
  readonly expected = true;
}

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_POLL_MS = 250;

/**
 * Runs the pending migrations under a cluster-wide lock, so replicas starting together (a rolling
 * update, three pods at once) apply each migration exactly once. MySQL's `GET_LOCK` is not
 * enough: on a Galera cluster it locks only the node it runs on. The lock is a row of its own
 * table instead, taken with one `INSERT … ON DUPLICATE KEY UPDATE` that succeeds only when the row
 * is free or its lease ran out: Galera certifies that row write on every node, so of two
 * processes taking it through different nodes one commits and the other gets a deadlock (1213),
 * retried here. The holder renews its lease while migrations run (a long ALTER) and deletes the
 * row when done; a holder that crashed frees it when its lease ends. A process that finds the lock
 * taken logs who holds it, waits, and then finds nothing left to run.
 *
 * SQLite has one writer at a time and a single file: migrations there run without the lock.
 */
export async function runMigrationsLocked(ds: DataSource, logger: JsonLogger, options: MigrationLockOptions): Promise<Migration[]> {
  if (ds.options.type === 'better-sqlite3') return ds.runMigrations({ transaction: 'each' });
  const lease = options.leaseMs ?? DEFAULT_LEASE_MS;
  const poll = options.pollMs ?? DEFAULT_POLL_MS;
  const holder = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`.slice(0, 100);
  await ds.query(
    `CREATE TABLE IF NOT EXISTS ${MIGRATION_LOCK_TABLE} (
       id TINYINT UNSIGNED NOT NULL PRIMARY KEY,
       holder VARCHAR(100) NOT NULL,
       expires_at BIGINT NOT NULL
     ) ENGINE=InnoDB`,
  );
  const started = Date.now();
  let announced = '';
  while (!(await tryTake(ds, holder, lease))) {
    const current = await currentHolder(ds);
    if (current && current !== announced) {
      logger.event('info', 'Migrate', { msg: `waiting for the migration lock, held by ${current}`, holder: current });
      announced = current;
    }
    if (Date.now() - started > options.timeoutMs) {
      throw new MigrationLockTimeoutError(
        `gave up waiting for the migration lock after ${options.timeoutMs} ms (held by ${current ?? 'nobody now'}); ` +
          `if no migration is running, delete the row: DELETE FROM ${MIGRATION_LOCK_TABLE}`,
      );
    }
    await sleep(poll);
  }
  logger.event('info', 'Migrate', { msg: `took the migration lock after ${Date.now() - started} ms`, holder });
  const renew = setInterval(
    () => void renewLease(ds, holder, lease).catch((e: Error) => logger.event('warn', 'Migrate', { msg: `renewing the migration lock failed: ${e.message}` })),
    Math.max(100, Math.floor(lease / 3)),
  );
  renew.unref();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    logger.event('info', 'Migrate', {
      msg: applied.length ? `applied ${applied.length} migration(s)` : 'schema is up to date',
      applied: applied.map((m) => m.name),
    });
    return applied;
  } finally {
    clearInterval(renew);
    await ds.query(`DELETE FROM ${MIGRATION_LOCK_TABLE} WHERE id = 1 AND holder = ?`, [holder]).catch((e: Error) => {
      logger.event('warn', 'Migrate', { msg: `releasing the migration lock failed (it frees itself in ${lease} ms): ${e.message}` });
    });
  }
}

/** Takes the lock when it is free or its lease ended; a lost certification race is just "not yet". */
async function tryTake(ds: DataSource, holder: string, lease: number): Promise<boolean> {
  const now = Date.now();
  try {
    await ds.query(
      `INSERT INTO ${MIGRATION_LOCK_TABLE} (id, holder, expires_at) VALUES (1, ?, ?)
       ON DUPLICATE KEY UPDATE
         holder = IF(expires_at < ?, VALUES(holder), holder),
         expires_at = IF(expires_at < ?, VALUES(expires_at), expires_at)`,
      [holder, now + lease, now, now],
    );
  } catch (e) {
    if (isRetryableConflict(e)) return false;
    throw e;
  }
  return (await currentHolder(ds)) === holder;
}

async function currentHolder(ds: DataSource): Promise<string | null> {
  const rows = (await ds.query(`SELECT holder FROM ${MIGRATION_LOCK_TABLE} WHERE id = 1`)) as { holder: string }[];
  return rows[0]?.holder ?? null;
}

async function renewLease(ds: DataSource, holder: string, lease: number): Promise<void> {
  await ds.query(`UPDATE ${MIGRATION_LOCK_TABLE} SET expires_at = ? WHERE id = 1 AND holder = ?`, [Date.now() + lease, holder]);
}
