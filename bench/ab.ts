/**
 * Compares builds of the service on one load (docs/performance.md, "Comparing builds"): a change
 * worth 10 % of a read's CPU is below the noise between two runs of `npm run bench` on a shared
 * machine, but shows plainly when the builds run side by side and take turns.
 *
 *   npm run bench:ab -- HEAD~1 .           # a git ref (commit, branch, tag) or `.`, the working tree
 *   npm run bench:ab -- --sqlite v1 v2     # on SQLite instead of MariaDB
 *
 * Each ref's `src/` is compiled with this checkout's TypeScript and node_modules into
 * `.bench-builds/<commit>/` (git-ignored, reused by later runs; `.` is compiled anew each run).
 * The builds are started one after another on one database (each applies the migrations it knows;
 * later ones find them done), seeded once (1,000 individuals in a reporting tree, a comment each),
 * all pinned to core 0, and warmed up. Then each round loads every build in turn with autocannon
 * from core 1 (the order reverses every other round) and reads the server CPU per request from
 * /proc. Prints one Markdown table, a row per build and round, and the medians.
 *
 * Knobs (environment): AB_ROUNDS (4), AB_DURATION seconds per build and round (5),
 * AB_CONNECTIONS (50), AB_ROW: `byid` (GET /v4/individuals/{id} JSON as administrator, default),
 * `byid-xml`, `page` (GET /v4/individuals?limit=500), `live` (GET /health/live) or `write`
 * (POST /v4/colors JSON as administrator: a write, with whatever each build records with it).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/config.js';
import { dataSourceOptions, detectMysqlFlavor } from '../src/database/data-source.js';
import { createDatabase, fmt, load, loadMeasured, log, median, num, root, settle, startService, stopProcess, tokenFor, type Proc } from './common.js';
import type { LoadRequest } from './load.js';
import { seedSite } from './seed.js';

const ROUNDS = num('AB_ROUNDS', 4);
const DURATION = num('AB_DURATION', 5);
const CONNECTIONS = num('AB_CONNECTIONS', 50);
const ROW = process.env.AB_ROW ?? 'byid';
const SQLITE = process.argv.includes('--sqlite');
const PASSWORD = 'bench-password-1';
const BUILDS = join(root, '.bench-builds');

interface Build {
  ref: string;
  dist: string;
}
interface Running extends Build {
  service: Proc;
  origin: string;
  requests: LoadRequest[];
  cpuUs: number[];
  rps: number[];
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

/** Compiles a ref (or `.`) into .bench-builds and answers where its main.js is. */
function build(ref: string): Build {
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
    for (const b of builds) {
      const started = await startService(database.url, PASSWORD, [process.execPath, join(b.dist, 'src', 'main.js')]);
      env = started.env;
      running.push({ ...b, service: started.service, origin: started.origin, requests: [], cpuUs: [], rps: [] });
    }
    const config = loadConfig({ ...env, NODE_ENV: 'production' });
    const ds = new DataSource(dataSourceOptions(config, await detectMysqlFlavor(config)));
    await ds.initialize();
    const site = await seedSite(ds, { name: 'A/B', size: 1000, busyComments: 0, password: PASSWORD });
    if (!SQLITE) await ds.query('ANALYZE TABLE individuals, comments, organizations, users');
    await ds.destroy();

    for (const r of running) {
      const token = await tokenFor(r.origin, 'admin', PASSWORD, site.siteId);
      const headers = { Authorization: `Bearer ${token}`, Accept: ROW === 'byid-xml' ? 'application/xml' : 'application/json' };
      r.requests =
        ROW === 'live'
          ? [{ path: '/health/live' }]
          : ROW === 'write'
            ? [
                {
                  path: '/v4/colors',
                  method: 'POST',
                  headers: { ...headers, 'Content-Type': 'application/json' },
                  body: JSON.stringify({ Name: 'Bench', ColorValue: 1, MinPercent: 0, MaxPercent: 10 }),
                },
              ]
            : ROW === 'page'
              ? [{ path: '/v4/individuals?limit=500', headers }]
              : site.ids.map((id) => ({ path: `/v4/individuals/${id}`, headers }));
      await load({ origin: r.origin, requests: r.requests, connections: CONNECTIONS, duration: 2 });
    }

    for (let round = 1; round <= ROUNDS; round++) {
      for (const r of round % 2 ? running : [...running].reverse()) {
        for (const other of running) await settle(other.service.pid);
        const { result, cpuMs } = await loadMeasured(r.service.pid, { origin: r.origin, requests: r.requests, connections: CONNECTIONS, duration: DURATION });
        if (result.non2xx || result.errors) throw new Error(`${r.ref}: ${result.non2xx} non-2xx, ${result.errors} errors\n${r.service.tail().slice(-3000)}`);
        r.cpuUs.push((cpuMs * 1000) / result.requests);
        r.rps.push(result.rps);
        log(`round ${round}: ${r.ref}: ${fmt(result.rps)} req/s, ${fmt(r.cpuUs.at(-1)!)} µs CPU per request`);
      }
    }

    const lines = [
      `## A/B: \`${ROW}\`, ${SQLITE ? 'SQLite' : 'MariaDB'}, ${ROUNDS} rounds × ${DURATION} s, ${CONNECTIONS} connections, node ${process.version}, ${new Date().toISOString().slice(0, 10)}`,
      '',
      '| build | CPU µs / request, median | each round | req/s, median |',
      '|---|---:|---|---:|',
      ...running.map((r) => `| \`${r.ref}\` | ${fmt(median(r.cpuUs))} | ${r.cpuUs.map((x) => fmt(x)).join(', ')} | ${fmt(median(r.rps))} |`),
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    for (const r of running) await stopProcess(r.service);
    await database.drop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:ab: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
