/**
 * What the benchmarks share (docs/performance.md): processes pinned to cores, CPU and RSS from
 * /proc, the load generator in its own process, a database of their own, login, small formatting.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'csv-stringify/sync';
import mysql from 'mysql2/promise';
import type { LoadJob, LoadResult } from './load.js';
import { setTimeout as sleep } from 'node:timers/promises';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository (bench files run from dist/bench). */
export const root = resolve(here, '../..');
/**
 * The node options the service is started with in production (`npm start`, the Dockerfile and the
 * Kubernetes deployment carry the same; a unit test holds them equal): the benchmarks run the
 * service as it is deployed.
 */
export function serviceNodeFlags(): string[] {
  // BENCH_SERVICE_NODE_FLAGS: more of node's flags for the service, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it.
  const more = (process.env.BENCH_SERVICE_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  return [...npmScript('start').filter((word) => word.startsWith('--')), ...more];
}

/**
 * The environment the service is deployed with besides its settings: the `NAME=value` words in front
 * of `npm run start:prod`'s command (the image and the Kubernetes deployment set the same; a unit
 * test holds them equal), e.g. glibc's MALLOC_MMAP_THRESHOLD_ (docs/operations.md, "Memory given back").
 */
export function serviceEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const w of npmScript('start:prod')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(w);
    if (!m) break;
    env[m[1]] = m[2];
  }
  return env;
}

/** The words of an npm script of this repository's package.json. */
function npmScript(name: string): string[] {
  const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  return scripts[name].split(/\s+/).filter(Boolean);
}

export const num = (name: string, def: number) => (process.env[name] ? Number(process.env[name]) : def);

/** Settings given as `NAME=value` words in the environment variable `name` (AB_ENV, BENCH_ENV). */
export function envWords(name: string): Record<string, string> {
  return Object.fromEntries(
    (process.env[name] ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
  );
}

export const PIN = cpus().length >= 2 && hasTaskset();
export const CLK_TCK = clockTicks();

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** utime + stime of a process, in ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** The local database server's process (mariadbd or mysqld, found by name), or null. */
export function databasePid(): number | null {
  for (const name of ['mariadbd', 'mysqld']) {
    try {
      const pid = Number(execFileSync('pidof', ['-s', name], { encoding: 'utf8' }).trim());
      if (pid > 0) return pid;
    } catch {
      // not running under this name
    }
  }
  return null;
}

/**
 * BENCH_DB_CORE=<n>: the local database server's threads (mariadbd or mysqld, found by name) are
 * pinned to core n while a benchmark runs, as if the database had a machine of its own; otherwise
 * the scheduler also runs them on core 0, beside the server measured. Needs the right to change
 * that process's affinity (root, or its owner). Returns the undo, which gives every thread back
 * the affinity it had. Unset: nothing is changed (the default measurement).
 */
export function pinDatabase(): { undo: () => void; note: string } {
  const core = process.env.BENCH_DB_CORE;
  if (core === undefined || core === '') return { undo: () => undefined, note: '' };
  if (!/^\d+$/.test(core)) throw new Error(`BENCH_DB_CORE: a core number, not ${core}`);
  const pid = String(databasePid() ?? '');
  if (!pid) throw new Error('BENCH_DB_CORE: no local mariadbd or mysqld process to pin');
  const before = /: (\S+)\s*$/.exec(execFileSync('taskset', ['-c', '-p', pid], { encoding: 'utf8' }))?.[1];
  if (!before) throw new Error(`BENCH_DB_CORE: cannot read the affinity of process ${pid}`);
  execFileSync('taskset', ['-a', '-c', '-p', core, pid], { stdio: 'ignore' });
  log(`database server ${pid} pinned to core ${core} (it was on ${before})`);
  return {
    undo: () => {
      execFileSync('taskset', ['-a', '-c', '-p', before, pid], { stdio: 'ignore' });
      log(`database server ${pid} back on ${before}`);
    },
    note: `, database pinned to core ${core}`,
  };
}

export function pinned(core: number, args: string[]): [string, string[]] {
  return PIN ? ['taskset', ['-c', String(core), ...args]] : [args[0], args.slice(1)];
}

export interface Proc {
  child: ChildProcess;
  /** What it wrote up to the line that gave its port (that line included). */
  head: string;
  /** The last lines it wrote (for error reports). */
  tail: () => string;
  pid: number;
  port: number;
  exited: Promise<number | null>;
}

/** Starts a process and waits for the line that gives its port; its later output is drained. */
export function startProcess(name: string, cmd: [string, string[]], env: Record<string, string>, portLine: RegExp): Promise<Proc> {
  const child = spawn(cmd[0], cmd[1], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let head = '';
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: no port within 60 s:\n${head}`)), 60_000);
    const onData = (d: Buffer) => {
      if (head.length < 100_000) head += d.toString();
      const m = portLine.exec(head);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        let tail = '';
        child.stdout!.on('data', (more: Buffer) => (tail = (tail + more.toString()).slice(-8000)));
        resolvePort({ child, pid: child.pid!, port: Number(m[1]), head, exited, tail: () => tail });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => {
      if (head.length < 100_000) head += d.toString();
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${head.slice(-4000)}`));
    });
  });
}

