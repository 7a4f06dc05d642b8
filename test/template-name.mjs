// The names of the databases an e2e run creates on a MySQL/MariaDB server: each app's, and the run's migrated template
// (test/e2e/migrated-template.ts), shared by the e2e harness, which makes them, and the run's global teardown, which drops the template.
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { URL } from 'node:url';

/** Whether DATABASE_URL names a MySQL/MariaDB server (the schemes the service reads as one), else the run is on SQLite. */
export function isMysqlUrl(databaseUrl) {
  return /^(mysql|mariadb):/.test(databaseUrl ?? '');
}

/** The start of the names of the databases a test run creates: the database DATABASE_URL names (an engineer's own prefix on a shared server), else pms_test. */
export function testDatabasePrefix(database) {
  return /^\w{1,40}$/.test(database) ? database : 'pms_test';
}

/** `<database DATABASE_URL names>_tpl_<run>`, or null without a MySQL/MariaDB DATABASE_URL, a run folder, or with E2E_MIGRATE_EACH=1. */
export function templateDatabase(databaseUrl, runFolder) {
  if (!isMysqlUrl(databaseUrl) || !runFolder || process.env.E2E_MIGRATE_EACH === '1') return null;
  const database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  return `${testDatabasePrefix(database)}_tpl_${createHash('sha256').update(basename(runFolder)).digest('hex').slice(0, 10)}`;
}
