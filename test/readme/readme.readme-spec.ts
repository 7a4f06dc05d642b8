import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

/**
 * The README runs as written, top to bottom: its first block (`npm ci && ADMIN_PASSWORD=… npm
 * start`) is run in the repository — without `npm ci`, which this repository has had already (CI
 * runs it on its fresh clone) and which would replace the node_modules this test runs from — and
 * every other ```sh block after it, in order, in one shell, as a reader would type them, against
 * that one fresh service — with only the port changed (a free one instead of 3000, on a database
 * of this test's own) and curl told to fail on an error status. A block the test cannot run says why in an HTML comment
 * `<!-- readme-test: skip: reason -->` right above it. `npm run test:readme`, run by .ci/run.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const run = promisify(execFile);

interface Block {
  line: number;
  code: string;
  directive: 'run' | 'start' | 'skip';
  reason?: string;
}

function shellBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```sh') continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
    const comment = /^<!-- readme-test: (start|skip)(?:: (.*))? -->$/.exec(lines[i - 1]?.trim() ?? '');
    blocks.push({
      line: i + 1,
      code: lines.slice(i + 1, end).join('\n'),
      directive: (comment?.[1] as Block['directive']) ?? 'run',
      reason: comment?.[2],
    });
    i = end;
  }
  return blocks;
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
  });
}

/** The README's text adapted to this run: our port; curl failing (with the body shown) on 4xx/5xx. */
function adapt(code: string, port: number): string {
  return code.replaceAll('localhost:3000', `localhost:${port}`).replace(/\bcurl -s /g, 'curl -sS --fail-with-body ');
}

describe('README.md', () => {
  const blocks = shellBlocks(README);
  const start = blocks.find((b) => b.directive === 'start');
  const runnable = blocks.filter((b) => b.directive === 'run' && b.line > (start?.line ?? 0));
  let port: number;
  let dir: string;
  let server: ChildProcess | undefined;
  let serverLog = '';
  const env = () => ({
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    PORT: String(port),
    METRICS_PORT: '0',
    DATABASE_URL: `sqlite:${join(dir, 'pms.sqlite')}`,
  });

  beforeAll(async () => {
    port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'pms-readme-'));
  });
  afterAll(async () => {
    if (server?.pid) {
      // The shell, npm and node run in a process group of their own: stop all three.
      process.kill(-server.pid, 'SIGTERM');
      await new Promise((r) => server!.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('says for every shell block that is not run why', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    expect(blocks.filter((b) => b.directive === 'start')).toHaveLength(1);
    expect(blocks.filter((b) => b.directive === 'skip' && !b.reason?.trim()).map((b) => `README.md:${b.line} is skipped without a reason`)).toEqual([]);
    expect(runnable.length).toBeGreaterThanOrEqual(3);
  });

  it('names only npm scripts that exist', () => {
    const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
    const named = [...README.matchAll(/npm run ([a-z][a-z0-9:-]*)/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((n) => !scripts.includes(n))).toEqual([]);
  });

  it('starts the service with its start command, and /docs answers', async () => {
    expect(blocks[0]).toBe(start);
    expect(start!.code).toMatch(/^npm ci && ADMIN_PASSWORD='[^']+' npm start$/m);
    server = spawn('bash', ['-c', start!.code.replace(/^npm ci && /m, '')], { cwd: ROOT, env: env(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (d: Buffer) => (serverLog += d.toString()));
    server.stderr!.on('data', (d: Buffer) => (serverLog += d.toString()));
    const deadline = Date.now() + 150_000;
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/health/live`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (server.exitCode !== null || Date.now() > deadline) throw new Error(`the service did not start:\n${serverLog}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    expect((await fetch(`http://127.0.0.1:${port}/docs`)).status).toBe(200);
  }, 180_000);

  it('runs every other shell block, in order, in one shell, without an error', async () => {
    const script = runnable.map((b, i) => `echo '<<<block ${i}>>>'\n${adapt(b.code, port)}\necho`).join('\n');
    const result = await run('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: ROOT, env: env(), timeout: 170_000, maxBuffer: 16 << 20 }).catch(
      (e: { stdout: string; stderr: string; code: number }) => e,
    );
    const out = result.stdout.split(/<<<block \d+>>>\n/).slice(1);
    expect({ stderr: result.stderr.replace(/npm warn.*\n?/g, ''), blocks: out.length }).toEqual({ stderr: '', blocks: runnable.length });

    const all = out.join('\n');
    expect(all).not.toContain('urn:pms:problem');
    // The curl examples: sites in JSON and XML, a department created from XML, dates in +02:00.
    expect(all).toMatch(/\[\{"ID":"[0-9a-f-]{36}","Name":"Default"/);
    expect(all).toMatch(/<ArrayOfSite xmlns="urn:pms:v4"[^>]*><Site>/);
    expect(all).toMatch(/<Organization xmlns="urn:pms:v4"[^>]*>.*<Name>Sales<\/Name>/);
    expect(all).toMatch(/"UserName":"admin".*"Created":"[^"]+\+02:00"/);
    // The demo users the README names log in with the demo password.
    const tokens = all.match(/"access_token":"[^"]+"/g) ?? [];
    expect(tokens.length).toBeGreaterThanOrEqual(2);
  }, 180_000);
});