export async function stopProcess(p: Proc | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!p || p.child.exitCode !== null) return;
  p.child.kill(signal);
  // A timer that holds the event loop: a script that ends with this call still kills a process
  // that has not exited after 15 s, instead of leaving it running.
  const cancel = new AbortController();
  const timeout = sleep(15_000, undefined, { signal: cancel.signal }).catch(() => undefined);
  await Promise.race([p.exited, timeout]);
  cancel.abort();
  if (p.child.exitCode === null) p.child.kill('SIGKILL');
}

/**
 * Waits until the process is idle: requests still queued after a load run have been answered and,
 * for the service, its database pool answers a ping at once (a slow query of the previous row
 * may still hold connections after its client left).
 */
export async function settle(pid: number, readyUrl?: string): Promise<void> {
  await quietAll([pid], readyUrl, 60_000);
}

/**
 * Waits until every process of `pids` (nulls skipped: no local database) is idle in the same 200 ms
 * window (at most 20 ms of CPU each) and the service's ready URL answers at once: what the step
 * before left running (the service's deferred work, the database's purge and flushing) ends before
 * the next is timed; at most `maxMs`. Answers how long it waited, the CPU each process spent
 * meanwhile (ms), and whether they were quiet in the end.
 */
export async function quietAll(
  pids: readonly (number | null)[],
  readyUrl?: string,
  maxMs = 120_000,
): Promise<{ waitedMs: number; cpuMs: number[]; quiet: boolean }> {
  const ps = pids.filter((p): p is number => p !== null);
  const start = ps.map(cpuMs);
  const t0 = Date.now();
  let quiet = false;
  while (!quiet && Date.now() - t0 < maxMs) {
    const before = ps.map(cpuMs);
    const t1 = Date.now();
    const ready = readyUrl
      ? await fetch(readyUrl).then(
          (r) => r.ok,
          () => false,
        )
      : true;
    const ms = Date.now() - t1;
    await sleep(200);
    quiet = ready && ms < 100 && ps.every((p, k) => cpuMs(p) - before[k] <= 20);
  }
  return { waitedMs: Date.now() - t0, cpuMs: ps.map((p, k) => cpuMs(p) - start[k]), quiet };
}

/** How a wait of quietAll ended, for the log: quiet or not, after how long, and each process's CPU meanwhile (in the order asked). */
export function quietText(q: { waitedMs: number; cpuMs: number[]; quiet: boolean }): string {
  return `${q.quiet ? 'quiet' : '**not quiet**'} after ${fmt(q.waitedMs / 1000, 1)} s (CPU meanwhile, ms: ${q.cpuMs.map((ms) => fmt(ms)).join(', ')})`;
}

/**
 * Runs one load job against the process `pid` answers for and waits until it is idle again:
 * the result and the CPU (ms) the process spent meanwhile, and that of the database server
 * `dbPid` over the same window when one is given (NaN without).
 */
export async function loadMeasured(pid: number, job: LoadJob, dbPid: number | null = null): Promise<{ result: LoadResult; cpuMs: number; dbCpuMs: number }> {
  const dbBefore = dbPid ? cpuMs(dbPid) : NaN;
  const before = cpuMs(pid);
  const result = await load(job);
  await settle(pid);
  return { result, cpuMs: cpuMs(pid) - before, dbCpuMs: dbPid ? cpuMs(dbPid) - dbBefore : NaN };
}

