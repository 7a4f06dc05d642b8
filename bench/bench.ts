/**
 * The hot-path benchmark (docs/performance.md). One command builds, then:
 *
 *  1. creates a MariaDB/MySQL database of its own (dropped at the end; `--sqlite` uses a temp file),
 *  2. starts the built service (`node dist/src/main.js` with `npm start`'s node options,
 *     NODE_ENV=production, access log on) as its own process, pinned to core 0 with taskset when
 *     the machine has two cores or more,
 *  3. seeds two sites through the data layer (1,000 and 10,000 individuals in a reporting tree,
 *     a comment on each, one individual with 100,000 comments and one with none),
 *  4. starts the yardstick (bench/raw-server.ts: node:http + mysql2, same tables, same node options)
 *     pinned the same way,
 *  5. drives every row with autocannon from another process (pinned to core 1), in rounds; each
 *     row's baseline (the yardstick, or the row it is compared with) runs half a slot just before it
 *     and half just after, and the row's ratio is taken to that, so a machine whose speed drifts
 *     within a run (a shared host) slows both sides of a ratio alike,
 *  6. seeds a third site for the dashboards (bench/seed-dashboards.ts: BENCH_DASH_SIZE individuals,
 *     10,000, in departments of 100 with about 25 records each), waits until its dashboards are
 *     answered from their summaries, and measures an individual's, a department's and the whole
 *     organization's dashboard as ratios to the by-id read,
 *  7. checks the server's RSS over a soak of mixed requests, and prints Markdown tables,
 *  8. runs bench/bulk.ts (`npm run bench:bulk`): bulk writes against the bulk limit, and an import of
 *     IMPORT_BENCH_ROWS (100,000) individuals with by-id reads while it runs (BENCH_BULK=0 leaves it out).
 *
 *   npm run bench                          # MariaDB at mysql://root@127.0.0.1:3306
 *   npm run bench -- --sqlite              # embedded SQLite
 *   npm run bench -- --profile             # also a --cpu-prof breakdown of by-id reads
 *   npm run bench -- --profile=page        # … of pages of 500 instead (--profile=page-xml: in XML)
 *   npm run bench -- --profile="POST /v4/comments"   # … of the first row whose name contains this
 *   BENCH_DURATION=8 BENCH_ROUNDS=2 BENCH_SOAK=200000 npm run bench
 *
 * Knobs (environment): BENCH_DATABASE_URL (server URL, the database name is ignored),
 * BENCH_DURATION seconds per row and round (5), BENCH_ROUNDS (2), BENCH_CONNECTIONS (50), BENCH_PAGE_CONNECTIONS (10),
 * BENCH_SMALL (1000), BENCH_LARGE (10000), BENCH_BUSY_COMMENTS (100000), BENCH_SOAK (200000, after a warm-up of half as many),
 * BENCH_PROFILE_REQUESTS (3000), BENCH_DASH_SIZE (10000; 0 leaves the dashboard rows out),
 * BENCH_DASH_DIVISIONS (10) × BENCH_DASH_PER_DIVISION (10) departments, BENCH_DASH_CONNECTIONS (10, for
 * the organization's dashboard), BENCH_DASH_WAIT (600 s at most for the summaries to be built),
 * BENCH_ENV='NAME=value …' (settings for the service, e.g. `RECORD_MEMO=0`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/config.js';
import { dataSourceOptions, detectMysqlFlavor } from '../src/database/data-source.js';
import type { LoadJob, LoadRequest, LoadResult } from './load.js';
import { breakdownTables, summarise } from './profile.js';
import { SeededSite, seedSite } from './seed.js';
import { seedDashboardSite } from './seed-dashboards.js';
import {
  awaitSummaries,
  goalBody,
  createDatabase,
  envWords,
  fmt,
  load,
  loadMeasured,
  log,
  median,
  migrateFirst,
  num,
  PIN,
  pinDatabase,
  databasePid,
  post,
  Proc,
  rssMb,
  quietAll,
  quietText,
  serviceNodeFlags,
  startService,
  startYardstick,
  stopProcess,
  tokenFor,
} from './common.js';

const here = dirname(fileURLToPath(import.meta.url));
const DURATION = num('BENCH_DURATION', 5);
const ROUNDS = num('BENCH_ROUNDS', 2);
const CONNECTIONS = num('BENCH_CONNECTIONS', 50);
const PAGE_CONNECTIONS = num('BENCH_PAGE_CONNECTIONS', 10);
const SMALL = num('BENCH_SMALL', 1000);
const LARGE = num('BENCH_LARGE', 10000);
const BUSY_COMMENTS = num('BENCH_BUSY_COMMENTS', 100000);
const SOAK = num('BENCH_SOAK', 200000);
const PROFILE_REQUESTS = num('BENCH_PROFILE_REQUESTS', 3000);
/** BENCH_ROWS: a pattern; only the rows whose name matches it run (with the yardsticks and the rows they are compared with). */
const ONLY = process.env.BENCH_ROWS ? new RegExp(process.env.BENCH_ROWS, 'i') : null;
const SQLITE = process.argv.includes('--sqlite');
const PROFILE_ARG = process.argv.find((a) => a === '--profile' || a.startsWith('--profile='));
const PROFILE = !!PROFILE_ARG;
/**
 * Which row `--profile` profiles: by-id reads; `--profile=page` pages of 500 (`--profile=page-xml`:
 * in XML); `--profile=<pattern>` the first row whose name matches the pattern (e.g. `POST /v4/comments`).
 */
