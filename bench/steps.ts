/**
 * Single steps of the request path, timed in isolation where a whole-request comparison
 * (`npm run bench:ab`) cannot tell them apart from the drift between runs (about ±10 % of a list's
 * CPU): each step is run the way the service runs it and the way it ran before, on the same
 * input, in alternation, and the median of 5 rounds is printed (docs/performance.md).
 *
 * - hydration of a page of 20 goals (35 columns each) on MySQL's driver: TypeORM's per-column
 *   `setEntityValue(prepareHydratedValue(…))` against the function compiled per entity
 *   (src/database/kept-sql.ts, `compileHydrate`).
 * - the claims of a bearer token the service verified before: decoded for its issuer and then
 *   looked up (as the AuthGuard did), against looked up alone (`TokenService.remembered`).
 *
 *   npm run bench:steps
 */
import 'reflect-metadata';
import { DataSource, type ObjectLiteral } from 'typeorm';
import { hydrateRows } from '../src/database/hydrate.js';
import { entitiesFor } from '../src/database/registry.js';
import { GoalEntity } from '../src/database/entities/goal.entity.js';
import { loadConfig } from '../src/config/config.js';
import { TokenService } from '../src/auth/token.service.js';
import { OidcVerifier } from '../src/auth/oidc-verifier.js';

const ROUNDS = 5;
const RUNS = 20_000;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** µs per call of `fn`, median of ROUNDS rounds of RUNS calls (after a warm-up round). */
function time(fn: () => unknown): number {
  const rounds: number[] = [];
  for (let r = 0; r <= ROUNDS; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < RUNS; i++) fn();
    if (r > 0) rounds.push(Number(process.hrtime.bigint() - t) / RUNS / 1000);
  }
  return median(rounds);
}

async function main(): Promise<void> {
  // The metadata alone, as the MySQL driver builds it: no connection is opened.
  const ds = new DataSource({ type: 'mysql', database: 'none', entities: entitiesFor(false) });
  await (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
  const metadata = ds.getMetadata(GoalEntity);
  const columns = metadata.columns.filter((c) => c.isSelect !== false);
  const at = Date.UTC(2026, 10, 24);
  // Rows as mysql2 hands them over: dates as Date, booleans as 0/1, numbers as numbers.
  const rows = Array.from({ length: 20 }, (_, i) =>
    Object.fromEntries(
      columns.map((c) => [
        c.databaseName,
        c.type === 'datetime' ? new Date(at + i * 1000) : c.type === 'boolean' ? i % 2 : c.type === 'integer' || c.type === Number ? i + 1 : `text ${i}`,
      ]),
    ),
  );
  const typeorm = () =>
    rows.map((row) => {
      const entity = metadata.create() as ObjectLiteral;
      for (const c of columns) c.setEntityValue(entity, ds.driver.prepareHydratedValue(row[c.databaseName], c));
      return entity;
    });
  const compiled = () => hydrateRows(metadata, rows);
  const tokens = new TokenService(loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'sqlite::memory:', JWT_SECRET: 's'.repeat(40) }));
  const { access_token: token } = tokens.issue({ sub: '6f1c2b4e-0c1a-4f5e-9a51-3c2d7e8f9a10', sid: '0b7e9f52-4d3c-4a1b-8e6f-2a9c1d3e5f70', gen: 0 });
  tokens.verify(token);
  const results: [string, number][] = [];
  for (const [name, fn] of [
    ['hydrating 20 goals: TypeORM per column', typeorm],
    ['hydrating 20 goals: compiled per entity', compiled],
    ['a remembered token: issuer decoded, then looked up', () => OidcVerifier.issuerOf(token) && tokens.verify(token)],
    ['a remembered token: looked up alone', () => tokens.remembered(token)],
  ] as const) {
    results.push([name, time(fn)]);
  }
  const lines = [
    `## Steps, node ${process.version}, ${new Date().toISOString().slice(0, 10)}`,
    '',
    '| step | µs per call, median |',
    '|---|---:|',
    ...results.map(([name, us]) => `| ${name} | ${us.toFixed(2)} |`),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
