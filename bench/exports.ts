/**
 * Streamed exports (docs/exports.md): rows a second of `GET /v4/individuals` answered as CSV, XLSX
 * and NDJSON for a site of EXPORT_ROWS (100,000) individuals, against the export limit: the
 * yardstick (bench/raw-server.ts, node:http + mysql2) streaming the same rows as CSV from one
 * SELECT. EXPORT_ROUNDS (3) rounds take turns between the four; the medians give the ratios the
 * targets are on (CSV ≥ 0.5× the limit, XLSX ≥ 0.25×), and the service's RSS is read every 50 ms
 * while it exports (growth over its RSS before the export ≤ 50 MB). Every download asks for
 * `Accept-Encoding: identity` (the limit does not compress) but the last row's, a CSV compressed
 * with gzip as a browser would ask, for the record.
 *
 *   npm run bench:exports              # MariaDB (BENCH_DATABASE_URL, default mysql://root@127.0.0.1:3306/)
 *   npm run bench:exports -- --sqlite  # the embedded SQLite file
 *   BENCH_ENV='EXPORT_BATCH_ROWS=200 RECORD_MEMO=0' npm run bench:exports   # the service's settings
 *   EXPORT_FORMATS=CSV npm run bench:exports   # one format (the limit always runs)
 */
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/config.js';
import { dataSourceOptions, detectMysqlFlavor } from '../src/database/data-source.js';
import {
  awaitSummaries,
  createDatabase,
  envWords,
  exportRows,
  fmt,
  log,
  migrateFirst,
  num,
  startService,
  startYardstick,
  stopProcess,
  tokenFor,
} from './common.js';
import { seedSite } from './seed.js';

const PASSWORD = 'bench-password-1';
const ROWS = num('EXPORT_ROWS', 100_000);
const ROUNDS = num('EXPORT_ROUNDS', 3);
/** At most this many seconds for the site's dashboard summaries to be built before the exports are measured. */
const SUMMARY_WAIT = num('BENCH_DASH_WAIT', 900);

const FORMATS = [
  { name: 'CSV', accept: 'text/csv', target: 0.5 },
  { name: 'XLSX', accept: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', target: 0.25 },
  { name: 'NDJSON', accept: 'application/x-ndjson', target: 0 },
  // What a browser asks for: the same CSV compressed by the service (the limit sends it plain).
  { name: 'CSV, gzip-compressed', accept: 'text/csv', target: 0, encoding: 'gzip' },
] as const;
/** EXPORT_FORMATS: the formats' names to run, comma-separated (all of them unless given), e.g. `CSV` to profile one. */
const ONLY = (process.env.EXPORT_FORMATS ?? '')
  .split(',')
  .map((f) => f.trim())
  .filter(Boolean);
const formats = ONLY.length ? FORMATS.filter((f) => ONLY.includes(f.name)) : FORMATS;

async function main(): Promise<void> {
  const sqlite = process.argv.includes('--sqlite');
  const database = await createDatabase(sqlite);
  migrateFirst(database.url);
  const { service, origin, env } = await startService(database.url, PASSWORD, undefined, envWords('BENCH_ENV'));
  const { raw, rawOrigin } = await startYardstick(database.url);
  const ds = new DataSource(
    dataSourceOptions(loadConfig({ ...env, NODE_ENV: 'production' }), await detectMysqlFlavor(loadConfig({ ...env, NODE_ENV: 'production' }))),
  );
  const lines: string[] = [];
  try {
    await ds.initialize();
    const t0 = Date.now();
    const site = await seedSite(ds, { name: 'Bench export', size: ROWS, busyComments: 0, password: PASSWORD });
    if (!sqlite) await ds.query('ANALYZE TABLE individuals, organizations, users');
    log(`seeded ${fmt(ROWS)} individuals in ${Math.round((Date.now() - t0) / 1000)} s`);
    const token = await tokenFor(origin, 'admin', PASSWORD, site.siteId);
    // Seeded past the change log: the service builds the site's summaries first; the exports are measured after.
    await awaitSummaries(origin, token, [`/v4/organizations/${site.orgId}/dashboards`], SUMMARY_WAIT);
    lines.push(
      ...(await exportRows({
        origin,
        token,
        servicePid: service.pid,
        rawOrigin,
        rawPid: raw.pid,
        siteId: site.siteId,
        rows: ROWS,
        formats,
        rounds: ROUNDS,
      })),
    );
  } finally {
    if (ds.isInitialized) await ds.destroy();
    await stopProcess(raw);
    await stopProcess(service);
    await database.drop();
  }
  console.log(
    [
      `| ${sqlite ? 'SQLite' : 'MariaDB'}, ${fmt(ROWS)} individuals, medians of ${ROUNDS} rounds | rows/s | ÷ the limit | target | |`,
      '|---|---:|---:|---|---|',
      ...lines,
    ].join('\n'),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
