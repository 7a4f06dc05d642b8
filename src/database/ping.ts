import type { DataSource } from 'typeorm';

/** How long readiness waits for the database to answer `SELECT 1` (docs/operations.md). */
export const READY_PING_TIMEOUT_MS = 1000;

/**
 * Whether the database answers a trivial query within `ms`. A ping still waiting when the time is
 * up is left to finish (or fail) on its own, bounded by the pool's own limits; its outcome is
 * ignored.
 */
export async function pingDatabase(ds: DataSource, ms = READY_PING_TIMEOUT_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const ping = ds.query('SELECT 1').then(
    () => true,
    () => false,
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