const PROFILE_ROW =
  PROFILE_ARG === '--profile'
    ? /^`GET \/v4\/individuals\/\{id\}` JSON, administrator$/
    : PROFILE_ARG === '--profile=page'
      ? /limit=500` JSON/
      : PROFILE_ARG === '--profile=page-xml'
        ? /limit=500` XML/
        : PROFILE_ARG
          ? new RegExp(PROFILE_ARG.slice('--profile='.length).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i')
          : null;
const PASSWORD = 'bench-password-1';
/** The yardstick's name in the table. */
const RAW = SQLITE ? 'node:http + better-sqlite3' : 'node:http + mysql2';
const RAW_PAGE = `${RAW} page of 500 (the page limit)`;
/** The plain page the queried pages of 100 are compared with (docs/queries.md). */
const PLAIN_100 = '`GET /v4/individuals?limit=100` JSON, administrator (plain page of 100)';
const RAW_WRITE = `${RAW} one comment inserted in a transaction (the write limit)`;
const DELETABLE = num('BENCH_DELETABLE', 60000);
const DASH_SIZE = num('BENCH_DASH_SIZE', 10000);
const DASH_DIVISIONS = num('BENCH_DASH_DIVISIONS', 10);
const DASH_PER_DIVISION = num('BENCH_DASH_PER_DIVISION', 10);
const DASH_CONNECTIONS = num('BENCH_DASH_CONNECTIONS', 10);
const DASH_WAIT = num('BENCH_DASH_WAIT', 600);
/** The by-id read every dashboard row is compared with (the targets count dashboards in by-id reads). */
const BY_ID = '`GET /v4/individuals/{id}` JSON, administrator';
/** Records of the short lists (a list of 20, as the targets say). */
const SHORT = 20;

interface Row {
  name: string;
  /** Which process answers: the service or the yardstick. */
  target: 'service' | 'raw';
  requests: LoadRequest[];
  /** How the load uses the requests (bench/load.ts): in turn, each once, or one per connection with If-Match. */
  mode?: LoadJob['mode'];
  /** `if-match` rows: the requests with their current If-Match, fetched anew before every run. */
  refresh?: () => Promise<LoadRequest[]>;
  /** The row this one is compared with (default: the by-id yardstick). */
  versus?: string;
  /** Fewer for the 500-record pages, so that latency stays well inside a round. */
  connections?: number;
  /** Failed answers (a dashboard over its time limit) are counted and reported instead of ending the run. */
  tolerant?: boolean;
}

interface Measured {
  row: Row;
  /**
   * cpuMs: the server's; dbCpuMs: the local database server's over the same window (NaN on SQLite
   * or without one); base: the row's baseline (`versus`, or the limit) measured around it in the
   * same round, half a slot before and half after, which its ratio is taken to.
   */
  rounds: { result: LoadResult; cpuMs: number; dbCpuMs: number; base?: { requests: number; seconds: number } }[];
  /** Answers other than 2xx, over all rounds (tolerant rows only). */
  failures?: number;
}

async function main(): Promise<void> {
  const started = Date.now();
  const database = await createDatabase(SQLITE);
  let service: Proc | undefined;
  let raw: Proc | undefined;
  let ds: DataSource | undefined;
  // BENCH_PROFILE_DIR keeps the .cpuprofile (for Chrome DevTools or bench/profile.ts); else a temp folder, removed.
  const keptProfileDir = process.env.BENCH_PROFILE_DIR;
  const profileDir = PROFILE ? (keptProfileDir ?? mkdtempSync(join(tmpdir(), 'pms-bench-prof-'))) : '';
  const db = SQLITE ? { undo: () => undefined, note: '' } : pinDatabase();
  // The database server's CPU per request is read too when it runs on this machine (MariaDB's own
  // share of a request, which competes with the server for core 0 in the default placement).
  const local = !SQLITE && /^(127\.|localhost$|\[::1\]$)/.test(new URL(database.url).hostname);
  const dbPid = local ? databasePid() : null;
  const cleanup = async () => {
    db.undo();
    await stopProcess(service);
    await stopProcess(raw);
    if (ds?.isInitialized) await ds.destroy();
    await database.drop();
  };
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  try {
    const node = [process.execPath, ...serviceNodeFlags(), ...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), 'dist/src/main.js'];
    let origin: string;
    let env: Record<string, string>;
    migrateFirst(database.url);
    ({ service, origin, env } = await startService(database.url, PASSWORD, node, envWords('BENCH_ENV')));

    const config = loadConfig({ ...env, NODE_ENV: 'production' });
    ds = new DataSource(dataSourceOptions(config, await detectMysqlFlavor(config)));
    await ds.initialize();
    const small = await seedSite(ds, { name: 'Bench small', size: SMALL, busyComments: BUSY_COMMENTS, password: PASSWORD, deletable: DELETABLE });
    const large = await seedSite(ds, { name: 'Bench large', size: LARGE, busyComments: 0, password: PASSWORD });
    // The statistics InnoDB recalculates by itself some seconds after a bulk load, now: until then
    // the newest-comment lookup may scan instead of seek (docs/performance.md, "Record memo").
    if (!SQLITE) await ds.query('ANALYZE TABLE individuals, comments, organizations, users');
    log(`seeded ${SMALL} and ${LARGE} individuals, ${fmt(BUSY_COMMENTS)} comments on one individual (${Math.round((Date.now() - started) / 1000)} s)`);
    const dash = DASH_SIZE > 0 ? await seedDashboardSite(ds, { size: DASH_SIZE, divisions: DASH_DIVISIONS, perDivision: DASH_PER_DIVISION }) : null;
    if (dash) {
      // Seeded in SQL, past the change log: its summaries are built from scratch, as after any bulk
      // import (docs/operations.md, "After a bulk import"), and the rows wait for them (awaitSummaries).
      await ds.query('REPLACE INTO dashboard_summary_state (site_id, built_seq) VALUES (?, -1)', [dash.siteId]);
      if (!SQLITE)
        await ds.query(
          'ANALYZE TABLE individuals, organizations, organization_members, goals, commitments, dialogs, tasks, metrics, metric_values, projects, assessments, assessment_ratings, basic_role_dialogs',
        );
      log(`seeded the dashboards' site: ${fmt(DASH_SIZE)} individuals in ${dash.departmentIds.length} departments, ${fmt(dash.rows)} records`);
    }
    await ds.destroy();

    let rawOrigin: string;
    ({ raw, rawOrigin } = await startYardstick(database.url));

    const admin = { small: await tokenFor(origin, 'admin', PASSWORD, small.siteId), large: await tokenFor(origin, 'admin', PASSWORD, large.siteId) };
    const manager = await tokenFor(origin, small.manager.userName, PASSWORD);
    const h = (token: string, accept = 'application/json') => ({ Authorization: `Bearer ${token}`, Accept: accept });
    const byId = (site: SeededSite, headers: Record<string, string>) => site.ids.map((id) => ({ path: `/v4/individuals/${id}`, headers }));
    const rawById = (site: SeededSite) => site.ids.map((id) => ({ path: `/individuals/${id}?site=${site.siteId}` }));

    await checkAnswers(origin, rawOrigin, small, large, admin.small, manager);
    const dashToken = dash ? await tokenFor(origin, 'admin', PASSWORD, dash.siteId) : '';
    if (dash)
      await awaitSummaries(
        origin,
        dashToken,
        [`/v4/organizations/${dash.organizationId}/dashboards`, `/v4/individuals/${dash.individualIds[1]}/dashboards`],
        DASH_WAIT,
      );

    // The records of a user's mix: a short list of goals and of comments on one individual, and
    // one goal per connection for the conditional PUTs.
    const listed = small.listedId;
    // The write rows comment on every individual but those whose reads are measured as they were
    // seeded (the listed one's 21 comments, the quiet one's none, the busy one's 100,000): a later
    // round reads the same page as the first.
    const commentable = small.ids.filter((id) => id !== listed && id !== small.quietId && id !== small.busyId);
    const goalIds: number[] = [];
    for (let k = 0; k < SHORT; k++)
      goalIds.push((await post<{ ID: number }>(origin, '/v4/goals', JSON.parse(goalBody(listed, small.periodId)), admin.small)).ID);
    for (let k = 0; k < SHORT; k++) await post(origin, '/v4/comments', { AncestorType: 'individuals', AncestorID: listed, Body: `Listed ${k}` }, admin.small);
    const putGoals: number[] = [];
    for (let k = 0; k < CONNECTIONS; k++)
      putGoals.push((await post<{ ID: number }>(origin, '/v4/goals', JSON.parse(goalBody(small.ids[100 + k], small.periodId)), admin.small)).ID);
    const json = (token: string) => ({ ...h(token), 'Content-Type': 'application/json' });
    const putRequests = async (): Promise<LoadRequest[]> =>
      Promise.all(
        putGoals.map(async (id, k) => {
          const res = await fetch(`${origin}/v4/goals/${id}`, { headers: h(admin.small) });
          const body = (await res.json()) as Record<string, unknown>;
          return {
            path: `/v4/goals/${id}`,
            method: 'PUT' as const,
            headers: { ...json(admin.small), 'If-Match': res.headers.get('etag') ?? '*' },
            body: JSON.stringify({ ...JSON.parse(goalBody(small.ids[100 + k], small.periodId)), ID: id, Comment: `Reviewed ${String(body.Updated)}` }),
          };
        }),
      );

    const allRows: Row[] = [
      { name: `${RAW} \`SELECT * … WHERE id = ?\` (the limit)`, target: 'raw', requests: rawById(small) },
      { name: '`GET /health/live` (framework floor)', target: 'service', requests: [{ path: '/health/live' }] },
      { name: '`GET /v4/individuals/{id}` JSON, administrator', target: 'service', requests: byId(small, h(admin.small)) },
      // The targets compare these two with the administrator's JSON read, so that is their baseline.
      { name: '`GET /v4/individuals/{id}` JSON, manager (not an administrator)', target: 'service', requests: byId(small, h(manager)), versus: BY_ID },
      { name: '`GET /v4/individuals/{id}` XML, administrator', target: 'service', requests: byId(small, h(admin.small, 'application/xml')), versus: BY_ID },
      { name: '`GET /v4/individuals/{id}` XML, manager', target: 'service', requests: byId(small, h(manager, 'application/xml')) },
      { name: `\`GET /v4/individuals/{id}\` JSON, administrator, site of ${fmt(LARGE)}`, target: 'service', requests: byId(large, h(admin.large)) },
      {
        name: '`GET /v4/individuals/{id}` JSON, individual without comments',
        target: 'service',
        requests: [{ path: `/v4/individuals/${small.quietId}`, headers: h(admin.small) }],
      },
      {
        name: `\`GET /v4/individuals/{id}\` JSON, individual with ${fmt(BUSY_COMMENTS)} comments`,
        target: 'service',
        requests: [{ path: `/v4/individuals/${small.busyId}`, headers: h(admin.small) }],
        versus: '`GET /v4/individuals/{id}` JSON, individual without comments',
      },
      {
        name: RAW_PAGE,
        target: 'raw',
        requests: [{ path: `/individuals?site=${large.siteId}&limit=500` }],
        connections: PAGE_CONNECTIONS,
      },
      {
        name: '`GET /v4/individuals?limit=500` JSON, administrator',
        target: 'service',
        requests: [{ path: '/v4/individuals?limit=500', headers: h(admin.large) }],
        connections: PAGE_CONNECTIONS,
        versus: RAW_PAGE,
      },
      {
        name: '`GET /v4/individuals?limit=500` XML, administrator',
        target: 'service',
        requests: [{ path: '/v4/individuals?limit=500', headers: h(admin.large, 'application/xml') }],
        connections: PAGE_CONNECTIONS,
        versus: RAW_PAGE,
      },
      // Queried lists (docs/queries.md): a filtered and a sorted page of 100 against a plain one, on the large site.
      {
        name: PLAIN_100,
        target: 'service',
        requests: [{ path: '/v4/individuals?limit=100', headers: h(admin.large) }],
        connections: PAGE_CONNECTIONS,
      },
      {
        name: '`GET /v4/individuals?limit=100&filter=LastName sw "Last0001"` JSON (the 100 of 10,000 it selects)',
        target: 'service',
        requests: [{ path: `/v4/individuals?limit=100&filter=${encodeURIComponent('LastName sw "Last0001"')}`, headers: h(admin.large) }],
        connections: PAGE_CONNECTIONS,
        versus: PLAIN_100,
      },
      {
        name: '`GET /v4/individuals?limit=100&sort=-Updated` JSON',
        target: 'service',
        requests: [{ path: '/v4/individuals?limit=100&sort=-Updated', headers: h(admin.large) }],
        connections: PAGE_CONNECTIONS,
        versus: PLAIN_100,
      },
      {
        name: '`GET /v4/individuals?limit=100&cursor=start&fields=ID,UserName` JSON',
        target: 'service',
        requests: [{ path: '/v4/individuals?limit=100&cursor=start&fields=ID,UserName', headers: h(admin.large) }],
        connections: PAGE_CONNECTIONS,
        versus: PLAIN_100,
      },
      { name: '`GET /v4/me` (a manager)', target: 'service', requests: [{ path: '/v4/me', headers: h(manager) }] },
      { name: '`GET /v4/organizations/{id}`', target: 'service', requests: [{ path: `/v4/organizations/${small.orgId}`, headers: h(admin.small) }] },
      { name: '`GET /v4/goals/{id}`', target: 'service', requests: goalIds.map((id) => ({ path: `/v4/goals/${id}`, headers: h(admin.small) })) },
      { name: '`GET /v4/periods/{id}`', target: 'service', requests: [{ path: `/v4/periods/${small.periodId}`, headers: h(admin.small) }] },
      { name: '`GET /v4/sites/{id}`', target: 'service', requests: [{ path: `/v4/sites/${small.siteId}`, headers: h(admin.small) }] },
      {
        name: `\`GET /v4/individuals/{id}/goals\` (${SHORT})`,
        target: 'service',
        requests: [{ path: `/v4/individuals/${listed}/goals`, headers: h(admin.small) }],
      },
      {
        name: `\`GET /v4/individuals/{id}/comments\` (${SHORT + 1})`,
        target: 'service',
        requests: [{ path: `/v4/individuals/${listed}/comments`, headers: h(admin.small) }],
      },
      {
        name: RAW_WRITE,
        target: 'raw',
        requests: commentable.map((id) => ({ path: `/comments?site=${small.siteId}&on=${id}`, method: 'POST' as const })),
      },
      {
        name: '`POST /v4/comments` JSON',
        target: 'service',
        requests: commentable.map((id, k) => ({
          path: '/v4/comments',
          method: 'POST' as const,
          headers: json(admin.small),
          body: JSON.stringify({ AncestorType: 'individuals', AncestorID: id, Body: `Bench comment ${k}` }),
        })),
        versus: RAW_WRITE,
      },
      {
        name: '`PUT /v4/goals/{id}` JSON with If-Match',
        target: 'service',
        requests: [],
        mode: 'if-match',
        refresh: putRequests,
        versus: RAW_WRITE,
      },
      {
        name: '`DELETE /v4/comments/{id}`',
        target: 'service',
        requests: small.deletable.map((id) => ({ path: `/v4/comments/${id}`, method: 'DELETE' as const, headers: h(admin.small) })),
        mode: 'once',
        versus: RAW_WRITE,
      },
      {
        name: '`POST /v4/goals` JSON, administrator',
        target: 'service',
        requests: [
          {
            path: '/v4/goals',
            method: 'POST',
            headers: { ...h(admin.small), 'Content-Type': 'application/json' },
            body: goalBody(small.ids[7], small.periodId),
          },
        ],
        versus: RAW_WRITE,
      },
    ];

    if (dash) {
      const leaves = dash.departmentIds.filter((_, k) => k % DASH_PER_DIVISION !== 0);
      const perDepartment = Math.round(DASH_SIZE / dash.departmentIds.length);
      allRows.push(
        {
          name: '`GET /v4/individuals/{id}/dashboards`',
          target: 'service',
          requests: dash.individualIds.slice(0, 2000).map((id) => ({ path: `/v4/individuals/${id}/dashboards`, headers: h(dashToken) })),
          versus: BY_ID,
          tolerant: true,
        },
        {
          name: `\`GET /v4/departments/{id}/dashboards\` (a department of ${fmt(perDepartment)})`,
          target: 'service',
          requests: leaves.map((id) => ({ path: `/v4/departments/${id}/dashboards`, headers: h(dashToken) })),
          versus: BY_ID,
          tolerant: true,
        },
        {
          name: `\`GET /v4/organizations/{id}/dashboards\` (the whole site, ${fmt(DASH_SIZE)})`,
          target: 'service',
          requests: [{ path: `/v4/organizations/${dash.organizationId}/dashboards`, headers: h(dashToken) }],
          versus: BY_ID,
          connections: DASH_CONNECTIONS,
          tolerant: true,
        },
      );
    }

    const wanted = allRows.filter((r) => r.target === 'raw' || !ONLY || ONLY.test(r.name));
    const rows = allRows.filter((r) => wanted.includes(r) || wanted.some((w) => w.versus === r.name));
    const originOf = (r: Row) => (r.target === 'raw' ? rawOrigin : origin);
    const pidOf = (r: Row) => (r.target === 'raw' ? raw!.pid : service!.pid);
    // Each row and each half of its baseline starts on a quiet machine: the service, the yardstick
    // and the local database idle in the same 200 ms (what a write row left the database, its purge
    // and page flushing, is not timed with the row after it).
    const settleAll = async () => {
      const q = await quietAll([service!.pid, raw!.pid, dbPid], `${origin}/health/ready`);
      if (!q.quiet) log(`${quietText(q)}; measured all the same`);
    };
    // A `once` row's next unused request, across warm-up and rounds.
    const offsets = new Map<Row, number>();
    const jobOf = async (r: Row, duration: number): Promise<LoadJob> => ({
      origin: originOf(r),
      requests: r.refresh ? await r.refresh() : r.requests,
      connections: r.connections ?? CONNECTIONS,
      duration,
      mode: r.mode,
      offset: offsets.get(r) ?? 0,
    });
    const used = (r: Row, result: LoadResult) => r.mode === 'once' && offsets.set(r, (offsets.get(r) ?? 0) + result.used);
    log('warm-up');
    for (const r of rows) {
      await settleAll();
      const result = await load(await jobOf(r, 1));
      used(r, result);
      if (r.tolerant && (result.non2xx || result.errors)) log(`warm-up: ${r.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    }

    const measured: Measured[] = rows.map((row) => ({ row, rounds: [] }));
    const baselineOf = (r: Row) => (isBase(r) ? undefined : (rows.find((b) => b.name === r.versus) ?? rows[0]));
    /** The baseline's share of a row's slot: half of it before the row, half after (docs/performance.md, "The read benchmark"). */
    const half = async (b: Row) => {
      await settleAll();
      const result = await load(await jobOf(b, DURATION / 2));
      used(b, result);
      if (result.non2xx || result.errors) throw new Error(`${b.name} (baseline): ${result.non2xx} non-2xx, ${result.errors} errors`);
      return result;
    };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const m of measured) {
        const pid = pidOf(m.row);
        const baseline = baselineOf(m.row);
        const before = baseline ? await half(baseline) : null;
        await settleAll();
        const { result, cpuMs: cpu, dbCpuMs } = await loadMeasured(pid, await jobOf(m.row, DURATION), dbPid);
        used(m.row, result);
        const after = baseline ? await half(baseline) : null;
        const base = before && after ? { requests: before.requests + after.requests, seconds: before.seconds + after.seconds } : undefined;
        if (m.row.tolerant && (result.non2xx || result.errors)) {
          // A dashboard past the request's time limit (503) is counted and reported, not fatal.
          log(`${m.row.name}: ${result.non2xx} non-2xx, ${result.errors} errors ${JSON.stringify(result.statuses)}`);
          m.failures = (m.failures ?? 0) + result.non2xx + result.errors;
          m.rounds.push({
            result: { ...result, requests: result.requests - result.non2xx, rps: (result.requests - result.non2xx) / result.seconds },
            cpuMs: cpu,
            dbCpuMs,
            base,
          });
          continue;
        }
        if (result.non2xx || result.errors) {
          const tail = (m.row.target === 'raw' ? raw! : service!).tail();
          throw new Error(`${m.row.name}: ${result.non2xx} non-2xx, ${result.errors} errors ${JSON.stringify(result.statuses)}\n${tail.slice(-3000)}`);
        }
        m.rounds.push({ result, cpuMs: cpu, dbCpuMs, base });
        const next = base ? ` (${fmt(base.requests / base.seconds)} req/s of its baseline around it)` : '';
        log(`round ${round}: ${m.row.name}: ${fmt(result.rps)} req/s${next}`);
      }
    }

    await checkUnwritten(origin, small, admin.small);
    const soak = await runSoak(origin, service.pid, small, admin.small, manager);

    let profileText = '';
    if (PROFILE) {
      const row = rows.find((r) => r.target === 'service' && PROFILE_ROW!.test(r.name));
      if (!row) throw new Error(`--profile: no row matches ${String(PROFILE_ROW)}`);
      profileText = await profile(row, await jobOf(row, 0), service, profileDir);
    }

    printResults(measured, soak, started, db.note);
    if (profileText) console.log(profileText);
  } finally {
    await cleanup();
    if (profileDir && !keptProfileDir) rmSync(profileDir, { recursive: true, force: true });
  }
}

/** The answers are right before they are fast: same records, newest comment, rights. */
async function checkAnswers(origin: string, rawOrigin: string, small: SeededSite, large: SeededSite, adminToken: string, managerToken: string): Promise<void> {
  const get = async (url: string, token?: string, accept = 'application/json') => {
    const res = await fetch(url, { headers: { Accept: accept, ...(token ? { Authorization: `Bearer ${token}` } : {}) } });
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
    return accept === 'application/json' ? ((await res.json()) as Record<string, unknown>) : { text: await res.text() };
  };
  const busy = await get(`${origin}/v4/individuals/${small.busyId}`, adminToken);
  if (busy.LastComment !== `Comment ${BUSY_COMMENTS - 1}: good quarter`) throw new Error(`busy individual: LastComment ${String(busy.LastComment)}`);
  const quiet = await get(`${origin}/v4/individuals/${small.quietId}`, adminToken);
  if (quiet.LastComment !== null) throw new Error('quiet individual has a LastComment');
  const report = await get(`${origin}/v4/individuals/${small.ids[15]}`, managerToken);
  const stranger = await get(`${origin}/v4/individuals/${small.ids[25]}`, managerToken);
  if (report.CanUpdate !== true || stranger.CanUpdate !== false) throw new Error('manager rights are wrong');
  await post(origin, '/v4/goals', JSON.parse(goalBody(small.ids[7], small.periodId)), adminToken);
  const rawRow = await get(`${rawOrigin}/individuals/${small.ids[3]}?site=${small.siteId}`);
  if (rawRow.id !== small.ids[3]) throw new Error('yardstick answers another row');
  const page = await fetch(`${rawOrigin}/individuals?site=${large.siteId}&limit=500`);
  if (((await page.json()) as unknown[]).length !== 500) throw new Error('yardstick page is not 500 rows');
}

/**
 * After the rounds: the records whose reads are measured as seeded still are (the writes went to
 * other individuals), so every round read the same thing.
 */
async function checkUnwritten(origin: string, small: SeededSite, token: string): Promise<void> {
  const get = async (path: string) => {
    const res = await fetch(origin + path, { headers: { Accept: 'application/json', Authorization: `Bearer ${token}` } });
    return (await res.json()) as unknown;
  };
  const comments = await get(`/v4/individuals/${small.listedId}/comments`);
  const listed = Array.isArray(comments) ? comments.length : undefined;
  if (listed !== SHORT + 1) throw new Error(`the listed individual has ${String(listed)} comments after the rounds, not ${SHORT + 1}`);
  if (((await get(`/v4/individuals/${small.quietId}`)) as { LastComment?: unknown }).LastComment !== null)
    throw new Error('the quiet individual was commented on during the rounds');
}

interface Soak {
  requests: number;
  /** RSS readings taken over the soak (every 250 ms, and at its ends). */
  readings: number;
  /** Means of the first and last quarter of the readings. */
  rssBeforeMb: number;
  rssAfterMb: number;
  rssPeakMb: number;
}

/** Mixed requests (reads as administrator and manager, JSON and XML, pages, writes) while RSS is sampled. */
async function runSoak(origin: string, pid: number, small: SeededSite, adminToken: string, managerToken: string): Promise<Soak | null> {
  if (SOAK <= 0) return null;
  const h = (token: string, accept = 'application/json') => ({ Authorization: `Bearer ${token}`, Accept: accept });
  const mix: LoadRequest[] = [];
  for (let k = 0; k < 200; k++) {
    const id = small.ids[(k * 37) % small.ids.length];
    mix.push({ path: `/v4/individuals/${id}`, headers: h(adminToken) });
    mix.push({ path: `/v4/individuals/${id}`, headers: h(managerToken, 'application/xml') });
    mix.push({ path: `/v4/individuals/${id}?tz=Europe/Paris`, headers: h(managerToken) });
    if (k % 10 === 0) mix.push({ path: `/v4/individuals?limit=50&offset=${k}`, headers: h(adminToken) });
    if (k % 10 === 5) mix.push({ path: '/v4/no-such-path', headers: h(adminToken) });
    if (k % 20 === 0)
      mix.push({ path: '/v4/goals', method: 'POST', headers: { ...h(adminToken), 'Content-Type': 'application/json' }, body: goalBody(id, small.periodId) });
  }
  // Warm up to a steady state first, then measure growth over the soak: RSS is read every 250 ms,
  // and the growth compares the mean of the soak's last quarter of readings with its first
  // quarter's. A single reading at either end lands anywhere on the old generation's sawtooth
  // (tens of MB between major collections); a leak is a trend that the quarter means still show.
  // The warm-up is half the soak: the heap takes some 100,000 requests of this mix to reach the
  // size it then keeps (bench/results/2026-11-25-placement.md, "A long soak").
  await load({ origin, requests: mix, connections: CONNECTIONS, duration: 0, amount: Math.max(20000, Math.round(SOAK / 2)) });
  const readings: number[] = [rssMb(pid)];
  const timer = setInterval(() => readings.push(rssMb(pid)), 250);
  log(`soak: ${fmt(SOAK)} mixed requests, RSS ${readings[0].toFixed(0)} MB`);
  try {
    const r = await load({ origin, requests: mix, connections: CONNECTIONS, duration: 0, amount: SOAK });
    if (r.errors) throw new Error(`soak: ${r.errors} errors`);
    readings.push(rssMb(pid));
    const quarter = Math.max(1, Math.floor(readings.length / 4));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const tenths = Array.from({ length: 10 }, (_, k) => readings.slice(Math.floor((k * readings.length) / 10), Math.floor(((k + 1) * readings.length) / 10)));
    log(
      `soak: RSS by tenth of the soak (mean MB): ${tenths
        .filter((t) => t.length)
        .map((t) => mean(t).toFixed(0))
        .join(', ')}`,
    );
    return {
      requests: r.requests,
      readings: readings.length,
      rssBeforeMb: mean(readings.slice(0, quarter)),
      rssAfterMb: mean(readings.slice(-quarter)),
      rssPeakMb: Math.max(...readings),
    };
  } finally {
    clearInterval(timer);
  }
}

/** A --cpu-prof profile of one row's requests: the service is stopped to write it, so this runs last. */
async function profile(row: Row, job: LoadJob, service: Proc, dir: string): Promise<string> {
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  const amount = row.connections ? Math.ceil(PROFILE_REQUESTS / 10) : PROFILE_REQUESTS;
  const r = await load({ ...job, duration: 0, amount });
  const toUs = Number(process.hrtime.bigint() / 1000n);
  await stopProcess(service, 'SIGTERM');
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return '\n(no profile was written)\n';
  let b = summarise(join(dir, file), { fromUs, toUs });
  let scope = 'the load window';
  if (b.busyMs < 1) {
    b = summarise(join(dir, file));
    scope = 'the whole process (the window could not be matched)';
  }
  const per = (ms: number) => ((ms * 1000) / r.requests).toFixed(1);
  const lines = [
    '',
    `### CPU profile: ${fmt(r.requests)} requests of the row ${row.name} (${scope})`,
    '',
    `Busy CPU ${fmt(b.busyMs)} ms = **${per(b.busyMs)} µs per request**.`,
    '',
    ...breakdownTables(b, r.requests),
  ];
  return lines.join('\n');
}

/** The rows others are compared with: the yardsticks, and the individual without comments. */
function isBase(row: Row): boolean {
  return row.target === 'raw' || row.name.includes('without comments');
}

/** `placement`: how the database server was placed (BENCH_DB_CORE), for the heading. */
function printResults(measured: Measured[], soak: Soak | null, started: number, placement: string): void {
  const byName = new Map(measured.map((m) => [m.row.name, m]));
  const limit = measured[0];
  const rps = (m: Measured) => m.rounds.reduce((s, r) => s + r.result.requests, 0) / m.rounds.reduce((s, r) => s + r.result.seconds, 0);
  /**
   * A row's ratio to its baseline `b` (its `versus`, or the limit), taken to the baseline measured
   * around it (`base`) round by round, then the median. Every ratio reported is one of these.
   */
  const ratio = (a: Measured, b: Measured) => {
    if ((a.row.versus ?? limit.row.name) !== b.row.name) throw new Error(`${a.row.name} is not measured against ${b.row.name}`);
    return median(a.rounds.map((r) => r.result.rps / (r.base!.requests / r.base!.seconds)));
  };
  const kind = SQLITE ? 'SQLite' : 'MariaDB';
  console.log(
    `\n## ${kind}, ${fmt(SMALL)} / ${fmt(LARGE)} individuals, ${CONNECTIONS} connections, ${ROUNDS} rounds × ${DURATION} s per row, ` +
      `${PIN ? 'server pinned to one core' : 'not pinned'}${placement}, node ${process.version}, ${new Date().toISOString().slice(0, 10)}\n`,
  );
  console.log('| request | req/s | ratio | to | p50 ms | p99 ms | server CPU / request | database CPU / request |');
  console.log('|---|---:|---:|---|---:|---:|---:|---:|');
  for (const m of measured) {
    const versus = m.row.versus ? byName.get(m.row.versus)! : limit;
    const base = isBase(m.row);
    const total = m.rounds.reduce((s, r) => s + r.result.requests, 0);
    const cpu = m.rounds.reduce((s, r) => s + r.cpuMs, 0) / total;
    const dbCpu = m.rounds.reduce((s, r) => s + r.dbCpuMs, 0) / total;
    const to =
      !m.row.versus || versus === limit
        ? 'limit'
        : versus.row.name === RAW_WRITE
          ? 'write limit'
          : versus.row.name === BY_ID
            ? 'by-id read'
            : versus.row.name === PLAIN_100
              ? 'plain page'
              : versus.row.name.includes('page')
                ? 'raw page'
                : 'no comments';
    const failed = m.failures ? ` (${fmt(m.failures)} failed)` : '';
    console.log(
      `| ${m.row.name}${failed} | ${fmt(rps(m))} | ${base ? '1.00' : ratio(m, versus).toFixed(2)} | ${base ? '' : to} | ` +
        `${median(m.rounds.map((r) => r.result.p50)).toFixed(1)} | ${median(m.rounds.map((r) => r.result.p99)).toFixed(1)} | ${cpu.toFixed(2)} ms | ` +
        `${Number.isFinite(dbCpu) ? `${dbCpu.toFixed(2)} ms` : '—'} |`,
    );
  }
  const find = (prefix: string) => measured.find((m) => m.row.name.startsWith(prefix));
  const adminJson = find('`GET /v4/individuals/{id}` JSON, administrator');
  const ratioOf = (a: Measured | undefined, b: Measured | undefined) => (a && b ? ratio(a, b) : NaN);
  const write = find(RAW_WRITE);
  const checks: [string, number, number][] = [
    ['`GET /health/live` ÷ the limit', ratioOf(find('`GET /health/live`'), limit), 0.8],
    ['by-id JSON as administrator ÷ the limit', ratioOf(adminJson, limit), 0.5],
    ...['`GET /v4/me`', '`GET /v4/organizations/{id}`', '`GET /v4/goals/{id}`', '`GET /v4/periods/{id}`', '`GET /v4/sites/{id}`'].map(
      (name): [string, number, number] => [`${name} ÷ the limit`, ratioOf(find(name), limit), 0.4],
    ),
    ...['`GET /v4/individuals/{id}/goals`', '`GET /v4/individuals/{id}/comments`'].map((name): [string, number, number] => [
      `${name} ÷ the limit`,
      ratioOf(find(name), limit),
      0.3,
    ]),
    ['`POST /v4/comments` ÷ the write limit', ratioOf(find('`POST /v4/comments`'), write), 0.2],
    ['`PUT /v4/goals/{id}` with If-Match ÷ the write limit', ratioOf(find('`PUT /v4/goals/{id}`'), write), 0.2],
    ['by-id JSON as manager ÷ as administrator', ratioOf(find('`GET /v4/individuals/{id}` JSON, manager'), adminJson), 0.9],
    ['by-id XML ÷ JSON (administrator)', ratioOf(find('`GET /v4/individuals/{id}` XML, administrator'), adminJson), 0.9],
    ['page of 500 JSON ÷ raw page', ratioOf(find('`GET /v4/individuals?limit=500` JSON'), find(RAW_PAGE)), 0.8],
    ['page of 500 XML ÷ raw page', ratioOf(find('`GET /v4/individuals?limit=500` XML'), find(RAW_PAGE)), 0.7],
    [
      `${fmt(BUSY_COMMENTS)} comments ÷ none (req/s)`,
      ratioOf(find(`\`GET /v4/individuals/{id}\` JSON, individual with ${fmt(BUSY_COMMENTS)}`), find('`GET /v4/individuals/{id}` JSON, individual without')),
      1 / 1.2,
    ],
  ];
  // Dashboards: how many by-id reads one costs (the by-id read's req/s ÷ the dashboard's), at most.
  const byId = find(BY_ID);
  const costs: [string, number, number][] = [
    ['`GET /v4/individuals/{id}/dashboards`', 3],
    ['`GET /v4/departments/{id}/dashboards`', 10],
    ['`GET /v4/organizations/{id}/dashboards`', 20],
  ].map(([name, most]) => [`${String(name)} in by-id reads`, 1 / ratioOf(find(String(name)), byId), Number(most)]);
  console.log('\n| target | measured | target | met |');
  console.log('|---|---:|---:|---|');
  for (const [name, value, target] of checks.filter(([, value]) => !Number.isNaN(value)))
    console.log(`| ${name} | ${value.toFixed(2)} | ≥ ${target.toFixed(2)} | ${value >= target ? 'yes' : '**no**'} |`);
  for (const [name, value, most] of costs.filter(([, value]) => !Number.isNaN(value)))
    console.log(`| ${name} | ${value.toFixed(1)}× | ≤ ${most}× | ${value <= most ? 'yes' : '**no**'} |`);
  if (soak) {
    const growth = (100 * (soak.rssAfterMb - soak.rssBeforeMb)) / soak.rssBeforeMb;
    console.log(
      `| RSS over ${fmt(soak.requests)} mixed requests (means of the first and last quarter of ${soak.readings} readings) | ` +
        `${soak.rssBeforeMb.toFixed(0)} → ${soak.rssAfterMb.toFixed(0)} MB ` +
        `(${growth >= 0 ? '+' : ''}${growth.toFixed(1)} %, peak ${soak.rssPeakMb.toFixed(0)} MB) | < +10 % | ${growth < 10 ? 'yes' : '**no**'} |`,
    );
  }
  console.log(`\nTotal run time ${Math.round((Date.now() - started) / 1000)} s.`);
  // The bulk writes and their limit (bench/bulk.ts) on a database of their own, after the rest: BENCH_BULK=0 leaves them out.
  if (process.env.BENCH_BULK !== '0') {
    log('the bulk writes and the bulk limit (bench/bulk.ts)');
    const bulk = spawnSync(process.execPath, [join(here, 'bulk.js'), ...(SQLITE ? ['--sqlite'] : [])], { stdio: 'inherit' });
    if (bulk.status !== 0) throw new Error(`bench/bulk.ts failed (${bulk.status ?? bulk.signal})`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
