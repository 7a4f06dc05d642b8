// The global setup of the `prism` Jest projects (npm run test:prism, test:prism:all; docs/openapi.md,
// "Prism"): Stoplight Prism's validating proxies, shared by every worker and test file of the run.
//
// Starting `prism proxy` costs a few seconds of CPU (it loads and compiles the whole document); one
// per test app made the Prism step of CI mostly Prism's start. So the run keeps one Prism per
// distinct OpenAPI document (apps with the same settings answer the same document), started when an
// app first asks for it, and all of them forward to one switch here, which hands each request to the
// app its relay named (header `X-Pms-Upstream`; Prism forwards every request header but Host).
// What Prism finds is still told to the relay of the app whose request it was (test/e2e/prism.ts).
//
// The workers ask for a Prism at `PRISM_POOL` (set here, inherited by the workers Jest starts after
// the global setup): POST /prism?upstream=<app URL> with the document as the body answers
// `{ "url": <Prism's URL> }`. The global teardown (this module's `teardown`) stops every Prism.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { setTimeout } from 'node:timers';
import { URL } from 'node:url';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const PRISM_CLI = join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js');
/** The header a relay names its app in (test/e2e/prism.ts); the switch sends the request there. */
export const UPSTREAM_HEADER = 'x-pms-upstream';
/** What an app's URL is here: a test app listens on the loopback. */
const LOCAL_APP = /^http:\/\/127\.0\.0\.1:\d+$/;
const POOL = Symbol.for('pms.prismPool');

/** Listens on a free loopback port; resolves with the server's URL. */
export const listen = (server) => new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(`http://127.0.0.1:${server.address().port}`)));

/** The whole body of a request or an answer. */
export function read(stream) {
  return new Promise((ok, fail) => {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => ok(Buffer.concat(chunks)));
    stream.on('error', fail);
  });
}

/** One request to `base` (no keep-alive); resolves with the status, or 0 when nothing answered. */
function probe(base, path, headers) {
  return new Promise((ok) => {
    const { hostname, port } = new URL(base);
    const req = httpRequest({ hostname, port, path, method: 'GET', headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => ok(res.statusCode ?? 0));
    });
    req.on('error', () => ok(0));
    req.end();
  });
}

/** Forwards a request Prism passed on to the app its relay named, and the app's answer back to Prism. */
function forward(req, res) {
  const upstream = req.headers[UPSTREAM_HEADER];
  if (typeof upstream !== 'string' || !LOCAL_APP.test(upstream)) {
    res.writeHead(502, { 'content-type': 'text/plain' }).end(`the Prism pool's switch: no ${UPSTREAM_HEADER} header naming a local app`);
    return;
  }
  const { hostname, port, host } = new URL(upstream);
  const headers = { ...req.headers, host };
  delete headers[UPSTREAM_HEADER];
  const out = httpRequest({ hostname, port, path: req.url, method: req.method, headers, agent: false }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  out.on('error', (e) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`the Prism pool's switch: ${e.message}`);
  });
  req.pipe(out);
}

export default async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'pms-prism-pool-'));
  /** document hash → the Prism serving it (a promise while it starts). */
  const prisms = new Map();
  const children = [];
  const sw = createServer(forward);
  const switchUrl = await listen(sw);

  async function start(hash, document, appUrl) {
    const file = join(dir, `${hash}.json`);
    writeFileSync(file, document);
    // A free port for Prism: taken from the system, released, then given to Prism.
    const free = createServer();
    const url = await listen(free);
    await new Promise((ok) => free.close(ok));
    const port = new URL(url).port;
    const child = spawn(process.execPath, [PRISM_CLI, 'proxy', file, switchUrl, '--errors', '--port', port, '--host', '127.0.0.1', '-v', 'error'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout.on('data', (c) => (output = (output + c.toString()).slice(-20_000)));
    child.stderr.on('data', (c) => (output = (output + c.toString()).slice(-20_000)));
    // Ready when it answers a request (`GET /health/live`, sent on to the asking app): whatever the
    // status, since a document under test may refuse it.
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`prism exited (${child.exitCode}): ${output}`);
      const status = await probe(url, '/health/live', { accept: 'application/json', [UPSTREAM_HEADER]: appUrl });
      if (status !== 0) break;
      if (Date.now() > deadline) throw new Error(`prism did not start within 60 s (last status ${status}): ${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    return { url, child, output: () => output };
  }

  const broker = createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      const upstream = new URL(req.url ?? '/', 'http://pool').searchParams.get('upstream') ?? '';
      if (req.method !== 'POST' || !LOCAL_APP.test(upstream) || body.length === 0) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('POST /prism?upstream=<app URL> with the OpenAPI document as the body');
        return;
      }
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
      let prism = prisms.get(hash);
      if (!prism) {
        prism = start(hash, body, upstream);
        prisms.set(hash, prism);
        // A Prism that failed to start is not kept: the next app asks again.
        prism.catch(() => prisms.delete(hash));
      }
      const { url, child, output } = await prism;
      if (child.exitCode !== null || child.signalCode !== null) {
        prisms.delete(hash);
        throw new Error(`the Prism of this document exited (${child.exitCode ?? child.signalCode}): ${output().slice(-2000)}`);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url, pid: child.pid }));
    })().catch((e) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(e?.message ?? e));
    });
  });
  process.env.PRISM_POOL = await listen(broker);
  globalThis[POOL] = { dir, children, servers: [sw, broker] };
}

export async function teardown() {
  const pool = globalThis[POOL];
  if (!pool) return;
  delete globalThis[POOL];
  await Promise.all(
    pool.children.map((child) =>
      child.exitCode !== null || child.signalCode !== null
        ? undefined
        : new Promise((ok) => {
            child.once('exit', ok);
            child.kill();
          }),
    ),
  );
  for (const server of pool.servers) {
    server.closeAllConnections();
    server.close();
  }
  rmSync(pool.dir, { recursive: true, force: true });
}
