import { randomBytes } from 'node:crypto';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Connection } from 'mysql2/promise';
import { loadConfig } from '../../src/config/config.js';
import { JsonLogger } from '../../src/common/logging/json-logger.js';
import { migrateDatabase } from '../../src/database/migrate-apart.js';

/**
 * MySQL/MariaDB: the e2e apps start on a copy of one database the migrations made once for the run,
 * not on an empty database they migrate themselves (docs/testing.md, "Migrated once a run").
 *
 * Applying the 38 migrations costs an app about 3.5 s on MariaDB (TypeORM reads the information
 * schema six times for each table or index it adds: 650 of the 1,000 statements of a start), against
 * about 0.3 s to create the tables from their `SHOW CREATE TABLE` and copy the rows the migrations
 * wrote. The template is made by the start-up's own migration path (`migrateDatabase`, under the
 * cluster-wide migration lock), once per run and database server, under a named lock so that two
 * workers do not both make it; the run's global teardown drops it (test/documents-teardown.mjs).
 * Triggers, views and routines are not copied: the template refuses to serve when the migrations
 * made any. Without the run's folder (PMS_E2E_DOCUMENTS), or with E2E_MIGRATE_EACH=1, every app
 * migrates its own empty database as before. The template's name: test/template-name.mjs.
 */
export { templateDatabase, testDatabasePrefix } from '../template-name.mjs';

interface Template {
  creates: string[];
  withRows: string[];
}
const known = new Map<string, Promise<Template>>();

const q = (name: string) => `\`${name.replace(/`/g, '``')}\``;

async function make(admin: Connection, name: string, urlOf: (database: string) => string): Promise<Template> {
  const lock = `pms_e2e_${name}`.slice(0, 64);
  const [[{ got }]] = (await admin.query('SELECT GET_LOCK(?, 600) AS got', [lock])) as unknown as [[{ got: number }]];
  if (got !== 1) throw new Error(`the e2e template ${name}: its lock was not granted`);
  try {
    const [exists] = (await admin.query('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name])) as unknown as [unknown[]];
    if (exists.length === 0) {
      await admin.query(`CREATE DATABASE ${q(name)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      try {
        const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: urlOf(name), JWT_SECRET: 'template-'.repeat(5), LOG_LEVEL: 'error' });
        await migrateDatabase(config, new JsonLogger('error', () => undefined));
      } catch (e) {
        await admin.query(`DROP DATABASE IF EXISTS ${q(name)}`);
        throw e;
      }
    }
  } finally {
    await admin.query('SELECT RELEASE_LOCK(?)', [lock]);
  }
  const [others] = (await admin.query(
    `SELECT 'trigger' AS kind, TRIGGER_NAME AS name FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?
     UNION ALL SELECT 'view', TABLE_NAME FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ?
     UNION ALL SELECT 'routine', ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?`,
    [name, name, name],
  )) as unknown as [{ kind: string; name: string }[]];
  if (others.length) {
    throw new Error(
      `the migrations made ${others.map((o) => `a ${o.kind} ${o.name}`).join(', ')}, which the e2e template does not copy: teach test/e2e/migrated-template.ts, or run with E2E_MIGRATE_EACH=1`,
    );
  }
  const [tables] = (await admin.query(
    "SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
    [name],
  )) as unknown as [{ t: string }[]];
  const creates: string[] = [];
  const withRows: string[] = [];
  for (const { t } of tables) {
    const [[shown]] = (await admin.query(`SHOW CREATE TABLE ${q(name)}.${q(t)}`)) as unknown as [[Record<string, string>]];
    creates.push(shown['Create Table']);
    const [rows] = (await admin.query(`SELECT 1 FROM ${q(name)}.${q(t)} LIMIT 1`)) as unknown as [unknown[]];
    if (rows.length) withRows.push(t);
  }
  return { creates, withRows };
}

/**
 * Makes the empty database `target` what the migrations make: the run's template's tables, created
 * as `SHOW CREATE TABLE` shows them (keys, foreign keys, character sets, AUTO_INCREMENT), and the rows
 * the migrations wrote (their own bookkeeping among them), in one round trip.
 */
export async function copyTemplate(admin: Connection, template: string, target: string, urlOf: (database: string) => string): Promise<void> {
  let made = known.get(template);
  if (!made) {
    made = make(admin, template, urlOf);
    known.set(template, made);
    made.catch(() => known.delete(template));
  }
  const { creates, withRows } = await made;
  await admin.query(
    [
      'SET SESSION FOREIGN_KEY_CHECKS = 0',
      `USE ${q(target)}`,
      ...creates,
      ...withRows.map((t) => `INSERT INTO ${q(target)}.${q(t)} SELECT * FROM ${q(template)}.${q(t)}`),
      'SET SESSION FOREIGN_KEY_CHECKS = 1',
    ].join(';\n'),
  );
}

/**
 * SQLite: the e2e apps start on a copy of one file the migrations made once for the run (in the
 * run's folder), as on MySQL/MariaDB, rather than migrating an empty file each: a copy costs a
 * millisecond, the migrations about a tenth of a second of CPU an app. The file is made by the
 * start-up's own migration path (`migrateDatabase`) under a name of its own and renamed into place,
 * so two workers making it at once each leave a whole file. Null without the run's folder or with
 * E2E_MIGRATE_EACH=1: the app then migrates its empty file at start, as the service does.
 */
let sqliteTemplate: Promise<string> | undefined;
export function sqliteTemplateFile(runFolder: string | undefined): Promise<string> | null {
  if (!runFolder || !existsSync(runFolder) || process.env.E2E_MIGRATE_EACH === '1') return null;
  sqliteTemplate ??= (async () => {
    const file = join(runFolder, 'migrated-template.sqlite');
    if (existsSync(file)) return file;
    const partial = join(runFolder, `migrated-template.${process.pid}.${randomBytes(4).toString('hex')}.sqlite`);
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: `sqlite:${partial}`, JWT_SECRET: 'template-'.repeat(5), LOG_LEVEL: 'error' });
    await migrateDatabase(config, new JsonLogger('error', () => undefined));
    // The migrations' connection is closed: everything is in the file itself, no journal beside it.
    const left = [`${partial}-wal`, `${partial}-journal`].filter((f) => existsSync(f) && statSync(f).size > 0);
    if (left.length) throw new Error(`the SQLite e2e template left ${left.join(', ')} behind: run with E2E_MIGRATE_EACH=1`);
    for (const f of [`${partial}-wal`, `${partial}-shm`, `${partial}-journal`]) rmSync(f, { force: true });
    renameSync(partial, file);
    return file;
  })();
  sqliteTemplate.catch(() => (sqliteTemplate = undefined));
  return sqliteTemplate;
}
