/**
 * The dashboards benchmark (docs/performance.md, docs/dashboards.md). One command builds, then:
 *
 *  1. creates a MariaDB/MySQL database of its own (dropped at the end; `--sqlite` uses a temp file),
 *  2. starts the built service (NODE_ENV=production) pinned to core 0,
 *  3. seeds a site of BENCH_DASH_SIZE individuals (10,000) in 100 departments with a period's worth
 *     of goals, commitments, dialogs, follow-ups, metrics, ratings and projects (bench/seed-dashboards.ts),
 *  4. checks the answers, then drives each row with autocannon from a process pinned to core 1, in
 *     rounds that interleave the rows, so the costs are compared within one run:
 *     a single `GET /v4/individuals/{id}` (the yardstick), an individual's dashboard, a department's,
 *     the organization's (the whole site) and `GET /v4/dashboards` of an administrator (201 units),
 *  5. prints the cost of each row as a multiple of the yardstick (its req/s ÷ the row's, round by
 *     round, then the median) with the targets of issue 24: individual ≤ 3×, department of 100 ≤
 *     10×, organization of 10,000 ≤ 20×.
 *
 * The seed is written in SQL, past the change log, so the site's summaries are then built from
 * scratch (docs/operations.md, "After a bulk import") and the rows are measured once the
 * organization's dashboard answers from them. `--records` runs the service without the summary
 * builder: every dashboard is computed from the records (the fallback's cost).
 *
 *   npm run bench:dashboards                     # MariaDB at mysql://root@127.0.0.1:3306
 *   npm run bench:dashboards -- --sqlite
 *   npm run bench:dashboards -- --records        # without the summaries
 *   BENCH_DURATION=5 BENCH_ROUNDS=2 npm run bench:dashboards
 *
 * Knobs: BENCH_DATABASE_URL, BENCH_DURATION (3 s per row and round), BENCH_ROUNDS (2),
 * BENCH_CONNECTIONS (32), BENCH_HEAVY_CONNECTIONS (4, for the organization and the list),
 * BENCH_HEAVY_REQUESTS (8: the organization and the list run a fixed number of requests, not a duration),
 * BENCH_DASH_SIZE (10000), BENCH_DIVISIONS (10) × BENCH_PER_DIVISION (10) departments.
 */
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/config.js';
import { dataSourceOptions, detectMysqlFlavor } from '../src/database/data-source.js';
import {
  awaitSummaries,
  createDatabase,
  fmt,
  load,
  loadMeasured,
  log,
  median,
  num,
  PIN,
  Proc,
  settle,
  migrateFirst,
  startService,
  stopProcess,
  tokenFor,
} from './common.js';
import type { LoadRequest, LoadResult } from './load.js';
import { seedDashboardSite, type DashboardSite } from './seed-dashboards.js';

const DURATION = num('BENCH_DURATION', 3);
const ROUNDS = num('BENCH_ROUNDS', 2);
const CONNECTIONS = num('BENCH_CONNECTIONS', 32);
const HEAVY_CONNECTIONS = num('BENCH_HEAVY_CONNECTIONS', 4);
const HEAVY_REQUESTS = num('BENCH_HEAVY_REQUESTS', 8);
const SIZE = num('BENCH_DASH_SIZE', 10000);
const DIVISIONS = num('BENCH_DIVISIONS', 10);
const PER_DIVISION = num('BENCH_PER_DIVISION', 10);
const SQLITE = process.argv.includes('--sqlite');
/** `--records`: the service runs without the summary builder, so every dashboard is computed from the records (the fallback's cost). */
const RECORDS = process.argv.includes('--records');
const PASSWORD = 'bench-password-1';
const YARDSTICK = '`GET /v4/individuals/{id}` JSON (the yardstick)';

interface Row {
  name: string;
  requests: LoadRequest[];
  connections: number;
  /** The most this row may cost, in yardsticks. */
  target?: number;
  /** Rows slower than a round: a fixed number of requests instead of a duration. */
  amount?: number;
}

interface Measured {
  row: Row;
  rounds: { result: LoadResult; cpuMs: number }[];
  /** Answers other than 200 (timeouts), over all rounds. */
  failures?: number;
}

