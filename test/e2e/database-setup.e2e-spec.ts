import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { createApp } from '../../src/app.factory.js';
import { loadConfig, parseDatabaseUrl } from '../../src/config/config.js';
import { JsonLogger } from '../../src/common/logging/json-logger.js';
import { ADMIN_PASSWORD, ADMIN_USER, DB_KIND } from './harness.js';

/**
 * The first start on a database that is not there yet (docs/operations.md, "Character set";
 * README, "Running against MySQL or MariaDB"): the service makes it when it may, or stops with
 * one line that says what to run — never stack traces for an expected condition.
 */
describe(`the first start on a database that does not exist yet (${DB_KIND})`, () => {
  const start = (url: string, lines: string[] = []) =>
    createApp(
      loadConfig({
        NODE_ENV: 'test',
        DATABASE_URL: url,
        JWT_SECRET: randomBytes(32).toString('hex'),
        ADMIN_USERNAME: ADMIN_USER,
        ADMIN_PASSWORD,
        LOG_LEVEL: 'error',
      }),
      new JsonLogger('error', (line) => lines.push(line)),
    );

  if (DB_KIND === 'sqlite') {
    it('creates the folders of the SQLite file and the database in them', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pms-setup-'));
      try {
        const app = await start(`sqlite:${join(dir, 'a', 'b', 'pms.sqlite')}`);
        await app.close();
        expect(existsSync(join(dir, 'a', 'b', 'pms.sqlite'))).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  } else {
    const base = parseDatabaseUrl(process.env.DATABASE_URL!);
    if (base.kind !== 'mysql') throw new Error('unreachable');
    const admin = () => mysql.createConnection({ host: base.host, port: base.port, user: base.username, password: base.password });
    const urlFor = (database: string, user = base.username, password = base.password) => {
      const u = new URL(process.env.DATABASE_URL!);
      u.username = encodeURIComponent(user);
      u.password = encodeURIComponent(password);
      u.pathname = `/${database}`;
      return u.toString();
    };

    it('creates a missing database in utf8mb4 when the user may, and starts on it', async () => {
      const name = `pms_new_${randomBytes(4).toString('hex')}`;
      const c = await admin();
      try {
        const app = await start(urlFor(name));
        await app.close();
        const [rows] = await c.query('SELECT DEFAULT_CHARACTER_SET_NAME AS cs FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name]);
        expect(rows).toEqual([{ cs: 'utf8mb4' }]);
      } finally {
        await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
        await c.end();
      }
    });

    it('stops with one line giving the CREATE DATABASE to run when the user may not create it, logged without a stack trace', async () => {
      const name = `pms_missing_${randomBytes(4).toString('hex')}`;
      const user = `pms_ro_${randomBytes(3).toString('hex')}`;
      const c = await admin();
      try {
        await c.query(`CREATE USER '${user}'@'%' IDENTIFIED BY 'limited-pass-1'`);
        await c.query(`CREATE USER '${user}'@'localhost' IDENTIFIED BY 'limited-pass-1'`);
        const lines: string[] = [];
        const error = await start(urlFor(name, user, 'limited-pass-1'), lines).then(
          () => null,
          (e: Error) => e,
        );
        expect(error?.message).toContain(`the database "${name}" does not exist and the user "${user}" may not create it`);
        expect(error?.message).toContain(`create it as an administrator: CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
        expect(error?.message).not.toContain('\n');
        expect(lines.join('\n')).not.toMatch(/"stack"/);
      } finally {
        await c.query(`DROP USER IF EXISTS '${user}'@'%'`);
        await c.query(`DROP USER IF EXISTS '${user}'@'localhost'`);
        await c.end();
      }
    });
  }
});