/** Runs one autocannon job in its own process (core 1). */
export function load(job: LoadJob): Promise<LoadResult> {
  const [cmd, args] = pinned(1, [process.execPath, join(here, 'load.js')]);
  const child = spawn(cmd, args, { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stdin.end(JSON.stringify(job));
  return new Promise((res, rej) =>
    child.on('exit', (code) => {
      if (code !== 0) return rej(new Error(`load exited with ${code}`));
      res(JSON.parse(out) as LoadResult);
    }),
  );
}

export async function createDatabase(sqlite: boolean): Promise<{ url: string; drop: () => Promise<void> }> {
  if (sqlite) {
    const dir = mkdtempSync(join(tmpdir(), 'pms-bench-'));
    return { url: `sqlite:${join(dir, 'bench.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const u = new URL((process.env.BENCH_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/').replace(/^mariadb:/, 'mysql:'));
  if (u.protocol !== 'mysql:') throw new Error('BENCH_DATABASE_URL must be a mysql:// URL (or use --sqlite)');
  const conn = { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username || 'root'), password: decodeURIComponent(u.password) };
  // Named after the database BENCH_DATABASE_URL names (an engineer's own prefix on a shared server), else pms_bench.
  const base = decodeURIComponent(u.pathname.slice(1));
  const name = `${/^\w{1,40}$/.test(base) ? base : 'pms_bench'}_${randomBytes(4).toString('hex')}`;
  const admin = await mysql.createConnection(conn);
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = await mysql.createConnection(conn);
      await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await c.end();
    },
  };
}

/**
 * The rows the server's storage engines have written and changed so far (`Handler_write`,
 * `Handler_update`: a row each, not counting internal temporary tables nor index entries), read on
 * a connection of its own to `url` (MySQL/MariaDB; null for SQLite): the difference of two reads
 * around a step is what the database wrote for it, with whatever ran beside it (the service's own
 * background work included). `end()` closes the connection.
 */
export async function dbRowCounter(url: string): Promise<{ read: () => Promise<{ inserted: number; updated: number }>; end: () => Promise<void> } | null> {
  if (!url.startsWith('mysql:')) return null;
  const c = await mysql.createConnection(url);
  return {
    read: async () => {
      const [rows] = await c.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Handler_write', 'Handler_update')");
      const value = (name: string) => Number((rows as { Variable_name: string; Value: string }[]).find((r) => r.Variable_name === name)?.Value ?? NaN);
      return { inserted: value('Handler_write'), updated: value('Handler_update') };
    },
    end: () => c.end(),
  };
}

export async function post<T>(origin: string, path: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(origin + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export const tokenFor = async (origin: string, userName: string, password: string, siteId?: string) =>
  (await post<{ access_token: string }>(origin, '/v4/auth/token', { UserName: userName, Password: password, ...(siteId ? { SiteID: siteId } : {}) }))
    .access_token;

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function log(msg: string): void {
  process.stderr.write(`bench: ${msg}\n`);
}

/**
 * Applies the migrations to `databaseUrl` in a process of their own (`dist/src/database/migrate.js`),
 * as the image and the Kubernetes Job do before the service starts, so the run measures the
 * service as it is deployed. (A service that migrates at its own start does it in a worker
 * thread: docs/performance.md, "Migrations apart from the serving heap".)
 */
export function migrateFirst(databaseUrl: string): void {
  execFileSync(process.execPath, ['dist/src/database/migrate.js'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', DATABASE_URL: databaseUrl, JWT_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/**
 * The service as its own process on `databaseUrl` (pinned to core 0 when the machine can), with a
 * fresh JWT secret and the bootstrap administrator's `password`; `node` is the command line (so a
 * run can add `--cpu-prof`). Answers the process, its origin and the environment it was given.
 */
export async function startService(
  databaseUrl: string,
  password: string,
  node: string[] = [process.execPath, ...serviceNodeFlags(), 'dist/src/main.js'],
  extraEnv: Record<string, string> = {},
): Promise<{ service: Proc; origin: string; metrics: string | null; env: Record<string, string> }> {
  const env = {
    ...serviceEnv(),
    NODE_ENV: 'production',
    PORT: '0',
    METRICS_PORT: '0',
    DATABASE_URL: databaseUrl,
    JWT_SECRET: randomBytes(32).toString('hex'),
    ADMIN_PASSWORD: password,
    LOG_LEVEL: 'info',
    // The request budgets count every request (their cost is measured) but never refuse one: the bench's load is far over them.
    RATE_LIMIT_PER_CALLER: '1000000000',
    RATE_LIMIT_PER_SITE: '1000000000',
    ...extraEnv,
  };
  const service = await startProcess('service', pinned(0, node), env, /listening on http:\/\/[^:/\s]+:(\d+)/);
  const origin = `http://127.0.0.1:${service.port}`;
  log(`service pid ${service.pid} on ${origin}${PIN ? ', pinned to core 0 (load generator on core 1)' : ', not pinned'}`);
  // The listening line names the metrics port it took (METRICS_PORT=0).
  const metricsPort = /Prometheus metrics on port (\d+)/.exec(service.head)?.[1];
  return { service, origin, metrics: metricsPort ? `http://127.0.0.1:${metricsPort}` : null, env };
}

/** Chunks counted, and the seconds of each phase summed over them. */
export interface BulkPhases {
  chunks: number;
  readsAhead: number;
  items: number;
  commit: number;
}

/** Nothing counted yet. */
export const noPhases = (): BulkPhases => ({ chunks: 0, readsAhead: 0, items: 0, commit: 0 });

/** Adds what a step's chunks spent (`after` less `before`, read around it) to `into`, and answers it. */
export function addPhasesSpent(into: BulkPhases, before: BulkPhases, after: BulkPhases): BulkPhases {
  for (const k of ['chunks', 'readsAhead', 'items', 'commit'] as const) into[k] += after[k] - before[k];
  return into;
}

/**
 * The chunks of a resource's bulk writes so far, from the service's metrics (docs/operations.md,
 * "Metrics"): how many, and the seconds of each phase summed over them. Read before and after a
 * step, the difference is the step's.
 */
export async function bulkPhases(metrics: string, resource: string): Promise<BulkPhases> {
  const text = await (await fetch(`${metrics}/metrics`)).text();
  const value = (name: string, phase: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`resource="${resource}"`) && l.includes(`phase="${phase}"`));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  };
  const sum = (phase: string) => value('pms_bulk_chunk_phase_seconds_sum', phase);
  return { chunks: value('pms_bulk_chunk_phase_seconds_count', 'items'), readsAhead: sum('reads_ahead'), items: sum('items'), commit: sum('commit') };
}

/** The JSON body of a goal of `individualId` in `periodId`, as the bench rows write it. */
export function goalBody(individualId: string, periodId: number): string {
  const d = (iso: string) => `${iso}T00:00:00.000+00:00`;
  return JSON.stringify({
    IndividualID: individualId,
    Name: 'Grow revenue',
    Completed: false,
    Comment: 'On track',
    Why: 'Because we must',
    DueDate: d('2026-12-31'),
    PeriodID: periodId,
    Measure1: 'Sign 3 customers',
    Measure2: '',
    Measure3: 'Hire a rep',
    Measure4: 'Open an office',
    Measure5: '',
    Measure1Completed: false,
    Measure2Completed: false,
    Measure3Completed: false,
    Measure4Completed: false,
    Measure5Completed: false,
    Measure1StartDate: d('2026-01-01'),
    Measure1EndDate: d('2026-03-31'),
    Measure2StartDate: d('2026-01-01'),
    Measure2EndDate: d('2026-01-01'),
    Measure3StartDate: d('2026-02-01'),
    Measure3EndDate: null,
    Measure4StartDate: d('2026-04-01'),
    Measure4EndDate: d('2026-06-30'),
    Measure5StartDate: d('2026-07-01'),
    Measure5EndDate: d('2026-09-30'),
  });
}

/** One API call as JSON with a bearer token; anything but `expect` (200) throws with the answer's start. */
export async function call(origin: string, token: string, method: string, path: string, body?: unknown, expect = 200): Promise<unknown> {
  const res = await fetch(origin + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : null;
}

/**
 * The individual the bulk and import rows write (bench/bulk.ts, bench/scale.ts): `run`'s `i`th, upserted by its
 * ExternalID, with a login account (UserName) as an HR feed gives one, in `orgId`, reporting to nobody.
 */
export const benchPerson = (run: string, i: number, orgId: string, title = 'Analyst') => ({
  ExternalID: `${run}-${i}`,
  FirstName: 'Bench',
  LastName: `Person ${i}`,
  UserName: `${run}.${i}`,
  Email: `${run}.${i}@example.test`,
  UserEmail: `${run}.${i}@example.test`,
  PrimaryOrganizationID: orgId,
  PrimaryTitle: title,
  PrimaryReportsTo: null,
});

/** `run`'s `rows` people (benchPerson) as one CSV file (a header row of field names, empty cells for null), built in slices. */
export function peopleCsv(run: string, rows: number, orgId: string): Buffer {
  const parts: Buffer[] = [];
  for (let from = 0; from < rows; from += 10_000) {
    const slice = Array.from({ length: Math.min(10_000, rows - from) }, (_, k) => benchPerson(run, from + k, orgId));
    parts.push(Buffer.from(stringify(slice, { header: from === 0, record_delimiter: 'windows' })));
  }
  return Buffer.concat(parts);
}

/** Reads `pid`'s RSS every `everyMs` until stopped; answers the highest reading. */
export function sampleRss(pid: number, everyMs = 100): { stop: () => number; peak: () => number } {
  let peakMb = rssMb(pid);
  const timer = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), everyMs);
  /** The peak so far, sampling on. */
  const peak = () => Math.max(peakMb, rssMb(pid));
  return {
    peak,
    stop: () => {
      clearInterval(timer);
      return peak();
    },
  };
}

/** Reads a whole answer, sampling `pid`'s RSS meanwhile; answers the seconds, the bytes and the RSS peak. */
export async function download(url: string, headers: Record<string, string>, pid: number): Promise<{ s: number; bytes: number; peakMb: number }> {
  const rss = sampleRss(pid, 50);
  const t0 = performance.now();
  try {
    const res = await fetch(url, { headers });
    if (res.status !== 200 || !res.body) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
    return { s: (performance.now() - t0) / 1000, bytes, peakMb: rss.stop() };
  } finally {
    rss.stop();
  }
}

export interface ImportJob {
  ID: string;
  State: string;
  RowsTotal: number | null;
  RowsRead: number;
  RowsWritten: number;
  RowsFailed: number;
  Problem: string | null;
}

/**
 * One import end to end (docs/imports.md): `POST /v4/imports?kind=individuals&mode=upsert` with the CSV
 * `file`, then the job read every 200 ms until it has ended. `whileRunning`, if given, runs once the job
 * is running (e.g. reads measured meanwhile). Answers the seconds from the POST to the job's end, the
 * job as it ended (it must have succeeded with every row written), the RSS peak of the service `pid`
 * (the replica that imports) read every 100 ms throughout, and what `whileRunning` answered.
 */
export async function importCsv<T>(
  origin: string,
  token: string,
  file: Buffer,
  pid: number,
  whileRunning?: (job: () => Promise<ImportJob>) => Promise<T>,
): Promise<{ s: number; job: ImportJob; peakRssMb: number; postPeakRssMb: number; during?: T }> {
  const rss = sampleRss(pid);
  const t0 = performance.now();
  try {
    const res = await fetch(`${origin}/v4/imports?kind=individuals&mode=upsert`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/csv', Accept: 'application/json' },
      body: file,
    });
    if (res.status !== 202) throw new Error(`POST /v4/imports: ${res.status} ${(await res.text()).slice(0, 500)}`);
    const id = ((await res.json()) as ImportJob).ID;
    // The peak while the file was stored and checked (the POST), apart from the rows' writing after it.
    const postPeakRssMb = rss.peak();
    const read = async () => (await call(origin, token, 'GET', `/v4/imports/${id}`)) as ImportJob;
    let during: T | undefined;
    let logged = 0;
    for (;;) {
      const job = await read();
      if (!['queued', 'running'].includes(job.State)) {
        const s = (performance.now() - t0) / 1000;
        if (job.State !== 'succeeded' || job.RowsFailed || job.RowsWritten !== job.RowsTotal)
          throw new Error(
            `import ${id}: ${job.State}, ${job.RowsWritten} of ${String(job.RowsTotal)} written, ${job.RowsFailed} failed: ${String(job.Problem)}`,
          );
        return { s, job, peakRssMb: rss.stop(), postPeakRssMb, during };
      }
      if (job.State === 'running' && whileRunning && during === undefined) during = await whileRunning(read);
      if (Date.now() - logged > 10_000) {
        logged = Date.now();
        log(`import: ${job.State}, ${fmt(job.RowsRead)} of ${job.RowsTotal === null ? '?' : fmt(job.RowsTotal)} rows read, RSS ${fmt(rssMb(pid))} MB`);
      }
      await sleep(200);
    }
  } finally {
    rss.stop();
  }
}

