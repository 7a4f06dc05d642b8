import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { buildWorld } from '../factories/world.js';
import { ADMIN_PASSWORD, ADMIN_USER, startApp, TestApp } from './harness.js';
import { ROUTE_CASES } from './route-cases.js';
import { listRoutes } from './routes.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const CLIENT = join(ROOT, 'test/client');

type Json = Record<string, unknown>;
type Schema = { type?: string; anyOf?: unknown[]; items?: { $ref?: string } };
type PathItem = { get?: { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> } };

/** The GET operations of the document whose 200 is a list: path → the schema name of its items. */
function listsOf(doc: Json): Map<string, string> {
  const lists = new Map<string, string>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, PathItem>)) {
    const schema = item.get?.responses?.['200']?.content?.['application/json']?.schema;
    if (schema?.type === 'array' || schema?.anyOf)
      lists.set(
        path,
        String(schema.items?.$ref ?? '(not one type)')
          .split('/')
          .pop()!,
      );
  }
  return lists;
}

/**
 * A scenario over every list of the document (lists.ts): each list read through the generated
 * client and its items assigned, with no narrowing, to an array of the list's own resource type —
 * which compiles only when the JSON 200 of every list is that plain array (no union with SyncEntry;
 * the client is typed for JSON, as an integrator's is once lists also declare export types).
 * The path and query values come at run time from calls.json (the route cases of a World).
 */
function listScenario(lists: Map<string, string>): string {
  const lines = [
    "import { readFileSync } from 'node:fs';",
    "import createClient from 'openapi-fetch';",
    "import type { components, paths } from './api.js';",
    "type S = components['schemas'];",
    '// The path and query parameters and the Authorization header of each call, by path.',
    "const calls: Record<string, any> = JSON.parse(readFileSync('calls.json', 'utf8'));",
    // The queried lists also answer CSV, XLSX and NDJSON (docs/exports.md): the client types the JSON answers and problems.
    "const client = createClient<paths, 'application/json' | 'application/problem+json'>({ baseUrl: process.argv[2] });",
    'const answered: Record<string, { status: number; ids: string[] }> = {};',
    '// Every resource is an object type: its ID, where it has one (a count row and an audit entry have none).',
    'const idOf = (x: Record<string, unknown>): string => String(x.ID);',
  ];
  for (const [path, item] of lists) {
    const p = JSON.stringify(path);
    lines.push(
      '{',
      `  const c = calls[${p}];`,
      `  const { data, response } = await client.GET(${p}, { params: c.params, headers: c.headers });`,
      `  const items: S[${JSON.stringify(item)}][] = data ?? [];`,
      `  answered[${p}] = { status: response.status, ids: items.map(idOf) };`,
      '}',
    );
  }
  lines.push('console.log(JSON.stringify(answered));');
  return lines.join('\n') + '\n';
}

/**
 * A client generated from the live OpenAPI document compiles and works: openapi-typescript (on the
 * pinned TypeScript 5.9, see test/client/typescript5.mjs) writes the types, test/client/scenario.ts
 * (openapi-fetch) must compile with `tsc --strict` without a single error — under the project's
 * TypeScript 6 and under TypeScript 5 — and then run against the app.
 */
