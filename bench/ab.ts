/**
 * Compares builds of the service on one load (docs/performance.md, "Comparing builds"): a change
 * worth 10 % of a read's CPU is below the noise between two runs of `npm run bench` on a shared
 * machine, but shows plainly when the builds run side by side and take turns.
 *
 *   npm run bench:ab -- HEAD~1 .           # a git ref (commit, branch, tag) or `.`, the working tree
 *   npm run bench:ab -- --sqlite v1 v2     # on SQLite instead of MariaDB
 *   npm run bench:ab -- HEAD HEAD+--max-semi-space-size=32   # one build, with and without a node option
 *   npm run bench:ab -- HEAD HEAD+RATE_LIMIT_PER_CALLER=0+RATE_LIMIT_PER_SITE=0   # with and without a setting
 *
 * Each ref's `src/` is compiled with this checkout's TypeScript and node_modules into
 * `.bench-builds/<commit>/` (git-ignored, reused by later runs; `.` is compiled anew each run).
 * The first build applies its migrations in a process of its own, stopped before the builds are
 * started one after another on that database (each applies any migrations it knows that are not
 * done), seeded once (1,000 individuals in a reporting tree, a comment each),
 * all pinned to core 0, and warmed up. Then each round loads every build in turn with autocannon
 * from core 1 (the order reverses every other round) and reads the server CPU per request from
 * /proc. Prints one Markdown table, a row per build: each round, the medians, and its RSS at the end.
 *
 * Knobs (environment): AB_ROUNDS (4), AB_DURATION seconds per build and round (5),
 * AB_CONNECTIONS (50), AB_ROW: `byid` (GET /v4/individuals/{id} JSON as administrator, default),
 * `byid-xml`, `page` (GET /v4/individuals?limit=500), `live` (GET /health/live) or `write`
 * (POST /v4/colors JSON as administrator: a write, with whatever each build records with it) or
 * `comment` (POST /v4/comments on each individual in turn: the write `npm run bench` measures), or
 * `list` (GET /v4/individuals/{id}/comments: a short list, with its checks), `comments` (the
 * comments of one individual, 21 of them: 20 posted by the administrator, as `npm run bench` reads them), `goal`
 * (GET /v4/goals/{id}, 20 goals), `goals` (GET /v4/individuals/{id}/goals: those 20), `putgoal`
 * (PUT /v4/goals/{id} without If-Match, one goal on each of 200 individuals in turn) or `org`
 * (GET /v4/organizations/{id}): the general read path (ScopedRepository, resource mapping, codec),
 * or `bulk` (POST /v4/individuals/bulk, AB_BULK_ITEMS (100) new people a request, as bench:bulk
 * writes them: CPU per request is per AB_BULK_ITEMS items; use few AB_CONNECTIONS), or `bulk-changed`
 * (the same AB_BULK_ITEMS people upserted again and again, their PrimaryTitle changed by every request),
 * or `bulk-same` (the same people upserted again and again unchanged: the floor of a bulk item, nothing written).
 * AB_RATE=<requests per second> offers every build the same load instead of as much as each
 * answers: the CPU per request of builds of different throughput is then compared at one rate (a
 * server answering more at once spends less per request on its sockets and buffers).
 * AB_ENV='NAME=value NAME=value' passes settings to every build's service (e.g. `DASHBOARD_SUMMARIES=off`).
 * AB_PROFILE=1 runs each build under `--cpu-prof` and prints, per build, where the CPU of its last
 * round went (self time per request by package or folder, and the hottest functions), to see what a
 * difference between two builds is made of; AB_PROFILE_KEEP=1 keeps the .cpuprofile files.
 * AB_PROFILE_FOCUS='spend,writeHead' adds the inclusive time (with everything they call) of the
 * functions so named, per request and as a share of the busy time: what one part of the path costs.
 * A finer profile: a ref with `+--cpu-prof-interval=100` (µs between samples; 1,000 by default).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/config.js';
import { dataSourceOptions, detectMysqlFlavor } from '../src/database/data-source.js';
import {
  createDatabase,
  envWords,
  fmt,
  benchPerson,
  goalBody,
  load,
  loadMeasured,
  log,
  median,
  num,
  post,
  root,
  rssMb,
  serviceNodeFlags,
  settle,
  startService,
  stopProcess,
  tokenFor,
  type Proc,
} from './common.js';
import type { LoadRequest } from './load.js';
import { seedSite } from './seed.js';
import { breakdownTables, summarise } from './profile.js';
import type { SeededSite } from './seed.js';

/** AB_ENV: settings for every build's service, as `NAME=value` words. */
const EXTRA_ENV = envWords('AB_ENV');
const ROUNDS = num('AB_ROUNDS', 4);
const DURATION = num('AB_DURATION', 5);
const CONNECTIONS = num('AB_CONNECTIONS', 50);
const ROW = process.env.AB_ROW ?? 'byid';
const SQLITE = process.argv.includes('--sqlite');
const PROFILE = process.env.AB_PROFILE === '1';
const FOCUS = (process.env.AB_PROFILE_FOCUS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const RATE = process.env.AB_RATE ? num('AB_RATE', 0) : undefined;
const PASSWORD = 'bench-password-1';
const BUILDS = join(root, '.bench-builds');

interface Build {
  ref: string;
  dist: string;
  /** Node options given after the ref (`HEAD+--max-semi-space-size=32`): the same build run with other runtime flags. */
  nodeFlags: string[];
  /** Settings given after the ref (`HEAD+RATE_LIMIT_PER_SITE=0`): the same build with other settings, over AB_ENV's. */
  env: Record<string, string>;
}
interface Running extends Build {
  service: Proc;
  origin: string;
  requests: LoadRequest[];
  cpuUs: number[];
  rps: number[];
  /** With AB_PROFILE: where the profile is written, and the last round's window and requests. */
  profileDir?: string;
  window?: { fromUs: number; toUs: number; requests: number };
}

const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
/**
 * Compiles a project. An older ref may not type-check against this checkout's node_modules (a
 * dependency added or removed since); TypeScript still writes its JavaScript, which is what runs.
 */
function tsc(project: string, outDir: string): void {
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project, '--outDir', outDir], { cwd: root, stdio: 'pipe' });
  } catch (err) {
    if (!existsSync(join(outDir, 'src', 'main.js'))) throw err;
    log(`${project}: type errors against this checkout's node_modules; running the JavaScript it wrote`);
  }
}

