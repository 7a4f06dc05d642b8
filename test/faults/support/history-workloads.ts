import { randomUUID } from 'node:crypto';
import { checkHistory, COMMENT_KIND, outcomeOf, REGISTER_FIELD, type FinalState, type Op, type Verdict } from './history.js';
import { decodeChanges } from '../../../src/database/journal.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { startedClient, stoppedClient } from './running-clients.js';

/**
 * The workloads whose histories test/faults/support/history.ts checks (docs/scaling.md,
 * "Histories under faults"). Closed-loop clients, each request recorded as an Op:
 *
 * - appenders create comments on one project, each with a unique body and an Idempotency-Key; a
 *   comment whose answer is unknown (503, no answer) is sent again with the same key, through the
 *   next instance, until it is answered — as docs/idempotency.md tells clients to;
 * - writers each own a project and set its Description to value after value (PUT), and read it back
 *   at once through the next instance (another database node): read-your-writes across nodes
 *   (reads may go through instances of their own, `readVia`);
 * - racers read one shared project and write its Description with `If-Match`, all at once;
 * - readers read the writers' projects through any instance.
 *
 * Instances are asked for at every request (`instances()`), so a test can restart one on another
 * port. `settle()` is the clients' last word: every comment still unanswered is retried with its key
 * until answered. `finalState()` reads what the checker compares, with the caller's SQL connection;
 * `finish()` does all three and checks the history.
 */
export interface Instance {
  name: string;
  base: string;
}

export interface WorkloadOptions {
  instances: () => Instance[];
  /** The instances reads go through, when not the writes' (`instances`). */
  readVia?: () => Instance[];
  token: string;
  /** The individual that owns the workload's projects (the caller's own). */
  ownerId: string;
  appenders?: number;
  writers?: number;
  racers?: number;
  readers?: number;
  /** A request with no answer after this long is given up (status 0, outcome unknown). */
  hangMs?: number;
}

/** A query on the database the service uses (a mysql2 connection's `query`, rows first). */
export type SqlQuery = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/** A mysql2 promise connection, as far as the checks use one. */
interface SqlConnection {
  query(sql: string, params?: unknown[]): Promise<[unknown, unknown]>;
  end(): Promise<void>;
}

/** Runs `fn` with queries on a connection of the test's own that `open` makes, and closes it after. */
export async function withQueries<R>(open: () => Promise<SqlConnection>, fn: (query: SqlQuery) => Promise<R>): Promise<R> {
  const conn = await open();
  try {
    return await fn(async (sql, params) => (await conn.query(sql, params))[0] as Record<string, unknown>[]);
  } finally {
    await conn.end();
  }
}

interface Answer {
  status: number;
  body: Record<string, unknown> | null;
  etag: string | null;
  retryAfter: boolean;
  error?: string;
  invokedAt: number;
  completedAt: number;
}

export class HistoryWorkload {
  readonly history: Op[] = [];
  /** The run's mark in every value it writes, so its rows are told from any other's. */
  readonly run = randomUUID().slice(0, 8);
  private running = false;
  private clients: Promise<void>[] = [];
  private ancestor = '';
  private registers: string[] = [];
  private shared = '';
  private readonly missingBefore = new Map<string, number>();
  private unansweredBefore = 0;
  /** The Idempotency-Key and body of each comment whose answer is not known yet. */
  private readonly pending = new Map<string, { key: string; body: string }>();

  constructor(private readonly o: WorkloadOptions) {}

  /**
   * Creates the workload's projects (through the first instance) and starts every client. With
   * `query`, first notes the change-sequence numbers already missing, so that the check counts only
   * the gaps of this run.
   */
  async start(query?: SqlQuery): Promise<void> {
    if (query) {
      for (const s of await sequencesOf(query)) this.missingBefore.set(s.siteId, s.max - s.min + 1 - s.rows + (s.counter - s.max));
      this.unansweredBefore = await unansweredKeys(query);
    }
    const make = async (name: string) => {
      const at = this.o.instances()[0];
      for (let attempt = 1; ; attempt++) {
        const res = await this.call(
          at,
          'POST',
          '/v4/projects',
          { Name: name, OwnerID: this.o.ownerId, Description: 'initial' },
          { 'Idempotency-Key': `${this.run}-${name.replace(/\s+/g, '-')}` },
        );
        if (res.status === 200) return String(res.body!.ID);
        if (attempt >= 20) throw new Error(`creating project ${name} failed: ${res.status} ${JSON.stringify(res.body) ?? res.error}`);
        await sleep(250);
      }
    };
    this.ancestor = await make(`history ${this.run} comments`);
    this.registers = await Promise.all(Array.from({ length: this.o.writers ?? 3 }, (_, w) => make(`history ${this.run} register ${w}`)));
    this.shared = await make(`history ${this.run} races`);
    this.running = true;
    startedClient(this);
    const spawn = (n: number | undefined, fallback: number, client: (p: number) => Promise<void>) => {
      for (let p = 0; p < (n ?? fallback); p++) this.clients.push(client(p));
    };
    spawn(this.o.appenders, 4, (p) => this.appender(p));
    this.registers.forEach((_, w) => this.clients.push(this.writer(w)));
    spawn(this.o.racers, 3, (p) => this.racer(p));
    spawn(this.o.readers, 2, (p) => this.reader(p));
  }

