import net from 'node:net';
import mysql from 'mysql2/promise';
import { adminToken, AppProcess, startAppProcess } from './support/app-process.js';
import { request, summarize } from './support/load.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A database proxy takes a node out of service and closes every session it carried (HAProxy's
 * `on-marked-down shutdown-sessions`; a Galera node whose health check failed under load), while
 * the database as a whole still answers: the service's pooled connections die under the
 * statements they were running (docs/operations.md, "A connection closed under a read"). What a
 * client must see: every read answered 200, as if nothing had happened; a write may be answered
 * 503 + Retry-After (its outcome on the dead connection is unknown), never a 500.
 *
 * The proxy here is a TCP relay in the test between the service and the shared MariaDB (nothing
 * is killed or stalled there); it closes every session at once, every 300 ms.
 */
const DATABASE = `pms_fault_drop_${process.pid}`;
const READERS = 8;
const DROPS = 20;
const DROP_EVERY_MS = 300;

class SessionDroppingProxy {
  private readonly server = net.createServer((client) => this.relay(client));
  private readonly sessions = new Set<{ client: net.Socket; server: net.Socket }>();
  /** Sessions closed by dropAll so far. */
  dropped = 0;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  listen(): Promise<void> {
    return new Promise((resolve) =>
      this.server.listen(0, '127.0.0.1', () => {
        this.port = (this.server.address() as net.AddressInfo).port;
        resolve();
      }),
    );
  }

  private relay(client: net.Socket): void {
    const server = net.connect(this.target.port, this.target.host);
    const session = { client, server };
    this.sessions.add(session);
    const end = () => {
      this.sessions.delete(session);
      client.destroy();
      server.destroy();
    };
    client.on('error', end).on('close', end);
    server.on('error', end).on('close', end);
    client.pipe(server);
    server.pipe(client);
  }

  /**
   * Closes every session at once, as HAProxy does: the service side sees the connection end under
   * its statement (PROTOCOL_CONNECTION_LOST). A reset (ECONNRESET) takes the same path in the
   * service (bounded-mysql.spec.ts, db-errors.spec.ts); `resetAndDestroy` on a relayed socket
   * leaves Node 20's event loop spinning, so the relay does not use it.
   */
  dropAll(): void {
    for (const { client, server } of [...this.sessions]) {
      client.destroy();
      server.destroy();
      this.dropped++;
    }
  }

  close(): Promise<void> {
    this.dropAll();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('database sessions closed under load by a proxy (service as a process)', () => {
  const proxy = new SessionDroppingProxy({ host: '127.0.0.1', port: 3306 });
  let app: AppProcess;
  let token: string;
  let siteId: string;

  beforeAll(async () => {
    const admin = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root' });
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
    await admin.query(`CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await admin.end();
    await proxy.listen();
    app = await startAppProcess({ DATABASE_URL: `mysql://root@127.0.0.1:${proxy.port}/${DATABASE}` });
    token = await adminToken(app.base);
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${app.base}/v4/sites`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ Name: `Drop site ${i}` }),
      });
      expect(res.status).toBe(200);
      siteId = ((await res.json()) as { ID: string }).ID;
    }
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    await proxy.close();
    const admin = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root' });
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
    await admin.end();
  }, 30_000);

  it(`answers every read while the proxy closes all sessions ${DROPS} times; writes are 2xx or 503 + Retry-After, never 500`, async () => {
    const o = { base: app.base, token, hangMs: 15_000 };
    // Reads through both paths: TypeORM's query runner (lists, /me) and the raw by-id reader.
    const reads = ['/v4/sites?limit=5', `/v4/sites/${siteId}`, '/v4/me', '/v4/individuals?limit=5'];
    let running = true;
    const readOutcomes: Awaited<ReturnType<typeof request>>[] = [];
    const writeOutcomes: Awaited<ReturnType<typeof request>>[] = [];
    const reader = async (n: number) => {
      for (let i = n; running; i++) {
        const path = reads[i % reads.length];
        const out = await request(o, 'read', 'GET', path);
        readOutcomes.push(out.status === 200 ? out : { ...out, id: path });
      }
    };
    const writer = async () => {
      for (let i = 0; running; i++) {
        writeOutcomes.push(await request(o, 'write', 'POST', '/v4/sites', JSON.stringify({ Name: `Written under drops ${i}` })));
      }
    };
    const load = [...Array.from({ length: READERS }, (_, n) => reader(n)), writer()];
    await sleep(500);
    for (let d = 0; d < DROPS; d++) {
      proxy.dropAll();
      await sleep(DROP_EVERY_MS);
    }
    running = false;
    await Promise.all(load);

    const readFigures = summarize(readOutcomes);
    const writeFigures = summarize(writeOutcomes);
    process.stdout.write(
      `\n== connection drops ==\n${proxy.dropped} sessions closed in ${DROPS} drops; reads: ${readFigures.requests}, ${readFigures.ok} 200, ` +
        `p99 ${readFigures.p99} ms; writes: ${writeFigures.requests}, ${writeFigures.ok} 2xx, ${writeFigures.unavailable} 503\n\n`,
    );
    expect(proxy.dropped).toBeGreaterThan(DROPS);
    expect(readOutcomes.length).toBeGreaterThan(100);
    expect(readOutcomes.filter((r) => r.status !== 200).map((r) => `${r.id} ${r.status} ${r.error ?? ''}`)).toEqual([]);
    expect(writeOutcomes.filter((w) => !(w.status === 200 || (w.status === 503 && w.retryAfter)))).toEqual([]);
  }, 120_000);
});
