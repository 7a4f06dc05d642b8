import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { adminToken, AppProcess, startAppProcess } from './support/app-process.js';

/**
 * The built service applies pending migrations at start in a worker thread, off its serving heap
 * (docs/performance.md, "Migrations apart from the serving heap"): it says so, then serves; a
 * start with nothing pending starts no worker; a migration that fails in the worker stops the
 * start with its one line and exit code 1, as it did in-process.
 */
const SERVER = { host: '127.0.0.1', port: 3306, user: 'root', password: '' };
const workerLine = (app: AppProcess) =>
  app
    .output()
    .split('\n')
    .filter((l) => /pending migrations applied/.test(l));

describe('migrations at start (the built service)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pms-start-migrations-'));
  const database = `pms_start_migrations_${randomBytes(4).toString('hex')}`;
  let app: AppProcess | undefined;

  afterEach(async () => {
    await app?.stop();
    app = undefined;
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    const c = await mysql.createConnection(SERVER);
    await c.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await c.end();
  });

  it('SQLite: a new database is migrated by a worker thread, then served; the next start finds nothing to apply', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'pms.sqlite')}` };
    app = await startAppProcess(env);
    expect(workerLine(app)).toEqual([expect.stringMatching(/"msg":"pending migrations applied by a worker thread in \d+ ms".*"where":"worker"/)]);
    const me = await fetch(`${app.base}/v4/me`, { headers: { Authorization: `Bearer ${await adminToken(app.base)}` } });
    expect(me.status).toBe(200);
    await app.stop();
    app = await startAppProcess(env);
    expect(workerLine(app)).toEqual([]);
    expect((await fetch(`${app.base}/health/ready`)).status).toBe(200);
  }, 60_000);

  it('MariaDB: the worker takes the cluster-wide migration lock and applies every migration; the service then serves', async () => {
    app = await startAppProcess({ DATABASE_URL: `mysql://root@127.0.0.1:3306/${database}` });
    const lines = app.output();
    expect(lines).toMatch(/"msg":"took the migration lock after \d+ ms"/);
    expect(lines).toMatch(/"msg":"applied \d+ migration\(s\)"/);
    expect(workerLine(app)).toHaveLength(1);
    const c = await mysql.createConnection({ ...SERVER, database });
    const [locks] = await c.query('SELECT COUNT(*) AS n FROM schema_migration_lock');
    await c.end();
    expect(Number((locks as { n: number }[])[0].n)).toBe(0);
    expect((await fetch(`${app.base}/health/ready`)).status).toBe(200);
  }, 60_000);

  it('a migration that fails in the worker stops the start with one line and exit code 1, and nothing listens', async () => {
    const broken = `${database}_broken`;
    const c = await mysql.createConnection(SERVER);
    await c.query(`CREATE DATABASE \`${broken}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    // A table of the first migration's name already there, of another shape: its CREATE TABLE fails.
    await c.query(`CREATE TABLE \`${broken}\`.sites (unrelated INT) ENGINE=InnoDB`);
    try {
      const failed = await startAppProcess({ DATABASE_URL: `mysql://root@127.0.0.1:3306/${broken}` }).then(
        () => null,
        (e: Error) => e.message,
      );
      expect(failed).toMatch(/exited with 1 before listening/);
      expect(failed).toMatch(/pms-api: failed to start: .*sites/);
      expect(failed).not.toMatch(/\n\s+at /);
    } finally {
      await c.query(`DROP DATABASE IF EXISTS \`${broken}\``);
      await c.end();
    }
  }, 60_000);
});
