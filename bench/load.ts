/**
 * One load run with autocannon, in a process of its own (pinned to another core than the server
 * by bench.ts), so the load generator never competes with the server inside one event loop.
 * Reads its job as JSON on stdin, prints the result as one JSON line.
 */
import autocannon from 'autocannon';

export interface LoadRequest {
  path: string;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  /** Every `[<n>]` in it is replaced by a value of the request's own (new records on every request). */
  body?: string;
}

export interface LoadJob {
  origin: string;
  /** Sent in turn (e.g. a different id on each request, or a mix of operations). */
  requests: LoadRequest[];
  connections: number;
  /** Seconds; ignored when `amount` is set. */
  duration: number;
  amount?: number;
  /**
   * `cycle` (default): the requests in turn, over and over. `once`: each request at most once,
   * from `offset` on (e.g. a DELETE of a different record each time); the result says how many
   * were used. `if-match`: a request is sent by one connection at a time, with the ETag its previous
   * answer carried as If-Match (at first the request's own), so concurrent conditional writes
   * never conflict with each other (give as many requests as connections).
   */
  mode?: 'cycle' | 'once' | 'if-match';
  offset?: number;
  /** Requests per second over all connections (autocannon's `overallRate`); unset: as fast as answered. */
  rate?: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  statuses: Record<string, number>;
  /** Requests taken from the list (mode `once`). */
  used: number;
}

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const job = JSON.parse(Buffer.concat(chunks).toString('utf8')) as LoadJob;
  const mode = job.mode ?? 'cycle';
  let next = mode === 'once' ? (job.offset ?? 0) : 0;
  // `if-match`: the requests not in flight, and the ETag each one's last answer carried. (autocannon
  // clears a connection's context each time it wraps around its list, so the state lives here;
  // a request's context lasts from its setupRequest to its onResponse.)
  const free = job.requests.map((_, i) => i).reverse();
  // `[<n>]` in a body: a value of this request's own (new records on every request).
  const run = `${process.pid.toString(36)}${Date.now().toString(36)}`;
  let made = 0;
  const etags = job.requests.map((r) => r.headers?.['If-Match']);
  const started = process.hrtime.bigint();
  const result = await autocannon({
    url: job.origin,
    connections: job.connections,
    duration: job.duration,
    amount: job.amount,
    ...(job.rate ? { overallRate: job.rate } : {}),
    timeout: 30,
    requests: [
      {
        setupRequest: (req, context: Record<string, unknown>) => {
          let r: LoadRequest;
          let headers: Record<string, string>;
          if (mode === 'if-match') {
            const i = free.pop() ?? 0;
            context.index = i;
            r = job.requests[i];
            headers = { ...r.headers, ...(etags[i] ? { 'If-Match': etags[i] } : {}) };
          } else {
            // Once-only requests that ran out repeat the last one, whose 404 fails the row.
            r = job.requests[mode === 'once' ? Math.min(next++, job.requests.length - 1) : next++ % job.requests.length];
            headers = r.headers ?? {};
          }
          const body = r.body?.includes('[<n>]') ? r.body.replaceAll('[<n>]', `${run}n${made++}`) : r.body;
          return { ...req, method: r.method ?? 'GET', path: r.path, headers, body };
        },
        onResponse: (_status: number, _body: string, context: Record<string, unknown>, headers?: Record<string, string>) => {
          if (mode !== 'if-match' || typeof context.index !== 'number') return;
          // Raw header names, as the server wrote them.
          const etag = headers ? Object.entries(headers).find(([k]) => k.toLowerCase() === 'etag')?.[1] : undefined;
          if (etag) etags[context.index] = etag;
          free.push(context.index);
        },
      },
    ],
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([k, v]) => [k, v.count]));
  const out: LoadResult = {
    requests: result.requests.total,
    seconds,
    rps: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses,
    used: mode === 'once' ? next - (job.offset ?? 0) : result.requests.total,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`load: ${String(e)}\n`);
  process.exit(1);
});