async function main(): Promise<void> {
  const started = Date.now();
  const database = await createDatabase(SQLITE);
  let service: Proc | undefined;
  let ds: DataSource | undefined;
  const cleanup = async () => {
    await stopProcess(service);
    if (ds?.isInitialized) await ds.destroy();
    await database.drop();
  };
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  try {
    let origin: string;
    let env: Record<string, string>;
    migrateFirst(database.url);
    ({ service, origin, env } = await startService(database.url, PASSWORD, undefined, RECORDS ? { DASHBOARD_SUMMARIES: 'off' } : {}));

    const config = loadConfig(env);
    ds = new DataSource(dataSourceOptions(config, await detectMysqlFlavor(config)));
    await ds.initialize();
    const site = await seedDashboardSite(ds, { size: SIZE, divisions: DIVISIONS, perDivision: PER_DIVISION });
    // Seeded in SQL, past the change log: the site's summaries are built again from scratch, as
    // docs/operations.md says to do after a bulk import.
    await ds.query('REPLACE INTO dashboard_summary_state (site_id, built_seq) VALUES (?, -1)', [site.siteId]);
    await ds.destroy();
    log(`seeded ${fmt(SIZE)} individuals in ${site.departmentIds.length} departments, ${fmt(site.rows)} rows (${Math.round((Date.now() - started) / 1000)} s)`);

    const token = await tokenFor(origin, 'admin', PASSWORD, site.siteId);
    const headers = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
    if (!RECORDS) await awaitSummaries(origin, token, [`/v4/organizations/${site.organizationId}/dashboards`], 30 * 60);
    await checkAnswers(origin, site, headers);

    const people = site.individualIds.slice(0, 2000);
    const leaves = site.departmentIds.filter((_, k) => k % PER_DIVISION !== 0);
    const rows: Row[] = [
      { name: YARDSTICK, requests: people.map((id) => ({ path: `/v4/individuals/${id}`, headers })), connections: CONNECTIONS },
      {
        name: '`GET /v4/individuals/{id}/dashboards` JSON',
        requests: people.map((id) => ({ path: `/v4/individuals/${id}/dashboards`, headers })),
        connections: CONNECTIONS,
        target: 3,
      },
      {
        name: `\`GET /v4/departments/{id}/dashboards\` JSON (a department of ${Math.round(SIZE / site.departmentIds.length)})`,
        requests: leaves.map((id) => ({ path: `/v4/departments/${id}/dashboards`, headers })),
        connections: CONNECTIONS,
        target: 10,
      },
      {
        name: `\`GET /v4/departments/{id}/dashboards\` JSON (a division of ${fmt((SIZE / site.departmentIds.length) * PER_DIVISION)})`,
        requests: site.departmentIds.filter((_, k) => k % PER_DIVISION === 0).map((id) => ({ path: `/v4/departments/${id}/dashboards`, headers })),
        connections: HEAVY_CONNECTIONS,
      },
      {
        name: `\`GET /v4/organizations/{id}/dashboards\` JSON (the whole site, ${fmt(SIZE)})`,
        requests: [{ path: `/v4/organizations/${site.organizationId}/dashboards`, headers }],
        connections: HEAVY_CONNECTIONS,
        target: 20,
        amount: RECORDS ? HEAVY_REQUESTS : undefined,
      },
      {
        name: '`GET /v4/dashboards?limit=20` JSON, administrator (the organization and 19 departments)',
        requests: [{ path: '/v4/dashboards?limit=20', headers }],
        connections: HEAVY_CONNECTIONS,
        amount: RECORDS ? HEAVY_REQUESTS : undefined,
      },
    ];

    log('warm-up');
    for (const r of rows) {
      await settle(service.pid, `${origin}/health/ready`);
      await load({ origin, requests: r.requests, connections: r.connections, duration: 1, amount: r.amount ? HEAVY_CONNECTIONS : undefined });
    }
    const measured: Measured[] = rows.map((row) => ({ row, rounds: [] }));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const m of measured) {
        await settle(service.pid, `${origin}/health/ready`);
        const { result, cpuMs: cpu } = await loadMeasured(service.pid, {
          origin,
          requests: m.row.requests,
          connections: m.row.connections,
          duration: DURATION,
          amount: m.row.amount,
        });
        if (result.non2xx || result.errors) {
          // A row that times out (503 at DB_QUERY_TIMEOUT_MS or REQUEST_TIMEOUT_MS) is reported, not fatal.
          log(`${m.row.name}: ${result.non2xx} non-2xx, ${result.errors} errors ${JSON.stringify(result.statuses)}`);
          m.failures = (m.failures ?? 0) + result.non2xx + result.errors;
        }
        m.rounds.push({ result: { ...result, requests: result.requests - result.non2xx }, cpuMs: cpu });
        log(`round ${round}: ${m.row.name}: ${fmt(result.rps, 1)} req/s`);
      }
    }
    // Where each row's answers came from after the load (the summaries, unless they fell behind).
    for (const m of measured.slice(1)) {
      const res = await fetch(origin + m.row.requests[0].path, { headers });
      await res.arrayBuffer();
      log(`${m.row.name}: Dashboard-Source ${res.headers.get('dashboard-source')}`);
    }
    printResults(measured, site, started);
  } finally {
    await cleanup();
  }
}