/**
 * One of the formats an export is asked in (`Accept`), and the share of the export limit it targets
 * (0: none). `encoding`: the `Accept-Encoding` sent (`identity` unless given: the limit does not
 * compress, so neither may the export that is compared with it; fetch would ask for gzip).
 */
export interface ExportFormat {
  name: string;
  accept: string;
  target: number;
  encoding?: string;
}

/**
 * Exports against the export limit (bench/raw-server.ts `GET /individuals.csv`): `rows` individuals of
 * `siteId` streamed by the yardstick and by `GET /v4/individuals` in each of `formats`, a first (warm-up)
 * export of each unless `warm` is false, then `rounds` rounds taking turns (the order reversed every other
 * round); the service's RSS is read every 50 ms while it exports. Answers the table rows: rows a second
 * (medians), each format's share of the limit against its target, and the RSS growth (≤ 50 MB) of the
 * measured rounds over the RSS before each export — and, for the record, the warm-up's, whose first
 * exports grow a fresh process's heap to its working size once.
 */
export async function exportRows(opts: {
  origin: string;
  token: string;
  servicePid: number;
  rawOrigin: string;
  rawPid: number;
  siteId: string;
  rows: number;
  formats: readonly ExportFormat[];
  rounds: number;
  warm?: boolean;
}): Promise<string[]> {
  const times: Record<string, number[]> = Object.fromEntries(['limit', ...opts.formats.map((f) => f.name)].map((n) => [n, []]));
  let growth = 0;
  let warmGrowth = 0;
  const runs = [
    {
      name: 'limit',
      go: (_measured: boolean) => download(`${opts.rawOrigin}/individuals.csv?site=${opts.siteId}`, { 'Accept-Encoding': 'identity' }, opts.rawPid),
    },
    ...opts.formats.map((f) => ({
      name: f.name,
      go: async (measured: boolean) => {
        const before = rssMb(opts.servicePid);
        const r = await download(
          `${opts.origin}/v4/individuals`,
          { Authorization: `Bearer ${opts.token}`, Accept: f.accept, 'Accept-Encoding': f.encoding ?? 'identity' },
          opts.servicePid,
        );
        if (measured) growth = Math.max(growth, r.peakMb - before);
        else warmGrowth = Math.max(warmGrowth, r.peakMb - before);
        return { ...r, grewMb: r.peakMb - before };
      },
    })),
  ];
  // A first export of each warms the statements and the record memo.
  if (opts.warm !== false) for (const run of runs) await run.go(false);
  for (let r = 0; r < opts.rounds; r++) {
    for (const run of r % 2 === 0 ? runs : [...runs].reverse()) {
      const done: { s: number; bytes: number; grewMb?: number } = await run.go(true);
      times[run.name].push(done.s);
      const grew = done.grewMb === undefined ? '' : `, the service's RSS up to ${fmt(done.grewMb, 0)} MB over its RSS before`;
      log(`export round ${r + 1}/${opts.rounds} ${run.name}: ${fmt(opts.rows)} rows, ${fmt(done.bytes / 1e6, 1)} MB in ${fmt(done.s, 2)} s${grew}`);
    }
  }
  const rate = (name: string) => opts.rows / median(times[name]);
  const lines = [`| the export limit (one SELECT streamed as CSV) | ${fmt(rate('limit'))} | 1.00 | | |`];
  for (const f of opts.formats) {
    const ratio = rate(f.name) / rate('limit');
    lines.push(
      `| \`GET /v4/individuals\` as ${f.name} | ${fmt(rate(f.name))} | ${fmt(ratio, 2)} | ${f.target ? `≥ ${f.target}` : ''} | ${f.target ? (ratio >= f.target ? 'met' : '**not met**') : ''} |`,
    );
  }
  lines.push(
    `| the service's RSS while exporting, most over its RSS before (measured rounds) | ${fmt(growth, 0)} MB | | ≤ 50 MB | ${growth <= 50 ? 'met' : '**not met**'} |`,
  );
  if (opts.warm !== false) lines.push(`| the same in the warm-up exports (a fresh process's first) | ${fmt(warmGrowth, 0)} MB | | | |`);
  return lines;
}

