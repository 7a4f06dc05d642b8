/**
 * One load run with autocannon, in a process of its own (pinned to another core than the server
 * by bench.ts), so the load generator never competes with the server inside one event loop.
 * Reads its job as JSON on stdin, prints the result as one JSON line.
 */
import autocannon from 'autocannon';

export interface LoadRequest {
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
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
}

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const job = JSON.parse(Buffer.concat(chunks).toString('utf8')) as LoadJob;
  let next = 0;
  const started = process.hrtime.bigint();
  const result = await autocannon({
    url: job.origin,
    connections: job.connections,
    duration: job.duration,
    amount: job.amount,
    timeout: 30,
    requests: [
      {
        setupRequest: (req) => {
          const r = job.requests[next++ % job.requests.length];
          return { ...req, method: r.method ?? 'GET', path: r.path, headers: r.headers ?? {}, body: r.body };
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
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`load: ${String(e)}\n`);
  process.exit(1);
});
