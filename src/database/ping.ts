import type { DataSource } from 'typeorm';
import { dbErrorCode } from '../common/errors/db-errors.js';

/** How long readiness waits for the database to answer `SELECT 1` (docs/operations.md). */
export const READY_PING_TIMEOUT_MS = 1000;

/**
 * The readiness ping's statement. On MariaDB it does not wait for the cluster's earlier commits:
 * every session sets `wsrep_sync_wait` (read-your-writes on Galera), which makes even `SELECT 1`
 * wait while the cluster pauses to evict a node that stopped answering (seconds), and every replica
 * would then report itself unready at the same moment though none could do better than another.
 * A node that cannot serve (outside the primary component, not synced) still fails it.
 */
export function pingSql(type: DataSource['options']['type']): string {
  return type === 'mariadb' ? 'SET STATEMENT wsrep_sync_wait = 0 FOR SELECT 1' : 'SELECT 1';
}

/** Data sources whose MariaDB was built without Galera (no `wsrep_sync_wait`): pinged with plain `SELECT 1`. */
const withoutWsrep = new WeakSet<DataSource>();

/**
 * Whether the database answers a trivial query within `ms`. A ping still waiting when the time is
 * up is left to finish (or fail) on its own, bounded by the pool's own limits; its outcome is
 * ignored.
 */
export async function pingDatabase(ds: DataSource, ms = READY_PING_TIMEOUT_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const sql = withoutWsrep.has(ds) ? 'SELECT 1' : pingSql(ds.options.type);
  const ping = ds.query(sql).then(
    () => true,
    (e: unknown) => {
      if (sql === 'SELECT 1' || dbErrorCode(e) !== 'ER_UNKNOWN_SYSTEM_VARIABLE') return false;
      withoutWsrep.add(ds);
      return ds.query('SELECT 1').then(
        () => true,
        () => false,
      );
    },
  );
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([ping, late]);
  } finally {
    clearTimeout(timer);
  }
}