/** A build to run: a ref (or `.`), compiled, and any node options (`--…`) and settings (`NAME=value`) that follow it after `+`. */
function build(arg: string): Build {
  const [ref, ...more] = arg.split('+');
  const settings = more.filter((w) => !w.startsWith('-') && w.includes('='));
  const env = Object.fromEntries(settings.map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
  return { ...compiled(ref), ref: arg, nodeFlags: more.filter((w) => !settings.includes(w)), env };
}

/** Compiles a ref (or `.`) into .bench-builds and answers where its main.js is. */
function compiled(ref: string): Omit<Build, 'nodeFlags' | 'env'> {
  if (ref === '.') {
    const dist = join(BUILDS, 'worktree', 'dist');
    rmSync(dist, { recursive: true, force: true });
    log('compiling the working tree');
    tsc(join(root, 'tsconfig.build.json'), dist);
    return { ref, dist };
  }
  const sha = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = join(BUILDS, sha);
  const dist = join(dir, 'dist');
  if (existsSync(join(dist, 'src', 'main.js'))) return { ref, dist };
  const tree = join(dir, 'tree');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(tree, { recursive: true });
  log(`compiling ${ref} (${sha.slice(0, 10)})`);
  const files = ['src', 'ormconfig.ts', 'tsconfig.json', 'tsconfig.build.json'].filter((f) => git('ls-tree', '--name-only', sha, f) !== '');
  execFileSync('sh', ['-c', `git archive ${sha} ${files.join(' ')} | tar -x -C "${tree}"`], { cwd: root, stdio: 'inherit' });
  tsc(join(tree, 'tsconfig.build.json'), dist);
  return { ref, dist };
}

async function main(): Promise<void> {
  const refs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  if (refs.length < 2) throw new Error('usage: npm run bench:ab -- <ref> <ref> [...]   (a git ref, or . for the working tree)');
  const builds = refs.map(build);
  const database = await createDatabase(SQLITE);
  const running: Running[] = [];
  try {
    let env: Record<string, string> = {};
    // The schema is made by a process of its own, stopped before the builds start: the build that
    // applied the migrations ran ~10 % slower than an identical build started after it (its heap
    // and compiled code carry the migration run), which would favour every build but the first.
    const migrator = await startService(database.url, PASSWORD, [process.execPath, ...serviceNodeFlags(), join(builds[0].dist, 'src', 'main.js')], EXTRA_ENV);
    await stopProcess(migrator.service);
    for (const b of builds) {
      const profileDir = PROFILE ? mkdtempSync(join(tmpdir(), 'pms-ab-prof-')) : undefined;
      const flags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
      const started = await startService(
        database.url,
        PASSWORD,
        [process.execPath, ...serviceNodeFlags(), ...b.nodeFlags, ...flags, join(b.dist, 'src', 'main.js')],
        { ...EXTRA_ENV, ...b.env },
      );
      env = started.env;
      running.push({ ...b, service: started.service, origin: started.origin, requests: [], cpuUs: [], rps: [], profileDir });
    }
    const config = loadConfig({ ...env, NODE_ENV: 'production' });
    const ds = new DataSource(dataSourceOptions(config, await detectMysqlFlavor(config)));
    await ds.initialize();
    const site = await seedSite(ds, { name: 'A/B', size: 1000, busyComments: 0, password: PASSWORD });
    if (!SQLITE) await ds.query('ANALYZE TABLE individuals, comments, organizations, users');
    await ds.destroy();

    const fixture = await fixtureOf(running[0].origin, site);
    for (const r of running) {
      const token = await tokenFor(r.origin, 'admin', PASSWORD, site.siteId);
      const headers = { Authorization: `Bearer ${token}`, Accept: ROW === 'byid-xml' ? 'application/xml' : 'application/json' };
      r.requests = requestsOf(fixture, headers);
      await load({ origin: r.origin, requests: r.requests, connections: CONNECTIONS, duration: 2 });
    }

    for (let round = 1; round <= ROUNDS; round++) {
      for (const r of round % 2 ? running : [...running].reverse()) {
        for (const other of running) await settle(other.service.pid);
        const fromUs = Number(process.hrtime.bigint() / 1000n);
        const { result, cpuMs } = await loadMeasured(r.service.pid, {
          origin: r.origin,
          requests: r.requests,
          connections: CONNECTIONS,
          duration: DURATION,
          rate: RATE,
        });
        if (result.non2xx || result.errors) throw new Error(`${r.ref}: ${result.non2xx} non-2xx, ${result.errors} errors\n${r.service.tail().slice(-3000)}`);
        r.cpuUs.push((cpuMs * 1000) / result.requests);
        r.rps.push(result.rps);
        r.window = { fromUs, toUs: Number(process.hrtime.bigint() / 1000n), requests: result.requests };
        log(`round ${round}: ${r.ref}: ${rate(result.rps)} req/s, ${fmt(r.cpuUs.at(-1)!)} µs CPU per request`);
      }
    }

    const lines = [
      `## A/B: \`${ROW}\`, ${SQLITE ? 'SQLite' : 'MariaDB'}, ${ROUNDS} rounds × ${DURATION} s, ${CONNECTIONS} connections${RATE ? `, offered ${fmt(RATE)} requests per second` : ''}, node ${process.version}, ${new Date().toISOString().slice(0, 10)}`,
      '',
      '| build | CPU µs / request, median | each round | req/s, median | RSS after the rounds, MB |',
      '|---|---:|---|---:|---:|',
      ...running.map(
        (r) => `| \`${r.ref}\` | ${fmt(median(r.cpuUs))} | ${r.cpuUs.map((x) => fmt(x)).join(', ')} | ${rate(median(r.rps))} | ${fmt(rssMb(r.service.pid))} |`,
      ),
    ];
    if (PROFILE) lines.push(...(await profiles(running)));
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    for (const r of running) await stopProcess(r.service);
    await database.drop();
  }
}

/** What the rows read beyond the seeded site: one individual's 20 goals and 20 more comments on them (posted through the API), for the rows that read them. */
interface Fixture {
  ids: string[];
  orgId: string;
  listed: string;
  goalIds: number[];
  periodId: number;
}

const SHORT = 20;
/** Items of a request of the `bulk` row. */
const BULK_ITEMS = num('AB_BULK_ITEMS', 100);

async function fixtureOf(origin: string, site: SeededSite): Promise<Fixture> {
  const listed = site.listedId;
  const goalIds: number[] = [];
  if (ROW === 'goal' || ROW === 'goals' || ROW === 'comments') {
    const token = await tokenFor(origin, 'admin', PASSWORD, site.siteId);
    for (let k = 0; k < SHORT; k++) goalIds.push((await post<{ ID: number }>(origin, '/v4/goals', JSON.parse(goalBody(listed, site.periodId)), token)).ID);
    for (let k = 0; k < SHORT; k++) await post(origin, '/v4/comments', { AncestorType: 'individuals', AncestorID: listed, Body: `Listed ${k}` }, token);
  }
  if (ROW === 'putgoal') {
    // One goal on each of 200 individuals, so 50 connections seldom wait for one goal's lock.
    const token = await tokenFor(origin, 'admin', PASSWORD, site.siteId);
    for (const id of site.ids.slice(0, 200)) goalIds.push((await post<{ ID: number }>(origin, '/v4/goals', JSON.parse(goalBody(id, site.periodId)), token)).ID);
  }
  return { ids: site.ids, orgId: site.orgId, listed, goalIds, periodId: site.periodId };
}

/** Requests a second, with two decimals below 100 (a bulk row answers one or two a second). */
const rate = (rps: number) => fmt(rps, rps < 100 ? 2 : 0);

/** The requests of the row AB_ROW, on the seeded individuals, with the administrator's headers. */
function requestsOf({ ids, orgId, listed, goalIds, periodId }: Fixture, headers: Record<string, string>): LoadRequest[] {
  const json = { ...headers, 'Content-Type': 'application/json' };
  switch (ROW) {
    case 'comments':
      return [{ path: `/v4/individuals/${listed}/comments`, headers }];
    case 'goal':
      return goalIds.map((id) => ({ path: `/v4/goals/${id}`, headers }));
    case 'goals':
      return [{ path: `/v4/individuals/${listed}/goals`, headers }];
    case 'org':
      return [{ path: `/v4/organizations/${orgId}`, headers }];
    case 'live':
      return [{ path: '/health/live' }];
    case 'comment':
      return ids.map((id, k) => ({
        path: '/v4/comments',
        method: 'POST',
        headers: json,
        body: JSON.stringify({ AncestorType: 'individuals', AncestorID: id, Body: `A/B comment ${k}` }),
      }));
    case 'putgoal':
      return goalIds.map((id, k) => ({
        path: `/v4/goals/${id}`,
        method: 'PUT',
        headers: json,
        body: JSON.stringify({ ...(JSON.parse(goalBody(ids[k], periodId)) as object), ID: id, Name: `A/B goal ${k}` }),
      }));
    case 'bulk':
    case 'bulk-same':
    case 'bulk-changed': {
      // `bulk`: AB_BULK_ITEMS new people a request, each with a login account, upserted by ExternalID in the organization of the seeded site.
      // `bulk-changed`: the same people again and again, their title changed each time; `bulk-same`: unchanged, so each item is
      // read ahead, validated and found unchanged, nothing written (the first request of either creates them).
      const run = ROW === 'bulk' ? '[<n>]' : ROW === 'bulk-same' ? 'ab-same' : 'ab-changed';
      return (ROW === 'bulk-changed' ? ['Analyst', 'Lead'] : ['Analyst']).map((title) => ({
        path: '/v4/individuals/bulk',
        method: 'POST',
        headers: json,
        body: JSON.stringify({ Items: Array.from({ length: BULK_ITEMS }, (_, i) => ({ Op: 'upsert', Record: benchPerson(run, i, orgId, title) })) }),
      }));
    }
    case 'write':
      return [{ path: '/v4/colors', method: 'POST', headers: json, body: JSON.stringify({ Name: 'Bench', ColorValue: 1, MinPercent: 0, MaxPercent: 10 }) }];
    case 'list':
      return ids.map((id) => ({ path: `/v4/individuals/${id}/comments`, headers }));
    case 'page':
      return [{ path: '/v4/individuals?limit=500', headers }];
    default:
      return ids.map((id) => ({ path: `/v4/individuals/${id}`, headers }));
  }
}

/** Stops the builds (a profile is written at exit) and answers, per build, where its last round's CPU went. */
async function profiles(running: Running[]): Promise<string[]> {
  const out: string[] = [];
  for (const r of running) {
    await stopProcess(r.service, 'SIGTERM');
    const file = readdirSync(r.profileDir!).find((f) => f.endsWith('.cpuprofile'));
    if (!file || !r.window) continue;
    const b = summarise(join(r.profileDir!, file), r.window, FOCUS);
    const busyUs = ((b.busyMs * 1000) / r.window.requests).toFixed(1);
    out.push(
      '',
      `### \`${r.ref}\`: CPU profile of its last round (${fmt(r.window.requests)} requests, ${busyUs} µs busy per request)`,
      '',
      ...breakdownTables(b, r.window.requests),
    );
    if (process.env.AB_PROFILE_KEEP === '1') log(`profile of ${r.ref} kept in ${r.profileDir}`);
    else rmSync(r.profileDir!, { recursive: true, force: true });
  }
  return out;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:ab: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
