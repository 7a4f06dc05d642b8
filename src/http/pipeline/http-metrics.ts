import type { OnModuleDestroy } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { BULK_CHUNKS, type BulkChunkTiming } from '../../common/logging/bulk-chunks.js';
import { droppedLogLines, MAX_BUFFERED } from '../../common/logging/json-logger.js';

/**
 * Prometheus metrics of this process (served at /metrics): request count and duration by method,
 * route template and status, plus Node's process metrics. Routes are labelled by their template
 * (`/v4/individuals/:id`), never by the raw path, so ids cannot blow up the label space; requests
 * that match no route share the label `unmatched`. And the chunks of bulk writes and imports
 * (BULK_CHUNKS): their items and the seconds of each phase, by resource (docs/operations.md, "Metrics"); and the
 * log lines dropped for a stdout nobody read.
 */
export class HttpMetrics implements OnModuleDestroy {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to the end of the response, by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly bulkItems = new Counter({
    name: 'pms_bulk_items_total',
    help: 'Items of bulk writes and imports run (each chunk counts its items once, whatever their outcome), by resource',
    labelNames: ['resource'] as const,
    registers: [this.registry],
  });
  private readonly bulkChunks = new Histogram({
    name: 'pms_bulk_chunk_phase_seconds',
    help: "Seconds each chunk of a bulk write or an import spent in a phase: reads_ahead (its transaction's start, records locked and read), items (run one after another), commit (the writes held to its end and the commit), by resource",
    labelNames: ['resource', 'phase'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  /** Read at each scrape: while stdout is not read, this is the only sign of it (docs/operations.md, "The log's reader gone or stuck"). */
  private readonly logDropped = new Counter({
    name: 'pms_log_dropped_lines_total',
    help: `Log lines dropped because stdout was not read while ${MAX_BUFFERED / (1024 * 1024)} MiB of lines waited for it`,
    registers: [this.registry],
    collect() {
      this.reset();
      this.inc(droppedLogLines());
    },
  });
  /** Each resource's series, looked up once (as `series` below): bounded by the resources that write in bulk. */
  private readonly bulkSeries = new Map<string, { items: { inc(n: number): void }; phases: { observe(v: number): void }[] }>();
  private readonly onChunk = (message: unknown): void => {
    const c = message as BulkChunkTiming;
    let s = this.bulkSeries.get(c.resource);
    if (!s) {
      s = {
        items: this.bulkItems.labels({ resource: c.resource }),
        phases: (['reads_ahead', 'items', 'commit'] as const).map((phase) => this.bulkChunks.labels({ resource: c.resource, phase })),
      };
      this.bulkSeries.set(c.resource, s);
    }
    s.items.inc(c.items);
    s.phases[0].observe(c.readsAhead);
    s.phases[1].observe(c.run);
    s.phases[2].observe(c.commit);
  };

  /**
   * The series of each method, route and status, looked up once: prom-client validates and hashes
   * the labels on every call otherwise. Bounded by the routes, methods and statuses there are.
   */
  private readonly series = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    BULK_CHUNKS.subscribe(this.onChunk);
  }

  /** The app closes: its metrics stop listening (a process may run several apps, as the tests do). */
  onModuleDestroy(): void {
    BULK_CHUNKS.unsubscribe(this.onChunk);
  }

  observe(method: string, route: string | undefined, status: number, seconds: number): void {
    const r = route ?? 'unmatched';
    const key = `${method} ${status} ${r}`;
    let s = this.series.get(key);
    if (!s) {
      s = {
        count: this.requests.labels({ method, route: r, status: String(status) }),
        time: this.duration.labels({ method, route: r, status_class: `${Math.floor(status / 100)}xx` }),
      };
      this.series.set(key, s);
    }
    s.count.inc();
    s.time.observe(seconds);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** Where the guard leaves the matched route template on the request, for the access log and metrics. */
export const ROUTE_KEY = '__pmsRoute';
