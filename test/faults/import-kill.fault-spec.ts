import type { Connection } from 'mysql2/promise';
import { adminToken, AppProcess, startAppProcess } from './support/app-process.js';
import { request, summarize, type Outcome } from './support/load.js';
import { PrivateMariaDb } from './support/mariadb.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * An import killed mid-way ends with exactly the file's rows (docs/imports.md, "Storage, lease and
 * resume"; issue 50). The service runs as real processes on a MariaDB of the test's own.
 *
 * 1. Two replicas on one database; a CSV of ROWS new individuals is imported (`mode=create`, so a
 *    row written twice could not pass unseen: its second create is a 409 and a failed row) in
 *    chunks of CHUNK_ROWS. The replica that holds the job (the one whose log says it started it)
 *    is SIGKILLed once a quarter of the rows is committed. The other replica must claim the job
 *    when the lease runs out and resume it from its last committed chunk; the killed one is
 *    started again and must write nothing. Afterwards: the job succeeded with RowsWritten = ROWS
 *    and no failed row, the site holds each ExternalID exactly once, one `create` audit row per
 *    person and no other, and the chunks the replicas logged as committed are each logged once.
 * 2. A file whose first rows name their manager on its last row (docs/imports.md, "References to
 *    later rows"): the replica holding the job is SIGKILLed in the middle of its retry pass; the
 *    other resumes the pass, and each person is written once, every manager set.
 * 3. The database itself is SIGKILLed mid-import and started again: the job resumes and ends with
 *    exactly the file's rows, and meanwhile every request to the API answers 2xx or 503 +
 *    Retry-After, never a 500.
 */
const ROWS = 4000;
/** The retry-pass kill: a file of RETRY_ROWS whose first WAITING rows name the last row's person. */
const RETRY_ROWS = 1000;
const WAITING = 600;
const CHUNK_ROWS = 100;
const LEASE_MS = 3000;
const POLL_MS = 200;
const HEADER = 'ExternalID,FirstName,LastName,UserName,Email,UserEmail,PrimaryOrganizationID,PrimaryTitle,PrimaryReportsTo';
/** Request deadlines of the database-outage fault test: a request the database cannot answer is a 503 within them. */
const REQUEST_TIMEOUT_MS = 2000;
const BOUND_MS = REQUEST_TIMEOUT_MS + 1500;

async function until<T>(what: string, check: () => Promise<T | null | undefined | false> | T | null | undefined | false, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await check();
    if (got) return got;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * Waits until a quarter of the job's rows are committed, then half a chunk's time more (the mean
 * so far), so the kill lands in the middle of a chunk's transaction; answers that wait.
 */
async function intoAChunk(conn: Connection, id: string, since: number): Promise<number> {
  const quarter = await until(
    'a quarter of the rows committed',
    async () => {
      const j = await jobRow(conn, id);
      return j.next_row >= ROWS / 4 ? j : null;
    },
    120_000,
  );
  expect(quarter.state).toBe('running');
  const halfChunk = Math.round((Date.now() - since) / (quarter.next_row / CHUNK_ROWS) / 2);
  await sleep(halfChunk);
  return halfChunk;
}

interface JobRow {
  site_id: string;
  state: string;
  next_row: number;
  rows_written: number;
  rows_failed: number;
  lease_owner: string | null;
}

/** The job's row as the database holds it (the test's own connection). */
async function jobRow(conn: Connection, id: string): Promise<JobRow> {
  const [rows] = await conn.query('SELECT site_id, state, next_row, rows_written, rows_failed, lease_owner FROM import_jobs WHERE id = ?', [id]);
  const r = (rows as JobRow[])[0];
  return { ...r, next_row: Number(r.next_row), rows_written: Number(r.rows_written), rows_failed: Number(r.rows_failed) };
}

/** The CSV of `n` new people with ExternalIDs `${prefix}-0` … (in the organization `orgId`). */
function csvOf(prefix: string, n: number, orgId: string): string {
  const lines = [HEADER];
  for (let i = 0; i < n; i++)
    lines.push(`${prefix}-${i},Ada,Lovelace ${i},${prefix.toLowerCase()}.${i},ada${i}@example.test,ada${i}@example.test,${orgId},Analyst,`);
  return lines.join('\r\n') + '\r\n';
}

/** What the database holds for the import's people: how many, how many distinct ExternalIDs, and their audit rows. */
async function written(conn: Connection, siteId: string, prefix: string) {
  const [people] = await conn.query('SELECT COUNT(*) AS n, COUNT(DISTINCT external_id) AS ext FROM individuals WHERE site_id = ? AND external_id LIKE ?', [
    siteId,
    `${prefix}-%`,
  ]);
  const [audit] = await conn.query(
    `SELECT a.action, COUNT(*) AS n, COUNT(DISTINCT a.row_id) AS rows_ FROM audit_log a JOIN individuals i ON i.site_id = a.site_id AND i.id = a.row_id
     WHERE a.site_id = ? AND a.kind = 'individual' AND i.external_id LIKE ? GROUP BY a.action`,
    [siteId, `${prefix}-%`],
  );
  const p = (people as { n: number | string; ext: number | string }[])[0];
  return {
    people: Number(p.n),
    externalIds: Number(p.ext),
    audit: Object.fromEntries(
      (audit as { action: string; n: number | string; rows_: number | string }[]).map((a) => [a.action, { rows: Number(a.n), records: Number(a.rows_) }]),
    ),
  };
}

/** The ExternalIDs of the file that the site does not hold, and those it holds more than once. */
async function missingAndTwice(conn: Connection, siteId: string, prefix: string, n: number) {
  const [rows] = await conn.query('SELECT external_id, COUNT(*) AS n FROM individuals WHERE site_id = ? AND external_id LIKE ? GROUP BY external_id', [
    siteId,
    `${prefix}-%`,
  ]);
  const held = new Map((rows as { external_id: string; n: number | string }[]).map((r) => [r.external_id, Number(r.n)]));
  const expected = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  return {
    missing: expected.filter((e) => !held.has(e)),
    twice: [...held].filter(([, k]) => k > 1).map(([e]) => e),
    foreign: [...held.keys()].filter((e) => !expected.includes(e)),
  };
}

/** The chunks a process logged as committed for the job: the rows read after each (its "N of T rows read" lines). */
function loggedChunks(app: AppProcess, id: string): number[] {
  const re = new RegExp(`import ${id} \\(site [^)]*\\): (\\d+) of \\d+ rows read`, 'g');
  return [...app.output().matchAll(re)].map((m) => Number(m[1]));
}

const resumedAt = (app: AppProcess, id: string): number | null => {
  const m = new RegExp(`import ${id} \\([^)]*\\): resumed at row (\\d+)`).exec(app.output());
  return m ? Number(m[1]) : null;
};
const started = (app: AppProcess, id: string): boolean => new RegExp(`import ${id} \\([^)]*\\): started`).test(app.output());

async function postImport(base: string, token: string, body: string): Promise<string> {
  const res = await fetch(`${base}/v4/imports?kind=individuals&mode=create`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/csv', Accept: 'application/json' },
    body,
  });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`POST /v4/imports: ${res.status} ${text}`);
  return (JSON.parse(text) as { ID: string }).ID;
}

async function getJson(base: string, token: string, path: string): Promise<Record<string, unknown>> {
  const res = await fetch(base + path, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

describe('import jobs: a replica or the database killed mid-import (own MariaDB, the service as processes)', () => {
  const db = new PrivateMariaDb();
  const apps: AppProcess[] = [];
  const figures: string[] = [];
  const env = (database: string): Record<string, string> => ({
    DATABASE_URL: `${db.url}/${database}`,
    IMPORT_CHUNK_ROWS: String(CHUNK_ROWS),
    IMPORT_LEASE_MS: String(LEASE_MS),
    IMPORT_POLL_MS: String(POLL_MS),
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    DB_ACQUIRE_TIMEOUT_MS: '1000',
    DB_QUERY_TIMEOUT_MS: '1500',
  });
  const start = async (database: string) => {
    const app = await startAppProcess(env(database));
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    await db.start();
    await db.createDatabase('pms_import_kill', 'pms_import_dbkill', 'pms_import_retrykill');
  }, 120_000);

  afterAll(async () => {
    for (const app of apps) await app.stop();
    await db.destroy();
    process.stdout.write(`\n== import kill figures ==\n${figures.join('\n')}\n\n`);
  }, 30_000);

  it(`two replicas, the one processing an import of ${ROWS} rows SIGKILLed: the other resumes it from its last committed chunk, and the site holds exactly the file's rows, each written once`, async () => {
    // One starts first (it runs the migrations), then the second.
    const a = await start('pms_import_kill');
    const b = await start('pms_import_kill');
    const token = await adminToken(a.base);
    const me = await getJson(a.base, token, '/v4/me');
    const prefix = `K${Date.now().toString(36)}`;
    const id = await postImport(a.base, token, csvOf(prefix, ROWS, String(me.PrimaryOrganizationID)));
    const conn = await db.connect('pms_import_kill');
    try {
      // The replica whose log says it started the job holds its lease.
      const holder = await until('a replica to start the import', () => [a, b].find((r) => started(r, id)), 30_000);
      const startedAt = Date.now();
      const other = holder === a ? b : a;
      // A quarter of the file committed and half a chunk more: kill the holder in the middle of a chunk.
      const into = await intoAChunk(conn, id, startedAt);
      holder.child.kill('SIGKILL');
      const killedAt = (await holder.exited).at;
      // A COMMIT the process sent just before it died may still be applied by the server after its
      // exit: the job's row is read once that has settled (well within the lease).
      await sleep(500);
      const atKill = await jobRow(conn, id);
      const killedLogged = loggedChunks(holder, id);
      expect(atKill.state).toBe('running');
      expect(atKill.next_row).toBeLessThan(ROWS);

      // The lease runs out (LEASE_MS after the last committed chunk) and the other replica claims the job.
      const resumed = await until('the other replica to resume the job', () => resumedAt(other, id), 60_000);
      const resumeMs = Date.now() - killedAt;
      // The killed replica, started again: a new process with the old one's log gone, beside the one now holding the job.
      const again = await start('pms_import_kill');
      const done = await until(
        'the job to end',
        async () => {
          const j = await jobRow(conn, id);
          return j.state !== 'running' && j.state !== 'queued' ? j : null;
        },
        180_000,
      );
      // A few of the restarted replica's polls after the end: still nothing for it to do.
      await sleep(5 * POLL_MS + 500);

      const wire = await getJson(other.base, token, `/v4/imports/${id}`);
      const db1 = await written(conn, done.site_id, prefix);
      const ids = await missingAndTwice(conn, done.site_id, prefix, ROWS);
      const otherLogged = loggedChunks(other, id);
      const allLogged = [...killedLogged, ...otherLogged];
      const chunks = Math.ceil(ROWS / CHUNK_ROWS);
      figures.push(
        `replica SIGKILLed mid-import: ${ROWS} rows in ${chunks} chunks of ${CHUNK_ROWS}; killed with ${atKill.next_row} rows committed ` +
          `(${killedLogged.length} chunks logged by it), ${into} ms into the next; the other replica resumed at row ${resumed} ${resumeMs} ms after the kill (lease ${LEASE_MS} ms) ` +
          `and committed ${otherLogged.length} chunks; job ${String(wire.State)}: RowsRead ${String(wire.RowsRead)}, RowsWritten ${String(wire.RowsWritten)}, ` +
          `RowsFailed ${String(wire.RowsFailed)}, ${String(wire.RowsPerSecond)} rows/s over the whole job; site: ${db1.people} people, ${db1.externalIds} ExternalIDs, ${ids.missing.length} missing, ${ids.twice.length} twice; ` +
          `audit ${JSON.stringify(db1.audit)}; the restarted replica logged ${again.output().includes(id) ? 'the job' : 'nothing of the job'}`,
      );

      expect(done.state).toBe('succeeded');
      expect(wire).toMatchObject({ State: 'succeeded', RowsTotal: ROWS, RowsRead: ROWS, RowsWritten: ROWS, RowsFailed: 0 });
      expect(done.rows_written).toBe(ROWS);
      // Resumed exactly where the killed replica's last commit left the job: nothing before it again, nothing skipped.
      expect(resumed).toBe(atKill.next_row);
      expect(resumed % CHUNK_ROWS).toBe(0);
      // Every chunk the killed replica logged is before the resume; the survivor's after it; none logged twice.
      expect(killedLogged.every((n) => n <= resumed)).toBe(true);
      expect(otherLogged.every((n) => n > resumed)).toBe(true);
      expect(new Set(allLogged).size).toBe(allLogged.length);
      expect(otherLogged).toEqual(Array.from({ length: chunks - resumed / CHUNK_ROWS }, (_, k) => Math.min(ROWS, resumed + (k + 1) * CHUNK_ROWS)));
      // The site holds exactly the file's people, each once; one create in the audit trail for each, and nothing else.
      expect(ids).toEqual({ missing: [], twice: [], foreign: [] });
      expect(db1.people).toBe(ROWS);
      expect(db1.audit).toEqual({ create: { rows: ROWS, records: ROWS } });
      // The restarted replica never touched the job.
      expect(again.output()).not.toContain(id);
      expect(await getJson(again.base, token, `/v4/imports/${id}`)).toMatchObject({ State: 'succeeded', RowsWritten: ROWS });
    } finally {
      await conn.end();
      for (const app of apps.splice(0)) await app.stop();
    }
  }, 300_000);

  it(`a replica SIGKILLed in the middle of the retry pass over ${WAITING} rows that wait for the file's last row: the other goes on with the pass, and each person is written once`, async () => {
    const a = await start('pms_import_retrykill');
    const b = await start('pms_import_retrykill');
    const token = await adminToken(a.base);
    const me = await getJson(a.base, token, '/v4/me');
    const prefix = `W${Date.now().toString(36)}`;
    const manager = `${prefix}-${RETRY_ROWS - 1}`;
    // The first WAITING rows report to the last row's person, past their chunks: they wait.
    const lines = csvOf(prefix, RETRY_ROWS, String(me.PrimaryOrganizationID))
      .trimEnd()
      .split('\r\n')
      .map((line, k) => (k === 0 ? `${line},ExternalRefs.PrimaryReportsTo` : `${line},${k - 1 < WAITING ? manager : ''}`));
    const id = await postImport(a.base, token, lines.join('\r\n') + '\r\n');
    const conn = await db.connect('pms_import_retrykill');
    try {
      const holder = await until('a replica to start the import', () => [a, b].find((r) => started(r, id)), 30_000);
      const other = holder === a ? b : a;
      // Two retry chunks committed (rows_waiting down by two chunks), then half a chunk more.
      const since = Date.now();
      const mid = await until(
        'two retry chunks committed',
        async () => {
          const [rows] = await conn.query('SELECT retry_pass, rows_waiting, state FROM import_jobs WHERE id = ?', [id]);
          const j = (rows as { retry_pass: number; rows_waiting: number; state: string }[])[0];
          return Number(j.retry_pass) >= 1 && Number(j.rows_waiting) <= WAITING - 2 * CHUNK_ROWS ? j : null;
        },
        120_000,
      );
      expect(mid.state).toBe('running');
      const chunksSoFar = RETRY_ROWS / CHUNK_ROWS + 2;
      await sleep(Math.round((Date.now() - since) / chunksSoFar / 2));
      holder.child.kill('SIGKILL');
      await holder.exited;
      await sleep(500);
      const [atKillRows] = await conn.query('SELECT rows_waiting, rows_written FROM import_jobs WHERE id = ?', [id]);
      const atKill = (atKillRows as { rows_waiting: number; rows_written: number }[])[0];
      expect(Number(atKill.rows_waiting)).toBeGreaterThan(0);

      await until('the other replica to resume the job', () => resumedAt(other, id), 60_000);
      const done = await until(
        'the job to end',
        async () => {
          const j = await jobRow(conn, id);
          return j.state !== 'running' && j.state !== 'queued' ? j : null;
        },
        180_000,
      );
      const wire = await getJson(other.base, token, `/v4/imports/${id}`);
      const db1 = await written(conn, done.site_id, prefix);
      const ids = await missingAndTwice(conn, done.site_id, prefix, RETRY_ROWS);
      const [reports] = await conn.query(
        'SELECT COUNT(*) AS n FROM individuals e JOIN individuals m ON m.site_id = e.site_id AND m.id = e.primary_reports_to WHERE e.site_id = ? AND m.external_id = ?',
        [done.site_id, manager],
      );
      const [left] = await conn.query('SELECT COUNT(*) AS n FROM import_waiting_rows WHERE import_id = ?', [id]);
      figures.push(
        `replica SIGKILLed in a retry pass: ${RETRY_ROWS} rows, the first ${WAITING} waiting for the last; killed with ${String(atKill.rows_waiting)} still waiting ` +
          `(${String(atKill.rows_written)} written); job ${String(wire.State)}: RowsWritten ${String(wire.RowsWritten)}, RowsFailed ${String(wire.RowsFailed)}, RowsWaiting ${String(wire.RowsWaiting)}; ` +
          `site: ${db1.people} people, ${ids.missing.length} missing, ${ids.twice.length} twice; audit ${JSON.stringify(db1.audit)}`,
      );
      expect(wire).toMatchObject({ State: 'succeeded', RowsRead: RETRY_ROWS, RowsWritten: RETRY_ROWS, RowsFailed: 0, RowsWaiting: 0 });
      expect(ids).toEqual({ missing: [], twice: [], foreign: [] });
      expect(db1.audit).toEqual({ create: { rows: RETRY_ROWS, records: RETRY_ROWS } });
      expect(Number((reports as { n: number | string }[])[0].n)).toBe(WAITING);
      expect(Number((left as { n: number | string }[])[0].n)).toBe(0);
    } finally {
      await conn.end();
      for (const app of apps.splice(0)) await app.stop();
    }
  }, 300_000);

  it(`the database SIGKILLed mid-import and started again: the job resumes and ends with exactly the file's ${ROWS} rows; every request meanwhile is 2xx or 503 + Retry-After`, async () => {
    const app = await start('pms_import_dbkill');
    const token = await adminToken(app.base);
    const me = await getJson(app.base, token, '/v4/me');
    const prefix = `D${Date.now().toString(36)}`;
    const id = await postImport(app.base, token, csvOf(prefix, ROWS, String(me.PrimaryOrganizationID)));
    const postedAt = Date.now();
    // Clients keep reading the job, the people and themselves throughout.
    const outcomes: Outcome[] = [];
    let reading = true;
    const paths = [`/v4/imports/${id}`, '/v4/individuals?limit=5', '/v4/me'];
    const readers = paths.map(async (path) => {
      while (reading) {
        outcomes.push(await request({ base: app.base, token, hangMs: 15_000 }, 'read', 'GET', path));
        await sleep(50);
      }
    });
    let conn = await db.connect('pms_import_dbkill');
    try {
      const into = await intoAChunk(conn, id, postedAt);
      await conn.end();
      await db.kill();
      const killedAt = Date.now();
      await sleep(3000);
      const restartingAt = Date.now();
      await db.restart();
      const backAt = Date.now();
      conn = await db.connect('pms_import_dbkill');
      const atRestart = await jobRow(conn, id);
      // The chunk in flight died with the server; the job moves on again once the replica claims it anew.
      const movedAt = await until(
        'the job to move on after the restart',
        async () => ((await jobRow(conn, id)).next_row > atRestart.next_row ? Date.now() : null),
        60_000,
      );
      const done = await until(
        'the job to end',
        async () => {
          const j = await jobRow(conn, id);
          return j.state !== 'running' && j.state !== 'queued' ? j : null;
        },
        180_000,
      );
      reading = false;
      await Promise.all(readers);

      const wire = await getJson(app.base, token, `/v4/imports/${id}`);
      const db2 = await written(conn, done.site_id, prefix);
      const ids = await missingAndTwice(conn, done.site_id, prefix, ROWS);
      const during = outcomes.filter((o) => o.start >= killedAt && o.end <= restartingAt);
      const s = summarize(outcomes);
      figures.push(
        `database SIGKILLed mid-import for 3 s: ${atRestart.next_row} of ${ROWS} rows committed when it went, ${into} ms into the next chunk; the job moved on ${movedAt - backAt} ms after the database was back ` +
          `(lease ${LEASE_MS} ms); job ${String(wire.State)}: RowsWritten ${String(wire.RowsWritten)}, RowsFailed ${String(wire.RowsFailed)}, ${String(wire.RowsPerSecond)} rows/s over the whole job; site: ${db2.people} people, ` +
          `${ids.missing.length} missing, ${ids.twice.length} twice; audit ${JSON.stringify(db2.audit)}; requests meanwhile: ${s.requests}, ${s.ok} 2xx, ` +
          `${s.unavailable} 503 (${s.unavailableWithoutRetryAfter} without Retry-After, ${during.length} answered during the outage), ${s.serverErrors} other 5xx, ` +
          `${s.otherStatus} 4xx, ${s.noAnswer} unanswered, max ${s.max} ms`,
      );

      expect(done.state).toBe('succeeded');
      expect(wire).toMatchObject({ State: 'succeeded', RowsTotal: ROWS, RowsRead: ROWS, RowsWritten: ROWS, RowsFailed: 0 });
      expect(ids).toEqual({ missing: [], twice: [], foreign: [] });
      expect(db2.people).toBe(ROWS);
      expect(db2.audit).toEqual({ create: { rows: ROWS, records: ROWS } });
      // No 500: what the database could not answer was 503 + Retry-After, within the request's bound.
      const bad = outcomes.filter(
        (o) =>
          o.status === 0 ||
          (o.status >= 500 && o.status !== 503) ||
          (o.status === 503 && !o.retryAfter) ||
          o.status < 200 ||
          (o.status >= 300 && o.status < 500),
      );
      expect(bad.slice(0, 5)).toEqual([]);
      expect(s.max).toBeLessThanOrEqual(BOUND_MS);
      expect(during.length).toBeGreaterThan(0);
      expect(during.filter((o) => o.status !== 503)).toEqual([]);
    } finally {
      reading = false;
      await Promise.all(readers);
      await conn.end().catch(() => undefined);
    }
  }, 300_000);
});