  async stop(): Promise<void> {
    this.running = false;
    stoppedClient(this);
    await Promise.all(this.clients);
    this.clients = [];
  }

  /**
   * Sends every comment whose answer is still unknown again, with its key, until it is answered
   * (`attempts` each at most, `pauseMs` apart). Answers how many stayed unknown.
   */
  async settle(attempts = 40, pauseMs = 250): Promise<number> {
    await Promise.all(
      [...this.pending.entries()].map(async ([value, { key, body }], i) => {
        for (let n = 0; n < attempts && this.pending.has(value); n++) {
          await this.append(`settle${i}`, value, key, body, i + n);
          if (this.pending.has(value)) await sleep(pauseMs);
        }
      }),
    );
    return this.pending.size;
  }

  /**
   * Once the faults have healed: stops the clients, settles every comment still unanswered, reads
   * the final state with `query` and checks the history. `unsettled`: comments whose answer stayed
   * unknown.
   */
  async finish(query: SqlQuery): Promise<{ verdict: Verdict; unsettled: number }> {
    await this.stop();
    const unsettled = await this.settle();
    return { verdict: checkHistory(this.history, await this.finalState(query)), unsettled };
  }

  /** What the checker compares the history with, read with `query` (after the faults healed). */
  async finalState(query: SqlQuery): Promise<FinalState> {
    const readAt = Date.now();
    const comments = (await query('SELECT id, ancestor_id AS k, body FROM comments WHERE ancestor_id = ?', [this.ancestor])).map((r) => ({
      id: String(r.id),
      key: String(r.k),
      body: String(r.body),
    }));
    const records = [...this.registers, this.shared];
    const registers: Record<string, string | null> = {};
    const versions: Record<string, number> = {};
    for (const r of await query('SELECT id, description, version FROM projects WHERE id IN (?)', [[...records, this.ancestor]])) {
      versions[String(r.id)] = Number(r.version);
      if (String(r.id) !== this.ancestor) registers[String(r.id)] = r.description === null ? null : String(r.description);
    }
    const rowIds = [...records, this.ancestor, ...comments.map((c) => c.id)];
    const audit: FinalState['audit'] = (await query('SELECT kind, row_id, action, changes FROM audit_log WHERE row_id IN (?)', [rowIds])).map((r) => {
      const changes = decodeChanges(String(r.changes));
      const field = changes.find((c) => c.Field === REGISTER_FIELD);
      return {
        kind: String(r.kind),
        rowId: String(r.row_id),
        action: String(r.action),
        ...(field && String(r.kind) !== COMMENT_KIND ? { after: field.After === null || field.After === undefined ? null : String(field.After) } : {}),
      };
    });
    const sequences = (await sequencesOf(query)).map((s) => ({ ...s, missingBefore: this.missingBefore.get(s.siteId) ?? 0 }));
    return { comments, registers, versions, audit, sequences, unansweredKeys: await unansweredKeys(query), unansweredBefore: this.unansweredBefore, readAt };
  }

  private instance(i: number, via = this.o.instances): Instance {
    const all = via();
    return all[((i % all.length) + all.length) % all.length];
  }