/** The yardstick (bench/raw-server.ts) as its own process on `databaseUrl`, pinned as the service is; answers it and its origin. */
export async function startYardstick(databaseUrl: string): Promise<{ raw: Proc; rawOrigin: string }> {
  const raw = await startProcess(
    'yardstick',
    pinned(0, [process.execPath, ...serviceNodeFlags(), join(here, 'raw-server.js')]),
    { DATABASE_URL: databaseUrl },
    /listening (\d+)/,
  );
  return { raw, rawOrigin: `http://127.0.0.1:${raw.port}` };
}

/**
 * `job` measured against its baseline `base` as bench.ts measures a row (docs/performance.md): in each
 * of `rounds` rounds half of the baseline's slot runs just before the job and half just after, each
 * run once `settleAll` says the processes are idle, and the round's ratio is the job's req/s to the
 * baseline's around it. Answers the medians over the rounds: the ratio, both req/s and the job's p99.
 * An answer other than 2xx fails the run (`what` names it).
 */
export async function versus(
  what: string,
  job: LoadJob,
  base: LoadJob,
  rounds: number,
  settleAll: () => Promise<void>,
): Promise<{ ratio: number; rps: number; baseRps: number; p99: number }> {
  const run = async (j: LoadJob, duration: number, name: string) => {
    await settleAll();
    const r = await load({ ...j, duration });
    if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors ${JSON.stringify(r.statuses)}`);
    return r;
  };
  const m = { ratio: [] as number[], rps: [] as number[], baseRps: [] as number[], p99: [] as number[] };
  for (let k = 0; k < rounds; k++) {
    const before = await run(base, base.duration / 2, `${what} (baseline)`);
    const r = await run(job, job.duration, what);
    const after = await run(base, base.duration / 2, `${what} (baseline)`);
    const b = (before.requests + after.requests) / (before.seconds + after.seconds);
    m.ratio.push(r.rps / b);
    m.rps.push(r.rps);
    m.baseRps.push(b);
    m.p99.push(r.p99);
    log(`round ${k + 1}/${rounds}: ${what}: ${fmt(r.rps)} req/s (${fmt(b)} req/s of its baseline around it)`);
  }
  return { ratio: median(m.ratio), rps: median(m.rps), baseRps: median(m.baseRps), p99: median(m.p99) };
}

/**
 * Waits until every dashboard of `paths` is answered from its summaries (`Dashboard-Source:
 * summaries`, docs/dashboards.md), as a site's are once its summaries are built: a bench measures
 * the site users read, not the minutes after a bulk load while the whole site's summaries are built
 * (about 130 s of the database's time for 1,000,000 people) beside it. A service that answers
 * without the header keeps no summaries; there is nothing to wait for. At most `waitSeconds`.
 */
export async function awaitSummaries(origin: string, token: string, paths: readonly string[], waitSeconds: number): Promise<void> {
  const since = Date.now();
  let said = since;
  for (;;) {
    const sources: (string | null)[] = [];
    for (const path of paths) {
      const res = await fetch(origin + path, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } });
      await res.arrayBuffer();
      // A site with no period has no dashboard (404) and its summaries hold nothing to build.
      if (res.status !== 200) return log(`dashboards: ${path} answered ${res.status}; no summaries to wait for`);
      sources.push(res.headers.get('dashboard-source'));
    }
    if (sources.every((s) => s === null)) return log('dashboards: answered without Dashboard-Source (no summaries kept)');
    if (sources.every((s) => s === 'summaries')) return log(`dashboards: answered from summaries after ${Math.round((Date.now() - since) / 1000)} s`);
    if (Date.now() - since > waitSeconds * 1000) throw new Error(`dashboards: still answered from ${sources.join(', ')} after ${waitSeconds} s`);
    if (Date.now() - said >= 15_000) {
      said = Date.now();
      log(`dashboards: waiting for the summaries to be built (${Math.round((said - since) / 1000)} s)`);
    }
    await sleep(1000);
  }
}
