// The name of the run's migrated template database on a MySQL/MariaDB server (test/e2e/migrated-template.ts),
// shared by the e2e harness, which makes it, and the run's global teardown, which drops it.
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { URL } from 'node:url';

/** `<database DATABASE_URL names>_tpl_<run>`, or null without a MySQL/MariaDB DATABASE_URL, a run folder, or with E2E_MIGRATE_EACH=1. */
export function templateDatabase(databaseUrl, runFolder) {
  if (!databaseUrl || !/^(mysql|mariadb):/.test(databaseUrl) || !runFolder || process.env.E2E_MIGRATE_EACH === '1') return null;
  const database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  // As the harness names the databases it creates: after the database DATABASE_URL names, else pms_test.
  const base = /^\w{1,40}$/.test(database) ? database : 'pms_test';
  return `${base}_tpl_${createHash('sha256').update(basename(runFolder)).digest('hex').slice(0, 10)}`;
}
