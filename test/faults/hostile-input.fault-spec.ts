import net from 'node:net';
import { adminToken, AppProcess, startAppProcess } from './support/app-process.js';
import { PrivateMariaDb } from './support/mariadb.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Hostile input against the service as a process, on a MariaDB server of its own configured as an
 * upstream MariaDB ships (latin1 by default) — docs/operations.md, "Input limits", "Character set"
 * and "Bounds". Anonymous bodies built to cost seconds of CPU must be refused in milliseconds
 * while the instance keeps answering; a database created with the server's default charset must
 * hold every character; bodies that stop halfway must not hold connections, nor the shutdown.
 */
const REQUEST_TIMEOUT_MS = 3000;

describe('hostile input (own MariaDB in latin1, service as a process)', () => {
  const db = new PrivateMariaDb(['--character-set-server=latin1', '--collation-server=latin1_swedish_ci']);
  let app: AppProcess;
  let token: string;

  beforeAll(async () => {
    await db.start();
    const admin = await db.connect();
    // As an operator who did not read the README would: the server's default charset.
    await admin.query('CREATE DATABASE pms_hostile');
    const [[{ cs }]] = (await admin.query(
      "SELECT DEFAULT_CHARACTER_SET_NAME AS cs FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'pms_hostile'",
    )) as unknown as [{ cs: string }[]];
    expect(cs).toBe('latin1');
    await admin.end();
    app = await startAppProcess({
      DATABASE_URL: `${db.url}/pms_hostile`,
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      DB_ACQUIRE_TIMEOUT_MS: '2000',
      DB_QUERY_TIMEOUT_MS: '2000',
    });
    token = await adminToken(app.base);
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    await db.destroy();
  }, 30_000);

  it('stores every character in a database created in latin1', async () => {
    const names = ['emoji 😀🎉', 'combining e\u0301\u0302', 'override \u202eabc', 'CJK 山田太郎', 'astral 𝔘𝔫𝔦𝔠𝔬𝔡𝔢'];
    const statuses: number[] = [];
    for (const Name of names) {
      const res = await fetch(`${app.base}/v4/departments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ Name }),
      });
      statuses.push(res.status);
      const body = (await res.json()) as { ID: string; Name: string };
      const read = (await (await fetch(`${app.base}/v4/departments/${body.ID}`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { Name: string };
      expect(read.Name).toBe(Name);
    }
    expect(statuses).toEqual(names.map(() => 200));
    const check = await db.connect('pms_hostile');
    const [rows] = await check.query(
      "SELECT COUNT(*) AS n FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND CHARACTER_SET_NAME <> 'utf8mb4'",
    );
    await check.end();
    expect(Number((rows as { n: number }[])[0].n)).toBe(0);
  });

  it('refuses 40 anonymous many-key bodies in milliseconds while /health/live keeps answering', async () => {
    const json = (() => {
      const o: Record<string, unknown> = { UserName: 'x', Password: 'y' };
      for (let i = 0; i < 120_000; i++) o[i.toString(36)] = 1;
      return JSON.stringify(o);
    })();
    const xml =
      '<TokenRequest xmlns="urn:pms:v4"><UserName>x</UserName>' +
      Array.from({ length: 70_000 }, (_, i) => `<a${i.toString(36)}/>`).join('') +
      '</TokenRequest>';
    let polling = true;
    const live: number[] = [];
    const poller = (async () => {
      while (polling) {
        const t0 = Date.now();
        const res = await fetch(`${app.base}/health/live`);
        await res.arrayBuffer();
        live.push(Date.now() - t0);
        await sleep(20);
      }
    })();
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const t0 = Date.now();
        const res = await fetch(`${app.base}/v4/auth/token`, {
          method: 'POST',
          headers: { 'Content-Type': i % 4 === 3 ? 'application/xml' : 'application/json' },
          body: i % 4 === 3 ? xml : json,
        });
        await res.arrayBuffer();
        return { status: res.status, ms: Date.now() - t0 };
      }),
    );
    const allMs = Date.now() - started;
    polling = false;
    await poller;
    const maxLive = Math.max(...live);
    const maxAnswer = Math.max(...answers.map((a) => a.ms));
    console.log(
      `hostile bodies: 40 × ~1 MB (30 JSON of 120,000 keys, 10 XML of 70,000 elements): statuses ${[...new Set(answers.map((a) => a.status))].join(',')}, ` +
        `all answered in ${allMs} ms, slowest ${maxAnswer} ms; /health/live ${live.length} polls, slowest ${maxLive} ms`,
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 400));
    // The bodies themselves take time to upload on loopback; what must not happen is a wait of seconds.
    expect(maxLive).toBeLessThan(1000);
    expect(maxAnswer).toBeLessThan(5000);
  }, 60_000);

  it('closes 20 half-sent bodies after REQUEST_TIMEOUT_MS (408), stays ready meanwhile, and a SIGTERM with more of them exits 0', async () => {
    const halfSend = () =>
      new Promise<{ text: string; ms: number }>((resolve) => {
        const t0 = Date.now();
        let text = '';
        const socket = net.connect(app.port, '127.0.0.1', () =>
          socket.write('POST /v4/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"UserName"'),
        );
        socket.on('data', (d) => (text += String(d)));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve({ text, ms: Date.now() - t0 }));
      });
    const first = Array.from({ length: 20 }, halfSend);
    await sleep(200);
    expect((await fetch(`${app.base}/health/ready`)).status).toBe(200);
    const closed = await Promise.all(first);
    const slowest = Math.max(...closed.map((c) => c.ms));
    console.log(
      `half-sent bodies: 20 closed with ${[...new Set(closed.map((c) => c.text.slice(0, 12)))].join(',')}, slowest after ${slowest} ms (REQUEST_TIMEOUT_MS ${REQUEST_TIMEOUT_MS})`,
    );
    expect(closed.every((c) => c.text.startsWith('HTTP/1.1 408'))).toBe(true);
    expect(slowest).toBeLessThan(REQUEST_TIMEOUT_MS + 2000);

    const second = Array.from({ length: 10 }, halfSend);
    await sleep(200);
    const t0 = Date.now();
    app.child.kill('SIGTERM');
    const [answers, exit] = await Promise.all([Promise.all(second), app.exited]);
    console.log(
      `SIGTERM with 10 half-sent bodies: exit ${exit.code} after ${exit.at - t0} ms; they got ${[...new Set(answers.map((a) => a.text.slice(0, 12)))].join(',')}`,
    );
    expect(exit.code).toBe(0);
    expect(answers.every((a) => a.text.startsWith('HTTP/1.1 503'))).toBe(true);
    expect(exit.at - t0).toBeLessThan(5000);
  }, 60_000);
});
