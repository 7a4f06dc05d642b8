/**
 * Read-path benchmark: the calls integrators make most, JSON against XML, on a site of 5,000
 * individuals. Runs the real app on loopback (port chosen by the OS), sends a bounded number of
 * requests at a fixed concurrency, prints a Markdown table, and stops by itself.
 *
 *   npm run bench                                   # SQLite (temp file)
 *   BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306/pms_bench npm run bench   # an existing, empty MySQL/MariaDB database
 */
import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { createApp } from '../src/app.factory.js';
import { JsonLogger } from '../src/common/logging/json-logger.js';
import { loadConfig } from '../src/config/config.js';
import { CommentEntity } from '../src/modules/comments/comment.entity.js';
import { IndividualEntity } from '../src/modules/individuals/individual.entity.js';
import { OrganizationEntity } from '../src/modules/organizations/organization.entity.js';
import { SiteEntity } from '../src/modules/sites/site.entity.js';

const SITE_SIZE = 5000;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const PASSWORD = 'bench-password-1';

async function seed(ds: DataSource, siteId: string): Promise<string[]> {
  const orgId = (await ds.getRepository(OrganizationEntity).findOneByOrFail({ siteId })).id;
  const now = new Date();
  const ids: string[] = [];
  for (let start = 0; start < SITE_SIZE; start += 500) {
    const rows = Array.from({ length: Math.min(500, SITE_SIZE - start) }, (_, k) => {
      const id = randomUUID();
      ids.push(id);
      return {
        id,
        siteId,
        userId: null,
        isAdmin: false,
        firstName: `First${start + k}`,
        lastName: `Last${String(start + k).padStart(5, '0')}`,
        email: `p${start + k}@bench.test`,
        primaryOrganizationId: orgId,
        primaryTitle: 'Engineer',
        primaryReportsTo: null,
        created: now,
        updated: now,
      };
    });
    await ds.createQueryBuilder().insert().into(IndividualEntity).values(rows).execute();
    await ds
      .createQueryBuilder()
      .insert()
      .into(CommentEntity)
      .values(
        rows.map((r) => ({
          id: randomUUID(),
          siteId,
          ancestorId: r.id,
          ancestorType: 'individuals' as const,
          body: 'Good quarter',
          authorId: null,
          created: now,
          updated: now,
        })),
      )
      .execute();
  }
  return ids;
}

interface Result {
  name: string;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  bytes: number;
}

async function measure(name: string, url: string, headers: Record<string, string>): Promise<Result> {
  const hit = async () => {
    const res = await fetch(url, { headers });
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
    return body.byteLength;
  };
  for (let i = 0; i < 10; i++) await hit(); // warm-up
  const latencies: number[] = [];
  let bytes = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next++;
        const start = performance.now();
        bytes = await hit();
        latencies.push(performance.now() - start);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
  return { name, rps: latencies.length / elapsed, p50: q(0.5), p95: q(0.95), p99: q(0.99), bytes };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pms-bench-'));
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: process.env.BENCH_DATABASE_URL ?? `sqlite:${join(dir, 'bench.sqlite')}`,
    JWT_SECRET: randomBytes(32).toString('hex'),
    ADMIN_PASSWORD: PASSWORD,
    LOG_LEVEL: 'silent',
  });
  const app = await createApp(config, new JsonLogger('silent'));
  try {
    await app.listen(0, '127.0.0.1');
    const port = ((app.getHttpServer() as Server).address() as { port: number }).port;
    const ds = app.get<DataSource>(getDataSourceToken());
    const siteId = (await ds.getRepository(SiteEntity).findOneByOrFail({ name: 'Default' })).id;
    const ids = await seed(ds, siteId);
    const base = `http://127.0.0.1:${port}/v4`;
    const login = await fetch(`${base}/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ UserName: 'admin', Password: PASSWORD }),
    });
    const token = ((await login.json()) as { access_token: string }).access_token;
    const auth = { Authorization: `Bearer ${token}` };
    const json = { ...auth, Accept: 'application/json' };
    const xml = { ...auth, Accept: 'application/xml' };
    const results = [
      await measure('GET /v4/individuals?limit=500 (JSON)', `${base}/individuals?limit=500`, json),
      await measure('GET /v4/individuals?limit=500 (XML)', `${base}/individuals?limit=500`, xml),
      await measure('GET /v4/individuals/{id} (JSON)', `${base}/individuals/${ids[1234]}`, json),
      await measure('GET /v4/individuals/{id} (XML)', `${base}/individuals/${ids[1234]}`, xml),
      await measure('GET /health/ready', `http://127.0.0.1:${port}/health/ready`, {}),
    ];
    const kind = config.database.kind === 'sqlite' ? 'SQLite' : 'MySQL/MariaDB';
    console.log(`\n${kind}, ${SITE_SIZE} individuals, ${REQUESTS} requests per row at concurrency ${CONCURRENCY}, node ${process.version}\n`);
    console.log('| request | req/s | p50 ms | p95 ms | p99 ms | body bytes |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const r of results) console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.bytes} |`);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
