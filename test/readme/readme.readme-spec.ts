import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The README runs as written, top to bottom: its first block (`npm ci && ADMIN_PASSWORD=… npm
 * start`) is run in the repository — without `npm ci`, which this repository has had already (CI
 * runs it on its fresh clone) and which would replace the node_modules this test runs from — and
 * every other ```sh block after it, in order, in one shell, as a reader would type them, against
 * that one fresh service — with only the port changed (a free one instead of 3000, on a database
 * of this test's own) and curl told to fail on an error status. A block the test cannot run says why in an HTML comment
 * `<!-- readme-test: skip: reason -->` right above it. What a first start prints is quoted in
 * blocks marked `<!-- readme-test: first-start-output: sqlite|mysql -->`: the service's lines must be
 * those, in that order, and no others — on SQLite as the first block starts it, on MySQL/MariaDB as
 * the MySQL block does (against 127.0.0.1:3306 as root, or TEST_MYSQL_URL, in a database of its own).
 * A second `npm start` compiles nothing. `npm run test:readme`, run by .ci/run.
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

/** The lines a first-start-output block quotes, `context: msg` each. */
function quotedOutput(kind: 'sqlite' | 'mysql'): string[] {
  const lines = README.split('\n');
  const at = lines.findIndex((l) => l.trim() === `<!-- readme-test: first-start-output: ${kind} -->`);
  expect({ marker: at >= 0, fence: lines[at + 1]?.trim() }).toEqual({ marker: true, fence: '```text' });
  const end = lines.findIndex((l, j) => j > at + 1 && l.trim() === '```');
  return lines.slice(at + 2, end);
}

/**
 * The service's own lines (JSON, on stdout) up to the one saying it listens, as `context: msg`,
 * once that one has been written; null before.
 */
function printedUntilListening(log: string): string[] | null {
  const printed: string[] = [];
  for (const line of log.split('\n').slice(0, -1)) {
    if (!line.startsWith('{')) continue;
    const { context, msg } = JSON.parse(line) as { context: string; msg: string };
    printed.push(`${context}: ${msg}`);
    if (context === 'Main' && msg.startsWith('pms-api is listening on ')) return printed;
  }
  return null;
}

/** Each printed line against the quoted one in its place: `…` any figure, 3000 our port, 9464 any port. */
function compareOutput(printed: string[], quoted: string[], port: number): void {
  const pattern = (q: string) =>
    new RegExp(
      `^${q
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        .replaceAll('…', '.+?')
        .replaceAll(':3000', `:${port}`)
        .replaceAll('port 9464', 'port \\d+')}$`,
    );
  expect(printed.map((line, i) => (quoted[i] !== undefined && pattern(quoted[i]).test(line) ? quoted[i] : line))).toEqual(quoted);
}

/** Waits until the log holds the listening line; the lines up to it. */
async function untilListening(log: () => string, child: ChildProcess): Promise<string[]> {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const printed = printedUntilListening(log());
    if (printed) return printed;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the service did not start:\n${log()}`);
    await sleep(200);
  }
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
  let firstStart: string[] = [];
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
    // The port opens at once (readiness 503 meanwhile); the listening line says it is ready.
    firstStart = await untilListening(() => serverLog, server);
    expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/docs`)).status).toBe(200);
  }, 180_000);

  it('prints on a first start exactly the lines it quotes, on SQLite', () => {
    compareOutput(firstStart, quotedOutput('sqlite'), port);
    // A compile, when there was one, is announced as it says.
    for (const line of serverLog.split('\n').filter((l) => l.startsWith('pms-api build:')))
      expect(line).toMatch(/^pms-api build: compiling TypeScript into dist\/ \(.+\) …$/);
  });

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

  it('compiles nothing on a second npm start, which prints its listening line alone', async () => {
    const stamp = join(ROOT, 'dist/.build-stamp.json');
    const before = { main: statSync(join(ROOT, 'dist/src/main.js')).mtimeMs, stamp: readFileSync(stamp, 'utf8') };
    process.kill(-server!.pid!, 'SIGTERM');
    await new Promise((r) => server!.once('exit', r));
    let log = '';
    server = spawn('bash', ['-c', start!.code.replace(/^npm ci && /m, '')], { cwd: ROOT, env: env(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    server.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const printed = await untilListening(() => log, server);
    expect(log).not.toContain('pms-api build:');
    expect({ main: statSync(join(ROOT, 'dist/src/main.js')).mtimeMs, stamp: readFileSync(stamp, 'utf8') }).toEqual(before);
    const [listening] = quotedOutput('sqlite').slice(-1);
    compareOutput(printed, [listening.replace(/ First start: .*$/, '')], port);
  }, 180_000);

  it('prints on a first start exactly the lines it quotes, on MySQL/MariaDB (the MySQL block)', async () => {
    const block = blocks.find((b) => /DATABASE_URL='mysql:\/\/[^']+' JWT_SECRET='[^']+' ADMIN_PASSWORD='[^']+' npm start/.test(b.code))!;
    expect(block).toBeDefined();
    const target = new URL(process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306');
    const database = `pms_readme_${randomBytes(4).toString('hex')}`;
    const admin = () =>
      mysql.createConnection({
        host: target.hostname,
        port: Number(target.port || 3306),
        user: decodeURIComponent(target.username || 'root'),
        password: decodeURIComponent(target.password),
      });
    target.pathname = `/${database}`;
    const code = block.code.replace(/DATABASE_URL='[^']+'/, `DATABASE_URL='${target.href}'`).replace(/JWT_SECRET='[^']+'/, `JWT_SECRET='${'r'.repeat(40)}'`);
    let log = '';
    const child = spawn('bash', ['-c', code], {
      cwd: ROOT,
      env: { ...env(), PORT: String(await freePort()) },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    try {
      const printed = await untilListening(() => log, child);
      const mysqlPort = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(printed.at(-1)!)![1]);
      compareOutput(printed, quotedOutput('mysql'), mysqlPort);
    } finally {
      if (child.exitCode === null) {
        process.kill(-child.pid!, 'SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      const c = await admin();
      await c.query(`DROP DATABASE IF EXISTS \`${database}\``);
      await c.end();
    }
  }, 180_000);
});
