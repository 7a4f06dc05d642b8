import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ADMIN_PASSWORD, ADMIN_USER, startApp, TestApp } from './harness.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const CLIENT = join(ROOT, 'test/client');

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
        files: ['scenario.ts', 'api.ts'],
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
    writeFileSync(join(dir, 'openapi.json'), await doc.text());
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

  it('runs the scenario against the app: login, department, individual, goal, list, a typed 404 problem', async () => {
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
    });
    expect(out.departmentId).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.individualId).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.goalId).toEqual(expect.any(Number));
    const goal = await t.http().get(`/v4/goals/${out.goalId}`).set('Authorization', `Bearer ${t.adminToken}`).expect(200);
    expect(goal.body).toMatchObject({ IndividualID: out.individualId, PeriodID: out.periodId, Measure1Completed: true });
  });
});
