import http from 'node:http';
import net from 'node:net';
import { adminToken, AppProcess, startAppProcess } from './support/app-process.js';
import { PrivateMariaDb } from './support/mariadb.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * SIGTERM as Kubernetes sends it, with a load balancer's keep-alive connections open and slow
 * requests in flight (issue 13, docs/operations.md "Shutdown"). The requests are slow for real:
 * the service's own MariaDB is frozen for a moment, so they are all waiting on it when SIGTERM
 * comes. Every one of them must complete, each connection must be told `Connection: close`, new
 * connections must be refused, readiness must say 503, and the process must exit 0 within 2 s of
 * the last response.
 */
const CLIENTS = 20;

interface Answer {
  status: number;
  connection: string | undefined;
  end: number;
  socketClosed: Promise<void>;
}

function get(base: string, path: string, agent: http.Agent, token: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { agent, headers: { Authorization: `Bearer ${token}` } }, (res) => {
      const socketClosed = new Promise<void>((r) => (res.socket.destroyed ? r() : res.socket.once('close', () => r())));
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, end: Date.now(), socketClosed }));
    });
    req.on('error', reject);
  });
}

describe('graceful shutdown on SIGTERM (own MariaDB, service as a process)', () => {
  const db = new PrivateMariaDb();
  let app: AppProcess;

  beforeAll(async () => {
    await db.start();
    await db.createDatabase('pms_shutdown');
    app = await startAppProcess({
      DATABASE_URL: `${db.url}/pms_shutdown`,
      // Long enough that the frozen database does not turn the in-flight requests into 503s.
      REQUEST_TIMEOUT_MS: '8000',
      DB_ACQUIRE_TIMEOUT_MS: '6000',
      DB_QUERY_TIMEOUT_MS: '6000',
      SHUTDOWN_GRACE_MS: '10000',
    });
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    await db.destroy();
  }, 30_000);

  it(`completes ${CLIENTS}/${CLIENTS} in-flight requests on keep-alive connections with Connection: close, refuses new connections, exits 0 within 2 s`, async () => {
    const token = await adminToken(app.base);
    // A load balancer's keep-alive connections, each warmed up by one request.
    const agents = Array.from({ length: CLIENTS }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    const probe = new net.Socket();
    try {
      const warm = await Promise.all(agents.map((a) => get(app.base, '/v4/sites?limit=5', a, token)));
      expect(warm.map((w) => w.status)).toEqual(Array(CLIENTS).fill(200));
      expect(warm.map((w) => w.connection)).toEqual(Array(CLIENTS).fill('keep-alive'));

      // A probe connection whose request has begun but not ended when SIGTERM comes.
      probe.connect(app.port, '127.0.0.1');
      await new Promise((r) => probe.once('connect', r));
      let probeAnswer = '';
      probe.on('data', (d) => (probeAnswer += d));
      probe.write('GET /health/ready HTTP/1.1\r\nHost: lb\r\n');

      // Slow requests: the database is frozen while they run.
      db.freeze();
      const inFlight = agents.map((a) => get(app.base, '/v4/individuals?limit=100', a, token));
      await sleep(500);
      const sigtermAt = Date.now();
      app.child.kill('SIGTERM');
      await sleep(300);

      // New connections are refused at once.
      const refused = await new Promise<string>((resolve) => {
        const s = net.connect(app.port, '127.0.0.1');
        s.once('connect', () => {
          s.destroy();
          resolve('connected');
        });
        s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      });
      // The probe's request completes after SIGTERM: readiness is 503 and the connection closes.
      probe.write('\r\n');
      await new Promise((r) => probe.once('close', r));

      await sleep(700);
      db.thaw();
      const answers = await Promise.all(inFlight);
      const lastResponseAt = Math.max(...answers.map((a) => a.end));
      await Promise.all(answers.map((a) => a.socketClosed));
      const { code, at: exitAt } = await app.exited;

      process.stdout.write(
        `\n== shutdown figures ==\nSIGTERM with ${CLIENTS} requests in flight on keep-alive connections: ${answers.filter((a) => a.status === 200).length}/${CLIENTS} completed 200, ` +
          `${answers.filter((a) => a.connection === 'close').length}/${CLIENTS} with Connection: close; new connection after SIGTERM: ${refused}; ` +
          `readiness after SIGTERM: ${probeAnswer.split('\r\n')[0]}; last response ${lastResponseAt - sigtermAt} ms after SIGTERM; ` +
          `exit code ${code} ${exitAt - lastResponseAt} ms after the last response\n\n`,
      );
      expect(answers.map((a) => a.status)).toEqual(Array(CLIENTS).fill(200));
      // They really were in flight: all answered after SIGTERM.
      expect(answers.every((a) => a.end > sigtermAt)).toBe(true);
      expect(answers.map((a) => a.connection)).toEqual(Array(CLIENTS).fill('close'));
      expect(refused).toBe('ECONNREFUSED');
      expect(probeAnswer).toMatch(/^HTTP\/1\.1 503 /);
      expect(probeAnswer).toMatch(/\r\nConnection: close\r\n/i);
      expect(probeAnswer).toContain('shutting down');
      expect(code).toBe(0);
      expect(exitAt - lastResponseAt).toBeLessThan(2000);
      expect(app.output()).toContain('SIGTERM received');
      // The log's last line, written just before process.exit, is not lost in its chunk.
      expect(app.output()).toContain('every request answered; closing');
    } finally {
      probe.destroy();
      for (const a of agents) a.destroy();
    }
  }, 60_000);
});
