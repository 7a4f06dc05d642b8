import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { adminToken, AppProcess, startAppProcess } from './support/app-process.js';
import { PrivateMariaDb } from './support/mariadb.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A process killed between commit and delivery still delivers every event (docs/events.md,
 * "Delivery"). The service runs as its own process on a MariaDB of the test's own; a local
 * receiver acknowledges the first events, then holds every request it gets without answering, so
 * the service has events committed, some sent and unanswered, and more queued behind them when it
 * is killed with SIGKILL. A second process on the same database must then deliver every event:
 * each webhook-id acknowledged, none missing, none that was not committed. Delivery is at least
 * once: an event may arrive twice only if the killed process had sent it (its wave never
 * settled), and then with the same webhook-id and body, so a receiver deduplicating by id sees
 * each event exactly once.
 */
const WRITES = 30;
/** Requests acknowledged before the receiver starts holding. */
const ACKNOWLEDGED_FIRST = 5;

interface Arrival {
  id: string;
  body: string;
  at: number;
}

class HoldingReceiver {
  readonly arrivals: Arrival[] = [];
  /** Acknowledgements (200 written) per webhook-id. */
  readonly acked = new Map<string, number>();
  holding = false;
  private readonly held: ServerResponse[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const id = String(req.headers['webhook-id']);
        this.arrivals.push({ id, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        if (this.holding) {
          this.held.push(res);
          return;
        }
        res.on('finish', () => this.acked.set(id, (this.acked.get(id) ?? 0) + 1));
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  get heldCount(): number {
    return this.held.length;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function call(base: string, token: string, method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

describe('webhooks: a process killed between commit and delivery (own MariaDB, service as a process)', () => {
  const db = new PrivateMariaDb();
  const receiver = new HoldingReceiver();
  let first: AppProcess | null = null;
  let second: AppProcess | null = null;
  const env = (): Record<string, string> => ({
    DATABASE_URL: `${db.url}/pms_webhook_kill`,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // A claim of a killed process runs out after 2 × timeout + 5 s (webhook-dispatcher.ts).
    WEBHOOK_TIMEOUT_MS: '3000',
    WEBHOOK_RETRY_BASE_MS: '200',
    WEBHOOK_RETRY_MAX_MS: '1000',
    WEBHOOK_POLL_MS: '200',
  });

  beforeAll(async () => {
    await db.start();
    await db.createDatabase('pms_webhook_kill');
    await receiver.start();
  }, 120_000);

  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await receiver.stop();
    await db.destroy();
  }, 30_000);

  it(`delivers all ${WRITES} committed events after a SIGKILL and a restart: every webhook-id acknowledged, none missing`, async () => {
    first = await startAppProcess(env());
    const token = await adminToken(first.base);
    await call(first.base, token, 'POST', '/v4/webhooks', { URL: receiver.url, EventTypes: 'color.created' });
    const names = new Set<string>();
    let acknowledged = 0;
    for (let i = 0; i < WRITES; i++) {
      // After the first few acknowledgements the receiver holds everything: the service has sent
      // events it gets no answer for, and the later ones wait behind them.
      if (!receiver.holding && receiver.acked.size >= ACKNOWLEDGED_FIRST) {
        receiver.holding = true;
        acknowledged = receiver.acked.size;
      }
      const name = `K${i}`;
      await call(first.base, token, 'POST', '/v4/colors', { Name: name, ColorValue: i, MinPercent: 0, MaxPercent: 10 });
      names.add(name);
    }
    receiver.holding = true;
    await until('a request held by the receiver', () => receiver.heldCount >= 1, 30_000);
    expect(acknowledged).toBeLessThan(WRITES);

    // Every write has committed; some events are in flight, the rest queued. Kill.
    const killedAt = Date.now();
    expect(receiver.acked.size).toBeLessThan(WRITES);
    first.child.kill('SIGKILL');
    await first.exited;
    receiver.holding = false;

    second = await startAppProcess(env());
    // The killed process's claim runs out first (9 s here), then the queue is delivered.
    await until(`${WRITES} acknowledged events`, () => receiver.acked.size >= WRITES, 60_000);
    await sleep(1000);

    // None missing, none extra: exactly the committed events, by name and by webhook-id.
    const acked = [...receiver.acked.keys()];
    expect(acked).toHaveLength(WRITES);
    const byId = new Map<string, string>();
    for (const a of receiver.arrivals) {
      const name = (JSON.parse(a.body) as { data: { Record: { Name: string } } }).data.Record.Name;
      const before = byId.get(a.id);
      // A message sent again is the same message: same id, same event.
      if (before !== undefined) expect(name).toBe(before);
      byId.set(a.id, name);
    }
    expect([...new Set(acked.map((id) => byId.get(id)!))].sort()).toEqual([...names].sort());
    // At least once: an id arrives more than once only when the killed process had sent it.
    const arrivedBeforeKill = new Set(receiver.arrivals.filter((a) => a.at < killedAt).map((a) => a.id));
    for (const [id, n] of receiver.acked) if (n > 1) expect(arrivedBeforeKill.has(id)).toBe(true);
    const afterKill = receiver.arrivals.filter((a) => a.at >= killedAt).map((a) => a.id);
    expect(new Set(afterKill).size).toBe(afterKill.length);
  }, 180_000);
});
