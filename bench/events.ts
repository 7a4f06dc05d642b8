/**
 * History and events (docs/events.md, docs/delta-sync.md): two figures the issue sets targets for.
 *
 * 1. Event delivery latency: a healthy local receiver, one webhook, EVENTS_WRITES (200) creates one
 *    after another; latency = arrival at the receiver − the event's `timestamp` (the commit time, on
 *    the same machine's clock). Prints p50, p99 and max.
 * 2. A delta-sync page of 500: sites of each size in EVENTS_SIZES (1000,100000) individuals, 500 of
 *    them changed through the scoped write path (so journaled as any write), then `GET /v4/sync/individuals?limit=500` from the cursor before
 *    the changes, EVENTS_READS (20) times; prints the median and p90 milliseconds per size.
 *
 *   npm run bench:events            # MariaDB (BENCH_DATABASE_URL, default mysql://root@127.0.0.1:3306/)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/config.js';
import { dataSourceOptions, detectMysqlFlavor } from '../src/database/data-source.js';
import { createDatabase, fmt, log, median, num, migrateFirst, startService, stopProcess, tokenFor } from './common.js';
import { seedSite } from './seed.js';
import { RequestContext } from '../src/common/context/request-context.js';
import { IndividualEntity } from '../src/database/entities/individual.entity.js';
import { TenantDb } from '../src/database/tenant-db.js';
import { setTimeout as sleep } from 'node:timers/promises';

const PASSWORD = 'bench-password-1';
const WRITES = num('EVENTS_WRITES', 200);
const READS = num('EVENTS_READS', 20);
const SIZES = (process.env.EVENTS_SIZES ?? '1000,100000').split(',').map(Number);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

async function call(origin: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown; headers: Headers }> {
  const res = await fetch(origin + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return { status: res.status, json: text ? JSON.parse(text) : null, headers: res.headers };
}

async function main(): Promise<void> {
  const database = await createDatabase(false);
  const arrivals: number[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
      arrivals.push(at - Date.parse(event.timestamp));
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  migrateFirst(database.url);
  const { service, origin, env } = await startService(database.url, PASSWORD, undefined, { WEBHOOK_ALLOW_PRIVATE: 'true' });
  const out: string[] = [];
  try {
    const config = loadConfig({ ...env, NODE_ENV: 'production' });
    const ds = new DataSource(dataSourceOptions(config, await detectMysqlFlavor(config)));
    await ds.initialize();
    const sites = [];
    const starts = new Map<string, string>();
    for (const size of SIZES) {
      log(`seeding a site of ${fmt(size)} individuals, then changing 500 of them through the scoped write path`);
      const site = await seedSite(ds, { name: `Sync ${size}`, size, busyComments: 0, password: PASSWORD });
      const ctx = RequestContext.system(site.siteId);
      const db = new TenantDb(ds);
      const [row] = (await ds.query('SELECT seq FROM change_seqs WHERE site_id = ?', [site.siteId])) as { seq: number }[];
      starts.set(site.siteId, `seq-${row ? Number(row.seq) : 0}`);
      for (const id of site.ids.slice(0, 500)) await db.repo(ctx, IndividualEntity).update(id, { primaryTitle: `Changed ${id.slice(0, 4)}` });
      sites.push(site);
    }
    await ds.query('ANALYZE TABLE individuals, audit_log, change_seqs');
    await ds.destroy();

    // 1. latency
    const first = sites[0];
    const token = await tokenFor(origin, 'admin', PASSWORD, first.siteId);
    await call(origin, token, 'POST', '/v4/webhooks', { URL: hookUrl, EventTypes: 'color.created' });
    for (let i = 0; i < WRITES; i++) await call(origin, token, 'POST', '/v4/colors', { Name: `L${i}`, ColorValue: i, MinPercent: 0, MaxPercent: 10 });
    const until = Date.now() + 30_000;
    while (arrivals.length < WRITES && Date.now() < until) await sleep(50);
    log(`latency: ${arrivals.length} events, p99 ${pct(arrivals, 99)} ms`);
    out.push(
      `| event delivery after commit (${WRITES} creates, one at a time, healthy receiver) | received ${arrivals.length} | p50 ${pct(arrivals, 50)} ms | p99 ${pct(arrivals, 99)} ms | max ${Math.max(...arrivals)} ms |`,
    );

    // 2. sync page of 500 by site size
    for (const site of sites) {
      const t = await tokenFor(origin, 'admin', PASSWORD, site.siteId);
      const start = starts.get(site.siteId)!;
      const ms: number[] = [];
      for (let i = 0; i < READS; i++) {
        const t0 = performance.now();
        const page = await call(origin, t, 'GET', `/v4/sync/individuals?updatedSince=${start}&limit=500`);
        ms.push(performance.now() - t0);
        if ((page.json as unknown[]).length !== 500) throw new Error(`expected 500 records, got ${(page.json as unknown[]).length}`);
      }
      out.push(
        `| sync page of 500 changed individuals, site of ${fmt(site.size)} | ${READS} reads | median ${fmt(median(ms), 1)} ms | p90 ${fmt(pct(ms, 90), 1)} ms | |`,
      );
    }
  } finally {
    await stopProcess(service);
    receiver.close();
    await database.drop();
  }
  console.log(['| figure | n | | | |', '|---|---|---:|---:|---:|', ...out].join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
