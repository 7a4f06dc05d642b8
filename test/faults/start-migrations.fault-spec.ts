import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { adminToken, AppProcess, startAppProcess } from './support/app-process.js';
import { freePort } from './support/mariadb.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The built service applies pending migrations at start in a worker thread, off its serving heap
 * (docs/performance.md, "Migrations apart from the serving heap"): it says so, then serves; a
 * start with nothing pending starts no worker; a migration that fails in the worker stops the
 * start with its one line and exit code 1, as it did in-process. The server listens from the start
 * (docs/operations.md, "Probes"): a replica waiting for the migration lock that another process
 * holds is live, not ready, and answers every other request 503 + Retry-After, until it has migrated.
 */
const SERVER = { host: '127.0.0.1', port: 3306, user: 'root', password: '' };
const WAITING = /"msg":"waiting for the migration lock, held by test-holder\/1"/;

/** A new database whose migration lock another process holds (as the migration Job does while it runs). */
async function lockedDatabase(name: string): Promise<void> {
  const c = await mysql.createConnection(SERVER);
  try {
    await c.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await c.query(
      `CREATE TABLE \`${name}\`.schema_migration_lock (id TINYINT UNSIGNED NOT NULL PRIMARY KEY, holder VARCHAR(100) NOT NULL, expires_at BIGINT NOT NULL)`,
    );
    await c.query(`INSERT INTO \`${name}\`.schema_migration_lock VALUES (1, 'test-holder/1', ?)`, [Date.now() + 3_600_000]);
  } finally {
    await c.end();
  }
}

async function dropDatabase(name: string): Promise<void> {
  const c = await mysql.createConnection(SERVER);
  await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await c.end();
}

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

  it('a replica waiting for the migration lock is live, not ready, and answers 503 + Retry-After; once it has migrated it serves', async () => {
    const waiting = `${database}_waiting`;
    await lockedDatabase(waiting);
    try {
      const port = await freePort();
      app = await startAppProcess({ DATABASE_URL: `mysql://root@127.0.0.1:3306/${waiting}`, PORT: String(port) }, WAITING);
      // Longer than a probe's timeout: still waiting, and answering.
      await sleep(1500);
      const live = await fetch(`${app.base}/health/live`);
      expect({ status: live.status, body: await live.json() }).toEqual({ status: 200, body: { status: 'ok' } });
      const notReady = await fetch(`${app.base}/health/ready`);
      expect({ status: notReady.status, retryAfter: notReady.headers.get('retry-after'), type: notReady.headers.get('content-type') }).toEqual({
        status: 503,
        retryAfter: '5',
        type: 'application/problem+json; charset=utf-8',
      });
      expect(await notReady.json()).toMatchObject({ type: 'urn:pms:problem:service-unavailable', status: 503, detail: expect.stringContaining('starting') });
      const login = await fetch(`${app.base}/v4/auth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/xml' },
        body: JSON.stringify({ UserName: 'admin', Password: 'whatever-1' }),
      });
      expect({ status: login.status, retryAfter: login.headers.get('retry-after') }).toEqual({ status: 503, retryAfter: '5' });
      expect(await login.text()).toMatch(/^<\?xml[^>]*><problem xmlns="urn:ietf:rfc:7807"><type>urn:pms:problem:service-unavailable<\/type>/);
      expect(app.output()).not.toMatch(/listening on/);

      // The holder finishes: the replica takes the lock, migrates, and serves.
      const c = await mysql.createConnection({ ...SERVER, database: waiting });
      await c.query('DELETE FROM schema_migration_lock');
      await c.end();
      const deadline = Date.now() + 30_000;
      let ready = 503;
      while (ready !== 200 && Date.now() < deadline) {
        ready = (await fetch(`${app.base}/health/ready`)).status;
        if (ready !== 200) await sleep(250);
      }
      expect(ready).toBe(200);
      expect(app.output()).toMatch(/"msg":"applied \d+ migration\(s\)"/);
      const me = await fetch(`${app.base}/v4/me`, { headers: { Authorization: `Bearer ${await adminToken(app.base)}` } });
      expect(me.status).toBe(200);
    } finally {
      await app?.stop();
      await dropDatabase(waiting);
    }
  }, 90_000);

  it('SIGTERM while waiting for the migration lock: the replica exits 0 at once and says so', async () => {
    const waiting = `${database}_sigterm`;
    await lockedDatabase(waiting);
    try {
      app = await startAppProcess({ DATABASE_URL: `mysql://root@127.0.0.1:3306/${waiting}`, PORT: String(await freePort()) }, WAITING);
      const sent = Date.now();
      app.child.kill('SIGTERM');
      const { code, at } = await app.exited;
      expect(code).toBe(0);
      // At once: not after SHUTDOWN_GRACE_MS (20 s), nor after a container runtime's SIGKILL.
      expect(at - sent).toBeLessThan(5000);
      expect(app.output()).toContain('"msg":"SIGTERM received while starting: exiting"');
    } finally {
      await dropDatabase(waiting);
    }
  }, 60_000);

  it('a migration that fails in the worker stops the start with one line and exit code 1, and is never ready', async () => {
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