describe('a client generated from /docs/openapi.json', () => {
  let t: TestApp;
  let dir: string;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startApp();
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    // A scratch project outside the repository that resolves packages from the repository's node_modules.
    dir = mkdtempSync(join(tmpdir(), 'pms-client-'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    copyFileSync(join(CLIENT, 'scenario.ts'), join(dir, 'scenario.ts'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2023',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          types: ['node'],
          // Only the packages' declaration files: api.ts and scenario.ts are checked in full.
          skipLibCheck: true,
          noEmitOnError: true,
          outDir: 'out',
        },
        files: ['scenario.ts', 'lists.ts', 'api.ts'],
      }),
    );
  });
  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  it('generates the types with openapi-typescript on TypeScript 5', async () => {
    const doc = await fetch(`${baseUrl}/docs/openapi.json`);
    expect(doc.status).toBe(200);
    const text = await doc.text();
    writeFileSync(join(dir, 'openapi.json'), text);
    const lists = listsOf(JSON.parse(text) as Json);
    expect(lists.size).toBeGreaterThan(60);
    writeFileSync(join(dir, 'lists.ts'), listScenario(lists));
    const { stderr } = await run(
      process.execPath,
      ['--import', join(CLIENT, 'typescript5.mjs'), join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), 'openapi.json', '-o', 'api.ts'],
      { cwd: dir, timeout: 60_000 },
    );
    expect(stderr).not.toMatch(/error|warn/i);
  });

  it.each([
    ['the project’s TypeScript 6', 'typescript'],
    ['TypeScript 5', 'typescript5'],
  ])('compiles the scenario with %s and tsc --strict without errors', async (_label, pkg) => {
    const tsc = join(ROOT, 'node_modules', pkg, 'bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--strict', '--pretty', 'false'], { cwd: dir, timeout: 120_000 }).catch(
      (e: { stdout: string; code: number }) => e,
    );
    expect(result.stdout).toBe('');
  });

  it('reads every list through the generated client, each answering its own resource type', async () => {
    const doc = JSON.parse((await t.http().get('/docs/openapi.json').expect(200)).text) as Json;
    const lists = listsOf(doc);
    const w = await buildWorld(t, 'Gc');
    const byPath = new Map(listRoutes(t.app).map((r) => [`${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`, r]));
    const calls: Record<string, Json> = {};
    for (const path of lists.keys()) {
      const r = byPath.get(`GET ${path}`)!;
      const c = ROUTE_CASES[r.key];
      const p = c.params?.(w) ?? {};
      const token = r.rule === 'global-admin' ? t.adminToken : w.admin.token;
      calls[path] = {
        params: { path: Object.fromEntries(r.params.map((n) => [n, p[n]])), query: c.query?.(p) },
        headers: { Authorization: `Bearer ${token}` },
      };
    }
    writeFileSync(join(dir, 'calls.json'), JSON.stringify(calls));
    const { stdout } = await run(process.execPath, ['out/lists.js', baseUrl], { cwd: dir, timeout: 120_000 });
    const answered = JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, { status: number; ids: string[] }>;
    expect(Object.keys(answered).sort()).toEqual([...lists.keys()].sort());
    const wrong = Object.entries(answered)
      .filter(([, a]) => a.status !== 200)
      .map(([path, a]) => `${path}: ${a.status}`);
    expect(wrong).toEqual([]);
    // The lists of the world's records answer them (not an empty page by a wrong call).
    expect(answered['/v4/individuals/{id}/goals'].ids).toContain(String(w.ids.goal));
    expect(answered['/v4/individuals'].ids).toContain(w.worker.individualId);
  });

  it('runs the scenario against the app: login, department, individual, goal, list, a list queried and paged by cursor, a typed 404 problem', async () => {
    const { stdout } = await run(process.execPath, ['out/scenario.js', baseUrl, ADMIN_USER, ADMIN_PASSWORD], { cwd: dir, timeout: 60_000 });
    const out = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(out).toMatchObject({
      expiresIn: 3600,
      parentId: null,
      fullName: 'Gene Rated',
      measuresCompleted: 1,
      names: ['Ship the integration'],
      total: 1,
      missing: { httpStatus: 404, status: 404, type: 'urn:pms:problem:not-found' },
      // Filtered, sorted by FirstName, two a page by the cursor of each Link, only the fields asked.
      pages: [['Amy', 'Gene'], ['Zed']],
      members: [
        ['ID', 'FirstName'],
        ['ID', 'FirstName'],
        ['ID', 'FirstName'],
      ],
      badFilter: { httpStatus: 400, type: 'urn:pms:problem:validation-failed' },
    });
    expect(out.badFilter.detail).toContain('Salary');
    expect(out.departmentId).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.individualId).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.goalId).toEqual(expect.any(Number));
    const goal = await t.http().get(`/v4/goals/${out.goalId}`).set('Authorization', `Bearer ${t.adminToken}`).expect(200);
    expect(goal.body).toMatchObject({ IndividualID: out.individualId, PeriodID: out.periodId, Measure1Completed: true });
  });
});
