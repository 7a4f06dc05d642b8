import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { listen, read, UPSTREAM_HEADER } from './prism-pool.mjs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Stoplight Prism's validating proxy in front of a test app (docs/openapi.md, "Prism"): with
 * `PRISM=1` (npm run test:prism) the harness sends every request of a test app through a relay
 * of its own to `prism proxy --errors`, which forwards it to the app and checks the request and the
 * answer against the app's own OpenAPI document. The Prisms are the run's, one per distinct document
 * (test/e2e/prism-pool.mjs), so an app does not wait for a Prism to start. The relay records what
 * Prism says about its app's requests:
 * - a response violation (Prism's VIOLATIONS answer in place of the service's): the service answered
 *   what the document does not declare — a finding, which fails the file when it closes its app;
 * - a request violation (Prism refuses the request, without forwarding it): the relay sends it to
 *   the app directly so the test goes on, and it is a finding only when the app takes it (2xx/3xx):
 *   the document is then stricter than the service. Refused by both: a case meant to be invalid.
 */
export const PRISM = process.env.PRISM === '1';

/** The problem types of Prism's own answers (https://docs.stoplight.io/docs/prism/…/errors). */
const PRISM_ERROR = /^https:\/\/stoplight\.io\/prism\/errors#([A-Z_]+)$/;
/** The paths of the API the document describes; anything else (the documentation, `/`) goes to the app directly. */
const API_PATH = /^\/(v4|scim|health)(\/|\?|$)/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const utf8 = (body: Buffer) => {
  try {
    UTF8.decode(body);
    return true;
  } catch {
    return false;
  }
};
/** Whether Prism forwards the body byte for byte: UTF-8 text declared as such, and JSON that parses where the type says JSON. */
function faithful(headers: IncomingHttpHeaders, body: Buffer): boolean {
  if (body.length === 0) return true;
  const charset = /charset=([^;\s]+)/i.exec(String(headers['content-type'] ?? ''))?.[1];
  if (!utf8(body) || (charset && !/^utf-?8$/i.test(charset))) return false;
  if (!/json/i.test(String(headers['content-type'] ?? ''))) return true;
  try {
    JSON.parse(body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/** Prism's answer to a response that breaks the document; every other of its errors is about the request. */
const RESPONSE_VIOLATION = 'VIOLATIONS';

export interface PrismProxy {
  /** Where the test sends its requests (the relay). */
  url: string;
  /** What Prism found that the service does not agree with (empty when the document and the service agree). */
  findings: string[];
  /** Requests Prism refused that the service refused too (the cases meant to be invalid). */
  refusedByBoth: number;
  /** Requests that went through Prism and were validated both ways. */
  validated: number;
  /** Requests sent to the app directly: XML, and the documentation routes. */
  passed: number;
  /** The process id of the Prism this relay sends to (one per distinct document in a run). */
  prismPid: number;
  close(): Promise<void>;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function send(base: string, method: string, path: string, headers: IncomingHttpHeaders, body: Buffer): Promise<Answer> {
  return new Promise((ok, fail) => {
    // The path as the test wrote it (`//v4//departments` too), not resolved against the base.
    const { hostname, port, host } = new URL(base);
    // No keep-alive (agent: false): no socket outlives the file's app.
    const req = httpRequest({ hostname, port, path, method, headers: { ...headers, host }, agent: false }, (res) => {
      read(res).then((b) => ok({ status: res.statusCode ?? 0, headers: res.headers, body: b }), fail);
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** Writes an answer to the test; hop-by-hop headers are the relay's own. */
function reply(res: ServerResponse, answer: Answer): void {
  const out = { ...answer.headers };
  delete out['transfer-encoding'];
  delete out.connection;
  delete out['keep-alive'];
  out['content-length'] = String(answer.body.length);
  res.writeHead(answer.status, out);
  res.end(answer.body);
}

/**
 * Sends to Prism; a connection Prism refused or dropped before answering (it is a busy process of
 * its own on a loaded machine) is tried again, at most twice: no request reached the app then,
 * except on a reset, which is retried only for reads.
 */
async function sendToPrism(base: string, method: string, path: string, headers: IncomingHttpHeaders, body: Buffer): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send(base, method, path, headers, body);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const retry =
        code === 'ECONNREFUSED' || ((code === 'ECONNRESET' || /socket hang up/.test((e as Error).message)) && (method === 'GET' || method === 'HEAD'));
      if (!retry || attempt >= 2) throw e;
      await sleep(100);
    }
  }
}

/** Prism's own problem type of an answer (`VIOLATIONS`, `UNPROCESSABLE_ENTITY`…), or null for the service's answer. */
function prismError(a: Answer): { kind: string; detail: string } | null {
  if (!String(a.headers['content-type'] ?? '').includes('json')) return null;
  try {
    const problem = JSON.parse(a.body.toString('utf8')) as { type?: string; detail?: string; validation?: { location?: string[]; message?: string }[] };
    const m = PRISM_ERROR.exec(problem.type ?? '');
    if (!m) return null;
    const validation = (problem.validation ?? []).map((v) => `${(v.location ?? []).join('.')}: ${v.message ?? ''}`).join('; ');
    return { kind: m[1], detail: validation || problem.detail || '' };
  } catch {
    return null;
  }
}

/**
 * The Prism of the run for `document` (test/e2e/prism-pool.mjs: one per distinct document, shared by
 * every app of the run), asked of the pool at PRISM_POOL for the app at `appUrl`.
 */
async function prismFor(appUrl: string, document: string): Promise<{ url: string; pid: number }> {
  const pool = process.env.PRISM_POOL;
  if (!pool) throw new Error('PRISM=1 needs the Prism pool of the prism Jest projects (npm run test:prism): PRISM_POOL is not set');
  const answer = await send(pool, 'POST', `/prism?upstream=${encodeURIComponent(appUrl)}`, { 'content-type': 'application/json' }, Buffer.from(document));
  if (answer.status !== 200) throw new Error(`the Prism pool answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 2000)}`);
  return JSON.parse(answer.body.toString('utf8')) as { url: string; pid: number };
}

/** Whether the process `pid` is still running. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Prism's validating proxy on `document` in front of `appUrl`, and this app's relay in front of it. */
export async function startPrism(appUrl: string, document: string): Promise<PrismProxy> {
  const { url: prismUrl, pid } = await prismFor(appUrl, document);

  const proxy: PrismProxy = { url: '', findings: [], refusedByBoth: 0, validated: 0, passed: 0, prismPid: pid, close: async () => undefined };
  const relay = createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const headers = { ...req.headers };
      // XML goes to the app directly (Prism validates JSON; XML answers are held to the XSD by xmllint),
      // and so does text/json (Prism does not read it as JSON), a body Prism would not forward as it
      // is (not UTF-8, or JSON that does not parse: Prism answers those itself), and what is outside
      // the API: the document itself, the XSD, Swagger UI.
      if (
        /xml|text\/json/i.test(`${String(headers['content-type'] ?? '')} ${String(headers.accept ?? '')}`) ||
        !API_PATH.test(path) ||
        !faithful(headers, body)
      ) {
        proxy.passed++;
        return reply(res, await send(appUrl, method, path, headers, body));
      }
      let answer = await sendToPrism(prismUrl, method, path, { ...headers, [UPSTREAM_HEADER]: appUrl }, body);
      const error = prismError(answer);
      const line = `${method} ${path.split('?')[0]}`;
      if (error?.kind === RESPONSE_VIOLATION) {
        proxy.findings.push(`${line}: Prism found the answer breaks the document: ${error.detail}`);
      } else if (error) {
        // Refused by the document: what does the service say?
        answer = await send(appUrl, method, path, headers, body);
        const sent = body.length ? ` (${String(headers['content-type'] ?? 'no Content-Type')}: ${body.toString('utf8').slice(0, 80)})` : ' (no body)';
        if (answer.status < 400)
          proxy.findings.push(`${line}${sent}: Prism refused the request (${error.kind}: ${error.detail}) but the service answered ${answer.status}`);
        else proxy.refusedByBoth++;
      } else {
        proxy.validated++;
      }
      reply(res, answer);
    })().catch((e: Error) => {
      proxy.findings.push(`relay: ${req.method} ${req.url}: ${e.message}${alive(pid) ? '' : ' (the Prism of this document exited)'}`);
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`relay: ${e.message}`);
    });
  });
  proxy.url = await listen(relay);
  proxy.close = async () => {
    relay.closeAllConnections();
    await new Promise((ok) => relay.close(ok));
  };
  return proxy;
}

/**
 * The app's own server, served at a URL for Prism to forward to: each request handed to the app's
 * request listeners (the contract recorder's among them), as supertest does, without `app.listen`,
 * which tests call themselves.
 */
export async function serveAt(appServer: Server): Promise<{ url: string; close: () => Promise<void> }> {
  const bridge = createServer((req, res) => appServer.emit('request', req, res));
  const url = await listen(bridge);
  return {
    url,
    close: () => {
      bridge.closeAllConnections();
      return new Promise<void>((ok) => bridge.close(() => ok()));
    },
  };
}
