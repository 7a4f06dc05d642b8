/**
 * Whether a statement's rows die young (docs/performance.md, "Rows that die young"): reads a seeded
 * site's individuals a page of 1,000 at a time, by keyset, through three paths, and reports per path
 * the time to read them all and the young generation's collections meanwhile (count, pause, and the
 * bytes promoted, read from V8's heap statistics):
 *
 * - `conn.query`: mysql2's connection, the callback given as it is (the floor);
 * - `mysql2 pool.query`: mysql2's own pool, which wraps each query's callback in a closure;
 * - `the service's pool`: mysql2's pool bounded as the service bounds it (bounded-mysql.ts), read
 *   through RawReader's `queryPooled`, as a list's varying statement is.
 *
 * The service's path should promote about as little as the floor; mysql2's `pool.query` promoted
 * 12–30 MB a scavenge when this was written. Run with the service's young generation:
 *
 *   npm run bench:rows                       # MariaDB (BENCH_DATABASE_URL), ROWS_YOUNG (100,000) people
 */
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import mysql from 'mysql2';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/config.js';
import { dataSourceOptions, detectMysqlFlavor } from '../src/database/data-source.js';
import { boundPool, type PoolLike } from '../src/database/bounded-mysql.js';
import { queryPooled, type MysqlPool } from '../src/database/raw-reader.js';
import { createDatabase, fmt, log, migrateFirst, num } from './common.js';
import { seedSite } from './seed.js';

const ROWS = num('ROWS_YOUNG', 100_000);
const ROUNDS = num('ROWS_YOUNG_ROUNDS', 3);
const PAGE = `SELECT * FROM individuals WHERE site_id = ? AND id > ? ORDER BY site_id, id LIMIT 1000`;

type Read = (sql: string, params: unknown[]) => Promise<{ id: string }[]>;

/** The old generation's bytes in use (what a scavenge promotes lands there). */
function oldSpaceUsed(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')?.space_used_size ?? 0;
}

async function measure(name: string, read: Read, siteId: string): Promise<string> {
  const times: number[] = [];
  let scavenges = 0;
  let pauseMs = 0;
  let promoted = 0;
  let pagesRead = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind !== constants.NODE_PERFORMANCE_GC_MINOR) continue;
      scavenges++;
      pauseMs += e.duration;
    }
  });
  for (let round = 0; round <= ROUNDS; round++) {
    // Round 0 warms up; the rounds after it are measured.
    if (round === 1) observer.observe({ entryTypes: ['gc'] });
    const t0 = performance.now();
    let after = '';
    let pages = 0;
    for (;;) {
      const start = oldSpaceUsed();
      const rows = await read(PAGE, [siteId, after]);
      // Old-space growth over a page's read is what was promoted meanwhile (full collections aside).
      const grown = oldSpaceUsed() - start;
      if (round > 0 && grown > 0) promoted += grown;
      pages++;
      if (rows.length < 1000) break;
      after = rows[rows.length - 1].id;
    }
    if (round > 0) times.push((performance.now() - t0) / 1000);
    pagesRead = pages;
  }
  observer.disconnect();
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return `| ${name} | ${fmt(mean, 2)} s | ${scavenges} | ${fmt(pauseMs / Math.max(scavenges, 1), 1)} ms | ${fmt(promoted / 1e6 / ROUNDS, 1)} MB (${pagesRead} pages) |`;
}

async function main(): Promise<void> {
  const database = await createDatabase(false);
  migrateFirst(database.url);
  const env = { NODE_ENV: 'production', DATABASE_URL: database.url, JWT_SECRET: 'x'.repeat(64) };
  const config = loadConfig(env);
  const ds = new DataSource(dataSourceOptions(config, await detectMysqlFlavor(config)));
  const u = new URL(database.url);
  const connection = {
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: u.pathname.slice(1),
    timezone: 'Z',
  };
  const lines: string[] = [];
  try {
    await ds.initialize();
    const site = await seedSite(ds, { name: 'Rows young', size: ROWS, busyComments: 0, password: 'rows-young-1' });
    await ds.destroy();
    log(`seeded ${fmt(ROWS)} individuals`);

    const conn = mysql.createConnection(connection);
    const plainPool = mysql.createPool({ ...connection, connectionLimit: 2 });
    const servicePool = boundPool(mysql.createPool({ ...connection, connectionLimit: 2 }) as unknown as PoolLike, {
      flavor: 'mariadb',
      acquireTimeoutMs: 10_000,
      statementTimeoutMs: 30_000,
    }) as unknown as MysqlPool;
    const viaConn: Read = (sql, params) => new Promise((ok, fail) => conn.query(sql, params, (e, rows) => (e ? fail(e) : ok(rows as { id: string }[]))));
    const viaPoolQuery: Read = (sql, params) =>
      new Promise((ok, fail) => plainPool.query(sql, params, (e, rows) => (e ? fail(e) : ok(rows as { id: string }[]))));
    const viaService: Read = (sql, params) =>
      new Promise((ok, fail) => queryPooled(servicePool, sql, params, 30_000, (e, rows) => (e ? fail(e) : ok(rows as { id: string }[]))));

    lines.push(
      `| ${fmt(ROWS)} people, pages of 1,000, means of ${ROUNDS} rounds | read all | scavenges (all rounds) | pause each | promoted a round |`,
      '|---|---:|---:|---:|---:|',
    );
    lines.push(await measure('`conn.query` (the floor)', viaConn, site.siteId));
    lines.push(await measure('mysql2 `pool.query`', viaPoolQuery, site.siteId));
    lines.push(await measure("the service's pool (`bounded-mysql.ts`, `queryPooled`)", viaService, site.siteId));
    conn.end();
    await plainPool.promise().end();
    await new Promise<void>((resolve) => (servicePool as unknown as { end: (cb: () => void) => void }).end(() => resolve()));
  } finally {
    if (ds.isInitialized) await ds.destroy();
    await database.drop();
  }
  console.log(`\n${lines.join('\n')}\n`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