/** The dashboards are right before they are fast: the seeded records show in the figures. */
async function checkAnswers(origin: string, site: DashboardSite, headers: Record<string, string>): Promise<void> {
  const get = async (path: string) => {
    const res = await fetch(origin + path, { headers });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const person = await get(`/v4/individuals/${site.individualIds[Math.min(500, site.individualIds.length - 1)]}/dashboards`);
  const org = await get(`/v4/organizations/${site.organizationId}/dashboards`);
  const expect = (what: string, actual: unknown, expected: unknown) => {
    if (actual !== expected) throw new Error(`${what}: ${String(actual)}, expected ${String(expected)}`);
  };
  expect('individual PersonalGoalsTotal', person.PersonalGoalsTotal, 3);
  expect('individual IndDialogsExpected', person.IndDialogsExpected, 2);
  expect('individual DeptDialogsExpected', person.DeptDialogsExpected, 1);
  expect('organization PersonalGoalsTotal', org.PersonalGoalsTotal, 3 * SIZE);
  expect('organization IndDialogsExpected', org.IndDialogsExpected, 2 * SIZE);
  expect('organization DepartmentCommitmentsTotal', org.DepartmentCommitmentsTotal, 2 * site.departmentIds.length);
  expect('organization ProjectsActive', org.ProjectsActive, 2 * site.departmentIds.length);
  for (const f of ['LeaderAssessmentPercent', 'IndividualBasicRolePercent', 'MetricsMeetsPercent', 'IndividualPerformancePercent']) {
    if (typeof org[f] !== 'number') throw new Error(`organization ${f} is ${String(org[f])}`);
  }
  const list = await fetch(`${origin}/v4/dashboards?limit=1`, { headers });
  if (Number(list.headers.get('x-total-count')) !== site.departmentIds.length + 1)
    throw new Error(`GET /v4/dashboards: X-Total-Count ${list.headers.get('x-total-count')}`);
}

function printResults(measured: Measured[], site: DashboardSite, started: number): void {
  const yardstick = measured[0];
  const rps = (m: Measured) => m.rounds.reduce((s, r) => s + r.result.requests, 0) / m.rounds.reduce((s, r) => s + r.result.seconds, 0);
  /** How many yardsticks a request of this row costs, round by round, then the median. */
  const cost = (m: Measured) => median(m.rounds.map((r, i) => yardstick.rounds[i].result.rps / r.result.rps));
  const kind = SQLITE ? 'SQLite' : 'MariaDB';
  console.log(
    `\n## Dashboards, ${kind}, ${fmt(SIZE)} individuals in ${site.departmentIds.length} departments (${fmt(site.rows)} records), ${ROUNDS} rounds × ${DURATION} s per row, ` +
      `${PIN ? 'server pinned to one core' : 'not pinned'}, node ${process.version}, ${new Date().toISOString().slice(0, 10)}\n`,
  );
  console.log('| request | connections | req/s | cost (yardsticks) | target | met | p50 ms | p99 ms | server CPU / request | failed |');
  console.log('|---|---:|---:|---:|---:|---|---:|---:|---:|---:|');
  for (const m of measured) {
    const total = m.rounds.reduce((s, r) => s + r.result.requests, 0);
    const cpu = m.rounds.reduce((s, r) => s + r.cpuMs, 0) / total;
    const c = m === yardstick ? 1 : cost(m);
    const target = m.row.target;
    console.log(
      `| ${m.row.name} | ${m.row.connections} | ${fmt(rps(m), 1)} | ${c.toFixed(1)}× | ${target ? `≤ ${target}×` : ''} | ${target ? (c <= target ? 'yes' : '**no**') : ''} | ` +
        `${median(m.rounds.map((r) => r.result.p50)).toFixed(1)} | ${median(m.rounds.map((r) => r.result.p99)).toFixed(1)} | ${cpu.toFixed(2)} ms | ${m.failures ?? 0} |`,
    );
  }
  console.log(`\nTotal run time ${Math.round((Date.now() - started) / 1000)} s.`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
