import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startedClient, stoppedClient } from './running-clients.js';

/** One request the load generator made, as the client saw it. */
export interface Outcome {
  /** `keyed`: a create sent with an Idempotency-Key and no ID (see Load.keyedWrite). */
  kind: 'write' | 'read' | 'keyed';
  start: number;
  end: number;
  /** HTTP status, or 0 when no answer came (network error or the client's hang guard). */
  status: number;
  error?: string;
  retryAfter?: string | null;
  /** The ID a write asked for (client-chosen, so an acknowledged write can be looked up). */
  id?: string;
  /** A keyed write's Idempotency-Key and body, so it can be retried exactly. */
  key?: string;
  body?: string;
  /** A keyed write's answer (its body), or the start of a failure's; and whether a keyed write's carried `Idempotency-Replayed: true`. */
  answer?: string;
  replayed?: boolean;
}

export interface LoadOptions {
  base: string;
  token: string;
  writers: number;
  readers: number;
  /** A request with no answer after this long counts as a hang (status 0). */
  hangMs: number;
  /** Writers that create projects with an Idempotency-Key instead of an ID (owned by ownerId). */
  keyedWriters?: number;
  ownerId?: string;
}

/** The project name a keyed write asks for: unique per key, so its records can be counted. */
export const keyedName = (key: string) => `keyed ${key}`;

/**
 * Concurrent writers (POST /v4/sites with their own ID), keyed writers (POST /v4/projects with an
 * Idempotency-Key and no ID) and readers (GET /v4/sites, GET /v4/individuals) in closed loops
 * until stop(); every request's outcome is kept.
 */
export class Load {
  readonly outcomes: Outcome[] = [];
  private running = true;
  private readonly workers: Promise<void>[] = [];

  constructor(private readonly o: LoadOptions) {
    for (let i = 0; i < o.writers; i++) this.workers.push(this.loop('write', i));
    for (let i = 0; i < (o.keyedWriters ?? 0); i++) this.workers.push(this.loop('keyed', i));
    for (let i = 0; i < o.readers; i++) this.workers.push(this.loop('read', i));
    startedClient(this);
  }

  private async loop(kind: Outcome['kind'], worker: number): Promise<void> {
    let n = 0;
    while (this.running) {
      const outcome = kind === 'write' ? await this.write(worker, n++) : kind === 'keyed' ? await this.keyedWrite() : await this.read(n++);
      this.outcomes.push(outcome);
      // Do not spin while every answer is a fast 503.
      if (outcome.status !== 200) await sleep(50);
    }
  }

  write(worker: number, n: number): Promise<Outcome> {
    const id = randomUUID();
    return request(this.o, 'write', 'POST', '/v4/sites', JSON.stringify({ ID: id, Name: `load w${worker} #${n}` }), id);
  }

  /** A new key per write; a failed one is left for the test to retry once the database is back. */
  keyedWrite(): Promise<Outcome> {
    const key = randomUUID();
    return keyedRequest(this.o, key, JSON.stringify({ Name: keyedName(key), OwnerID: this.o.ownerId }));
  }

  read(n: number): Promise<Outcome> {
    return request(this.o, 'read', 'GET', n % 2 ? '/v4/sites?limit=20' : '/v4/individuals?limit=20');
  }

  async stop(): Promise<void> {
    this.running = false;
    stoppedClient(this);
    await Promise.all(this.workers);
  }
}

export async function request(
  o: Pick<LoadOptions, 'base' | 'token' | 'hangMs'>,
  kind: Outcome['kind'],
  method: string,
  path: string,
  body?: string,
  id?: string,
  key?: string,
): Promise<Outcome> {
  const start = Date.now();
  const keyed = key ? { key, body } : {};
  try {
    const res = await fetch(`${o.base}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${o.token}`,
        ...(body ? { 'Content-Type': 'application/json' } : {}),
        ...(key ? { 'Idempotency-Key': key } : {}),
      },
      body,
      signal: AbortSignal.timeout(o.hangMs),
    });
    const text = await res.text();
    // A keyed write keeps its whole answer (to compare a replay); a failure keeps the start of its
    // problem answer, so a test can say what failed and where.
    const answer = key
      ? { answer: text, replayed: res.headers.get('idempotency-replayed') === 'true' }
      : res.status >= 300
        ? { answer: text.slice(0, 300) }
        : {};
    return { kind, start, end: Date.now(), status: res.status, retryAfter: res.headers.get('retry-after'), id, ...keyed, ...answer };
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    return { kind, start, end: Date.now(), status: 0, error: err.cause?.code ?? err.name, id, ...keyed };
  }
}

/** A create of a project with an Idempotency-Key and no ID: the first attempt or a retry (same key, same body). */
export function keyedRequest(o: Pick<LoadOptions, 'base' | 'token' | 'hangMs'>, key: string, body: string): Promise<Outcome> {
  return request(o, 'keyed', 'POST', '/v4/projects', body, undefined, key);
}

/** Figures of a set of outcomes, for the printed report and the assertions. */
export function summarize(outcomes: Outcome[]) {
  const latencies = outcomes.map((o) => o.end - o.start).sort((a, b) => a - b);
  const count = (f: (o: Outcome) => boolean) => outcomes.filter(f).length;
  return {
    requests: outcomes.length,
    ok: count((o) => o.status >= 200 && o.status < 300),
    unavailable: count((o) => o.status === 503),
    unavailableWithoutRetryAfter: count((o) => o.status === 503 && !o.retryAfter),
    serverErrors: count((o) => o.status >= 500 && o.status !== 503),
    otherStatus: count((o) => o.status !== 0 && (o.status < 200 || o.status >= 300) && o.status < 500),
    noAnswer: count((o) => o.status === 0),
    p50: latencies[Math.floor(latencies.length * 0.5)] ?? 0,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
    max: latencies[latencies.length - 1] ?? 0,
  };
}

/**
 * How long after `since` (the database's return) until reads and writes both succeed again: the
 * later of the first 2xx write and the first 2xx read among requests started after `since`.
 */
export function recoveryMs(outcomes: Outcome[], since: number): number {
  const firstOk = (kind: Outcome['kind']) =>
    Math.min(...outcomes.filter((o) => o.kind === kind && o.start >= since && o.status >= 200 && o.status < 300).map((o) => o.end));
  return Math.max(firstOk('write'), firstOk('read')) - since;
}
