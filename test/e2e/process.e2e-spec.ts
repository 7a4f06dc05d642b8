import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { parseAllDocuments } from 'yaml';
import { SHUTDOWN_BODY_WAIT_MS } from '../../src/http/pipeline/server-lifecycle.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The service as a process: `node dist/src/main.js` built from the current sources, on a SQLite
 * file of its own. These tests cover what only a real process shows: start-up refusal of a bad
 * configuration, the listening line, and graceful shutdown on SIGTERM.
 */
const root = process.cwd();
const main = join(root, 'dist/src/main.js');
let dir: string;

beforeAll(() => {
  // Compiled by `npm run build`'s own script: only when the sources changed since the last build
  // (its stamp hashes them), so the later steps of CI that build (interop, faults, cluster) and a
  // second run of this file do not compile the same tree again.
  execFileSync(process.execPath, [join(root, 'scripts/build-if-changed.mjs')], { cwd: root, stdio: 'pipe' });
  dir = mkdtempSync(join(tmpdir(), 'pms-process-'));
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  port: number;
  exited: Promise<number | null>;
  output: () => string;
}

function start(env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, [main], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`,
      JWT_SECRET: 'p'.repeat(40),
      ADMIN_PASSWORD: 'process-pass-1',
      PORT: '0',
      METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within 20 s:\n${out}`)), 20_000);
    const check = () => {
      const m = /listening on http:\/\/[^:/\s]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), exited, output: () => out });
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${out}`));
    });
  });
}

describe('the service process', () => {
  it('refuses a bad configuration value with one line naming it, and exit code 2', () => {
    let status: number | null = null;
    let stderr = '';
    try {
      execFileSync(process.execPath, [main], { cwd: dir, env: { PATH: process.env.PATH ?? '', PORT: 'eighty' }, stdio: 'pipe' });
    } catch (e) {
      const err = e as { status: number; stderr: Buffer };
      status = err.status;
      stderr = err.stderr.toString();
    }
    expect(status).toBe(2);
    expect(stderr).toBe('pms-api: configuration error: PORT: must be a whole number, got "eighty"\n');
  });

  it('logs where it listens and where the docs are — 127.0.0.1 unless HOST says otherwise — then serves', async () => {
    const p = await start({});
    try {
      expect(p.output()).toContain(`listening on http://127.0.0.1:${p.port} — API http://127.0.0.1:${p.port}/v4, Swagger UI http://127.0.0.1:${p.port}/docs`);
      const res = await fetch(`http://127.0.0.1:${p.port}/health/ready`);
      expect(res.status).toBe(200);
      // Probes are logged at debug: no access line for them at info.
      await sleep(400);
      expect(p.output()).not.toContain('"path":"/health/ready"');
    } finally {
      p.child.kill('SIGKILL');
      await p.exited;
    }
    const everywhere = await start({ HOST: '0.0.0.0' });
    try {
      expect(everywhere.output()).toContain(`listening on http://localhost:${everywhere.port} (every interface, 0.0.0.0)`);
    } finally {
      everywhere.child.kill('SIGKILL');
      await everywhere.exited;
    }
  }, 30_000);

  it('serves the Prometheus scrape on METRICS_PORT only, refuses a port in use in one line, and serves none with METRICS_PORT=off', async () => {
    const p = await start({});
    let taken: number;
    try {
      const m = /Prometheus metrics on port (\d+) \(\/metrics\)/.exec(p.output());
      expect(m).not.toBeNull();
      taken = Number(m![1]);
      expect(taken).not.toBe(p.port);
      await fetch(`http://127.0.0.1:${p.port}/health/live`);
      const scrape = await fetch(`http://127.0.0.1:${taken}/metrics`);
      expect(scrape.status).toBe(200);
      expect(await scrape.text()).toContain('http_requests_total');
      expect((await fetch(`http://127.0.0.1:${p.port}/metrics`)).status).toBe(404);
      const clash = spawnSync(process.execPath, [main], {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          DATABASE_URL: `sqlite:${join(dir, 'p.sqlite')}`,
          JWT_SECRET: 'p'.repeat(40),
          PORT: '0',
          METRICS_PORT: String(taken),
        },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(clash.status).toBe(2);
      expect(clash.stderr).toContain(`pms-api: METRICS_PORT ${taken} on 127.0.0.1: the port is in use`);
    } finally {
      p.child.kill('SIGKILL');
      await p.exited;
    }
    const off = await start({ METRICS_PORT: 'off' });
    try {
      expect(off.output()).not.toContain('Prometheus metrics on port');
    } finally {
      off.child.kill('SIGKILL');
      await off.exited;
    }
  }, 40_000);

  it('on a first start writes the generated password to a 0600 file beside the database, never into the log, and says so', async () => {
    const sub = mkdtempSync(join(dir, 'first-'));
    const database = `sqlite:${join(sub, 'first-start.sqlite')}`;
    const first = await start({ DATABASE_URL: database, ADMIN_PASSWORD: '' });
    let password: string;
    try {
      const lines = first.output().trim().split('\n');
      const index = lines.findIndex((l) => l.includes('listening on'));
      // The framework's route-mapping chatter is debug: the line that matters comes first.
      expect({ index, mapped: lines.filter((l) => l.includes('Mapped {')).length }).toEqual({ index: expect.any(Number), mapped: 0 });
      expect(index).toBeLessThan(3);
      const line = JSON.parse(lines[index]) as { msg: string };
      const file = join(sub, 'admin-password');
      expect(line.msg).toContain(`log in as "admin" with the generated password written to ${file} (mode 0600; not logged)`);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      password = readFileSync(file, 'utf8').trim();
      expect(password.length).toBeGreaterThanOrEqual(12);
      expect(first.output()).not.toContain(password);
      const login = await fetch(`http://127.0.0.1:${first.port}/v4/auth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ UserName: 'admin', Password: password }),
      });
      expect(login.status).toBe(200);
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }
    const again = await start({ DATABASE_URL: database, ADMIN_PASSWORD: '' });
    try {
      expect(again.output()).toContain('listening on');
      expect(again.output()).not.toContain('password');
      expect(again.output()).not.toContain(password);
    } finally {
      again.child.kill('SIGKILL');
      await again.exited;
    }
    // A later start with another ADMIN_PASSWORD: ignored, and it says so and what to do.
    const ignored = await start({ DATABASE_URL: database, ADMIN_PASSWORD: 'another-password-1' });
    try {
      // The warning follows the listening line once the password is compared (scrypt): wait for it, up to 20 s on a loaded machine.
      for (const end = Date.now() + 20_000; !ignored.output().includes('ADMIN_PASSWORD is set') && Date.now() < end;) await sleep(100);
      expect(ignored.output()).toContain('ADMIN_PASSWORD is set but was ignored: it is used only on the first start');
      expect(ignored.output()).toContain('PUT /v4/individuals/{your ID from GET /v4/me}');
    } finally {
      ignored.child.kill('SIGKILL');
      await ignored.exited;
    }
  }, 60_000);

  it('on SIGTERM finishes the in-flight request, does not wait for idle keep-alive connections, and exits 0', async () => {
    const p = await start({});
    // An idle keep-alive connection that has served one request.
    const agent = new http.Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) =>
      http.get({ host: '127.0.0.1', port: p.port, path: '/health/live', agent }, (res) => res.resume().on('end', () => resolve())).on('error', reject),
    );
    // An in-flight login whose body has only half arrived when SIGTERM comes.
    const body = JSON.stringify({ UserName: 'admin', Password: 'process-pass-1' });
    const socket = net.connect(p.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.write(
      `POST /v4/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
    );
    socket.write(body.slice(0, 10));
    await sleep(200);

    const t0 = Date.now();
    p.child.kill('SIGTERM');
    await sleep(300);
    socket.write(body.slice(10));
    await new Promise((r) => socket.once('close', r));
    expect(answer).toMatch(/^HTTP\/1.1 200 /);
    expect(answer).toContain('access_token');
    expect(await p.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(p.output()).toContain('SIGTERM received');
    agent.destroy();
  }, 30_000);

  it('on SIGTERM answers a body that stopped arriving with 503 + Retry-After, closes it, and exits 0 (it waited the whole grace and exited 1)', async () => {
    const p = await start({});
    const socket = net.connect(p.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.write('POST /v4/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"UserName"');
    await sleep(200);
    const t0 = Date.now();
    p.child.kill('SIGTERM');
    await new Promise((r) => socket.once('close', r));
    expect(answer).toMatch(/^HTTP\/1.1 503 /);
    expect(answer).toContain('Retry-After: 1');
    expect(answer).toContain('urn:pms:problem:service-unavailable');
    expect(await p.exited).toBe(0);
    // SHUTDOWN_BODY_WAIT_MS (2 s) for the body, then the exit: far inside the 20 s grace.
    expect(Date.now() - t0).toBeLessThan(SHUTDOWN_BODY_WAIT_MS + 3000);
  }, 30_000);

  // A log reader that goes away (`npm start | tee` cut short, a log shipper on a pipe that died)
  // leaves stdout a broken pipe: every write fails with EPIPE. One that stops reading leaves it
  // full. Either way the service keeps serving, and a SIGTERM still ends it within seconds, whether
  // the exit's flush or a write in the meantime meets the pipe first.
  it.each([
    ['a pipe whose reader is gone, at once (the exit flush meets the broken pipe)', 'gone', 0],
    ['a pipe whose reader is gone, after serving requests (their log lines meet it first)', 'gone', 20],
    ['a pipe whose reader stopped reading, after filling it with log lines', 'stopped', 2000],
  ] as const)(
    'with stdout %s: serves, and exits 0 on SIGTERM',
    async (_case, reader, requests) => {
      const p = await start({});
      const stdout = p.child.stdout!;
      if (reader === 'gone') stdout.destroy();
      else stdout.pause();
      await sleep(100);
      // An unauthenticated GET /v4/me: answered 401, one access-log line at info each.
      for (let i = 0; i < requests; i++) {
        const status = await new Promise<number | undefined>((resolve, reject) =>
          http.get({ host: '127.0.0.1', port: p.port, path: '/v4/me' }, (res) => res.resume().on('end', () => resolve(res.statusCode))).on('error', reject),
        );
        expect(status).toBe(401);
      }
      // Long enough for the periodic flush (200 ms) to write the access lines into the pipe.
      if (requests > 0) await sleep(500);
      const t0 = Date.now();
      p.child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([p.exited, new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), 10_000)))]);
      clearTimeout(timer);
      if (code === 'still running') p.child.kill('SIGKILL');
      expect(code).toBe(0);
      // A full pipe is retried for about 2 s before what is buffered is dropped.
      expect(Date.now() - t0).toBeLessThan(6000);
      // Nothing on stderr but what the service means to say.
      expect(p.output()).not.toMatch(/EPIPE|EAGAIN|Error:/);
    },
    60_000,
  );

  it('with stdout not read, keeps at most 16 MiB of log lines waiting, drops the rest, and says how many once stdout is read again', async () => {
    // A process logging 160 MB through the service's logger (the stdout sink) while nobody reads
    // its stdout; it reports its heap, then logs once more when told that stdout is read again.
    const script = `
      import { JsonLogger, MAX_BUFFERED } from ${JSON.stringify(join(root, 'dist/src/common/logging/json-logger.js'))};
      import { HttpMetrics } from ${JSON.stringify(join(root, 'dist/src/http/pipeline/http-metrics.js'))};
      const logger = new JsonLogger('info');
      const filler = 'x'.repeat(1000);
      for (let i = 0; i < 160_000; i++) {
        logger.event('info', 'Flood', { i, filler });
        if (i % 1000 === 0) await new Promise((r) => setImmediate(r));
      }
      // The chunker's last lines are passed on (and dropped) at its next tick.
      await new Promise((r) => setTimeout(r, 500));
      global.gc();
      const scrape = await new HttpMetrics().text();
      const metric = Number(/^pms_log_dropped_lines_total (\\d+)$/m.exec(scrape)?.[1]);
      process.stderr.write(JSON.stringify({ heapUsed: process.memoryUsage().heapUsed, max: MAX_BUFFERED, metric }) + '\\n');
      process.stdin.once('data', () => {
        logger.event('info', 'Flood', { msg: 'read again' });
        setTimeout(() => process.exit(0), 1000);
      });
    `;
    const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const stdout = child.stdout;
    stdout.pause();
    let err = '';
    const report = new Promise<{ heapUsed: number; max: number; metric: number }>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const line = err.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve(JSON.parse(line) as { heapUsed: number; max: number; metric: number });
      });
      void exited.then((code) => reject(new Error(`exited with ${code}: ${err}`)));
    });
    const { heapUsed, max, metric } = await report;
    expect(max).toBe(16 * 1024 * 1024);
    // 160 MB were logged; what waits is at most 16 MiB (strings of one byte a character) and the
    // process's own heap besides.
    expect(heapUsed).toBeLessThan(60 * 1024 * 1024);

    let out = '';
    stdout.on('data', (d: Buffer) => (out += d.toString()));
    stdout.resume();
    // What waited is written first (and the warning with it): until stdout has been quiet a while.
    for (let seen = -1; seen !== out.length;) {
      seen = out.length;
      await sleep(1000);
    }
    child.stdin.write('go\n');
    expect(await exited).toBe(0);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: string; context: string; msg?: string; i?: number; droppedLines?: number; droppedBytes?: number });
    const flood = lines.filter((l) => l.context === 'Flood' && l.i !== undefined);
    const dropped = lines.filter((l) => l.context === 'Log');
    expect(dropped).toHaveLength(1);
    expect(dropped[0].level).toBe('warn');
    // Every line is either written or counted, and the ones written are whole and in order.
    expect(flood.length + dropped[0].droppedLines!).toBe(160_000);
    expect(flood.length).toBeGreaterThan(0);
    expect(flood.every((l, k) => k === 0 || l.i! > flood[k - 1].i!)).toBe(true);
    expect(dropped[0].droppedBytes).toBeGreaterThan(100_000_000);
    // The scrape counted them while stdout was not read.
    expect(metric).toBe(dropped[0].droppedLines);
    expect(lines[lines.length - 1].msg).toBe('read again');
  }, 120_000);

  it('the migration Job runs with exactly the environment its manifest gives it: no JWT_SECRET, no ADMIN_*, in production', async () => {
    const [job] = parseAllDocuments(readFileSync(join(root, 'deploy/k8s/base/migrate-job.yaml'), 'utf8')).map(
      (d) => d.toJS() as { spec: { template: { spec: { containers: { command: string[]; env: { name: string; value?: string; valueFrom?: object }[] }[] } } } },
    );
    const [container] = job.spec.template.spec.containers;
    const sub = mkdtempSync(join(dir, 'job-'));
    const file = join(sub, 'job.sqlite');
    // The manifest's values as they are; the one from the Secret is the database's URL.
    const env = Object.fromEntries(container.env.map((e) => [e.name, e.valueFrom ? `sqlite:${file}` : e.value!]));
    expect(env.NODE_ENV).toBe('production');
    const [node, script] = container.command;
    expect(node).toBe('node');
    const run = spawnSync(process.execPath, [join(root, script)], {
      cwd: sub,
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    const db = await new DataSource({ type: 'better-sqlite3', database: file }).initialize();
    try {
      const [{ n }] = (await db.query('SELECT COUNT(*) AS n FROM schema_migrations')) as { n: number }[];
      expect(n).toBeGreaterThan(10);
    } finally {
      await db.destroy();
    }
    // Nothing secret was made up for it either.
    expect(existsSync(join(sub, 'jwt-secret'))).toBe(false);
  }, 60_000);

  it('seed:demo creates the demo site once (idempotent) and a demo user can explore it', async () => {
    const env = {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'info',
      DATABASE_URL: `sqlite:${join(dir, 'demo.sqlite')}`,
      JWT_SECRET: 'd'.repeat(40),
      DEMO_PASSWORD: 'demo-pass-123',
    };
    const seedScript = join(root, 'dist/src/demo/seed-demo.js');
    const first = execFileSync(process.execPath, [seedScript], { cwd: dir, env, encoding: 'utf8' });
    expect(first).toContain('"individuals":50');
    const second = execFileSync(process.execPath, [seedScript], { cwd: dir, env, encoding: 'utf8' });
    expect(second).toContain('already exists');

    const p = await start({ DATABASE_URL: env.DATABASE_URL, JWT_SECRET: env.JWT_SECRET });
    try {
      const base = `http://127.0.0.1:${p.port}/v4`;
      const login = await fetch(`${base}/auth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ UserName: 'olivia.schmidt', Password: 'demo-pass-123' }),
      });
      expect(login.status).toBe(200);
      const auth = { Authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
      const people = await fetch(`${base}/individuals?limit=5`, { headers: auth });
      expect(people.headers.get('x-total-count')).toBe('50');
      const departments = (await (await fetch(`${base}/departments`, { headers: auth })).json()) as { Name: string }[];
      expect(departments.map((d) => d.Name)).toEqual(expect.arrayContaining(['Engineering', 'Platform Engineering', 'Human Resources']));
      const goals = (await (await fetch(`${base}/me/goals`, { headers: auth })).json()) as unknown[];
      expect(goals.length).toBeGreaterThan(0);
      const accountabilities = (await (await fetch(`${base}/me/accountabilities`, { headers: auth })).json()) as unknown[];
      expect(accountabilities.length).toBeGreaterThan(0);
      const values = (await (await fetch(`${base}/corevalues`, { headers: auth })).json()) as { Name: string }[];
      expect(values.map((v) => v.Name)).toContain('Integrity');
      const [corp] = (await (await fetch(`${base}/organizations`, { headers: auth })).json()) as { ID: string; SiteID: string }[];
      const commitments = (await (await fetch(`${base}/organizations/${corp.ID}/commitments`, { headers: auth })).json()) as unknown[];
      expect(commitments).toHaveLength(3);
      const metrics = (await (await fetch(`${base}/me/metrics`, { headers: auth })).json()) as { Values: unknown[] }[];
      expect(metrics.length).toBeGreaterThan(1);
      expect(metrics.every((m) => m.Values.length > 0)).toBe(true);
      const me = (await (await fetch(`${base}/me`, { headers: auth })).json()) as { ID: string };
      const archives = (await (await fetch(`${base}/individuals/${me.ID}/archives`, { headers: auth })).json()) as {
        Name: string;
        ItemID: string;
        Snapshot: string;
      }[];
      // FY 2025 is closed: one archive per metric of theirs, and their dashboard of that year.
      expect(archives).toHaveLength(metrics.length + 1);
      const dashboard = JSON.parse(archives.find((a) => a.ItemID === me.ID)!.Snapshot) as Record<string, unknown>;
      // The CEO has no one-on-ones of her own (no one she reports to): the organization's dialogs show at their level.
      expect(dashboard).toMatchObject({ RowType: 39, FromDate: '2025-01-01T00:00:00.000+00:00', OrgDialogsExpected: expect.any(Number) });
      expect(dashboard.OrgDialogsExpected).toBeGreaterThan(0);
      // The current year's dashboards show the seeded records.
      const current = (await (await fetch(`${base}/individuals/${me.ID}/dashboards`, { headers: auth })).json()) as Record<string, unknown>;
      expect(current.OrganizationCommitmentsTotal).toBe(3);
      // Her own scores may all be empty (her rates count her own dialogs only); her reports' and units' are not.
      const list = (await (await fetch(`${base}/dashboards`, { headers: auth })).json()) as Record<string, unknown>[];
      expect(list.filter((x) => typeof x.IndividualPerformancePercent === 'number').length).toBeGreaterThan(1);
      // The records of a period: basic roles, dialogs held and pending, follow-ups and assessments.
      const get = async (path: string) => (await (await fetch(`${base}${path}`, { headers: auth })).json()) as Record<string, unknown>[];
      expect((await get('/me/basicroles')).map((r) => r.Name)).toContain('People leader');
      const dialogs = await get('/dialogs?limit=5000');
      expect(dialogs.some((d) => d.OccurredDate !== null)).toBe(true);
      expect(dialogs.some((d) => d.OccurredDate === null)).toBe(true);
      const held = dialogs.find((d) => d.Kind === 'individual' && d.OccurredDate !== null)!;
      expect((await get(`/dialogs/${held.ID}/basicroledialogs`)).length).toBeGreaterThan(0);
      const tasks = await get('/tasks?limit=5000');
      expect(tasks.some((x) => x.Completed === true) && tasks.some((x) => x.Completed === false)).toBe(true);
      const assessments = await get('/assessments?limit=5000');
      expect(new Set(assessments.map((a) => a.Kind))).toEqual(new Set(['self', 'leader', 'team']));
      const counts = await get(`/sites/${corp.SiteID}/individuals/basicroles`);
      expect(counts.every((c) => (c.BasicRolesCount as number) >= 1)).toBe(true);
      // The seeded comments carry their authors' names, as the API's own do.
      const commented = (await get('/individuals?limit=50')).filter((i) => i.LastComment !== null);
      expect(commented.length).toBeGreaterThan(0);
      expect(commented.every((i) => typeof i.LastCommentBy === 'string' && (i.LastCommentBy as string).length > 0)).toBe(true);
    } finally {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  }, 60_000);
});