  private async call(at: Instance, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const invokedAt = Date.now();
    try {
      const res = await fetch(`${at.base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${this.o.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.o.hangMs ?? 15_000),
      });
      const text = await res.text();
      let parsed: Record<string, unknown> | null = null;
      try {
        parsed = text ? (JSON.parse(text) as Record<string, unknown>) : null;
      } catch {
        parsed = { text: text.slice(0, 200) };
      }
      return {
        status: res.status,
        body: parsed,
        etag: res.headers.get('etag'),
        retryAfter: res.headers.get('retry-after') !== null,
        invokedAt,
        completedAt: Date.now(),
      };
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      return { status: 0, body: null, etag: null, retryAfter: false, error: err.cause?.code ?? err.name, invokedAt, completedAt: Date.now() };
    }
  }

  private record(process: string, f: Op['f'], key: string, at: Instance, res: Answer, more: Partial<Op> = {}): Op {
    const detail = res.status >= 300 ? (res.error ?? JSON.stringify(res.body)?.slice(0, 200)) : res.error;
    const op: Op = {
      process,
      f,
      key,
      invokedAt: res.invokedAt,
      completedAt: res.completedAt,
      outcome: outcomeOf(res.status, res.error),
      status: res.status,
      retryAfter: res.retryAfter,
      via: at.name,
      ...(detail ? { error: detail } : {}),
      ...more,
    };
    this.history.push(op);
    return op;
  }

  /** One attempt of a comment; it stays pending while its outcome is unknown. */
  private async append(process: string, value: string, key: string, body: string, attempt: number): Promise<Op> {
    const at = this.instance(attempt);
    const res = await this.call(at, 'POST', '/v4/comments', JSON.parse(body), { 'Idempotency-Key': key });
    const op = this.record(process, 'append', this.ancestor, at, res, { value, idemKey: key, ...(res.status === 200 ? { id: String(res.body!.ID) } : {}) });
    if (op.outcome === 'unknown') this.pending.set(value, { key, body });
    else this.pending.delete(value);
    return op;
  }

  private async appender(p: number): Promise<void> {
    for (let n = 0; this.running; n++) {
      const value = `${this.run}-a${p}-${n}`;
      const body = JSON.stringify({ AncestorID: this.ancestor, AncestorType: 'projects', Body: value });
      // A client retries a write whose answer it did not get, with the same key, through another instance.
      for (let attempt = 0; this.running; attempt++) {
        const op = await this.append(`a${p}`, value, value, body, p + n + attempt);
        if (op.outcome === 'ok') break;
        await sleep(op.outcome === 'fail' ? 50 : 100);
        if (op.outcome === 'fail') break;
      }
    }
  }

  private async writer(w: number): Promise<void> {
    const id = this.registers[w];
    for (let n = 0; this.running; n++) {
      const value = `${this.run}-w${w}-${n}`;
      const at = this.instance(w + n);
      const res = await this.call(at, 'PUT', `/v4/projects/${id}`, { ID: id, Name: `history ${this.run} register ${w}`, Description: value });
      const op = this.record(`w${w}`, 'write', id, at, res, { value });
      if (op.outcome === 'ok') await this.read(`w${w}`, id, w + n + 1);
      else await sleep(50);
    }
  }

  private async read(process: string, id: string, i: number): Promise<void> {
    const at = this.instance(i, this.o.readVia ?? this.o.instances);
    const res = await this.call(at, 'GET', `/v4/projects/${id}`);
    const seen = res.status === 200 ? (res.body![REGISTER_FIELD] as string | null) : undefined;
    this.record(process, 'read', id, at, res, seen === undefined ? {} : { read: seen });
    if (res.status !== 200) await sleep(50);
  }

  private async racer(p: number): Promise<void> {
    for (let n = 0; this.running; n++) {
      const at = this.instance(p + n);
      const got = await this.call(at, 'GET', `/v4/projects/${this.shared}`);
      if (got.status !== 200 || !got.etag) {
        await sleep(50);
        continue;
      }
      const value = `${this.run}-c${p}-${n}`;
      const res = await this.call(
        at,
        'PUT',
        `/v4/projects/${this.shared}`,
        { ID: this.shared, Name: `history ${this.run} races`, Description: value },
        { 'If-Match': got.etag },
      );
      const op = this.record(`c${p}`, 'cas', this.shared, at, res, { value, ifMatch: got.etag });
      if (op.outcome !== 'ok') await sleep(20);
    }
  }

  private async reader(p: number): Promise<void> {
    for (let n = 0; this.running; n++) await this.read(`r${p}`, this.registers[(p + n) % this.registers.length], p * 7 + n);
  }
}

/** Idempotency keys whose row holds no answer. */
async function unansweredKeys(query: SqlQuery): Promise<number> {
  return Number((await query('SELECT COUNT(*) AS n FROM idempotency_keys WHERE status = 0'))[0].n);
}

/** Every site's audit rows (count, lowest and highest sequence number) and change counter. */
async function sequencesOf(query: SqlQuery): Promise<FinalState['sequences']> {
  const rows = await query(
    'SELECT c.site_id, c.seq AS counter, COUNT(a.seq) AS n, MIN(a.seq) AS lo, MAX(a.seq) AS hi FROM change_seqs c LEFT JOIN audit_log a ON a.site_id = c.site_id GROUP BY c.site_id, c.seq',
  );
  return rows.map((r) => {
    const n = Number(r.n);
    // No rows: an empty range (1…0), which agrees with a counter at 0.
    return { siteId: String(r.site_id), rows: n, min: n ? Number(r.lo) : 1, max: n ? Number(r.hi) : 0, counter: Number(r.counter) };
  });
}
