import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { bearer, startApp, TestApp, WireCodec } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { setTimeout as sleep } from 'node:timers/promises';

const codec = new WireCodec('urn:pms:v4');

interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/**
 * A local receiver: records every request; `answer` decides the status (or 'hang' for no answer;
 * a promise answers when it settles). `inFlight` / `maxInFlight` count requests not yet answered.
 */
class Receiver {
  readonly got: Received[] = [];
  answer: (r: Received, n: number) => number | 'hang' | Promise<number> = () => 200;
  inFlight = 0;
  maxInFlight = 0;
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r = { headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.got.push(r);
        const a = this.answer(r, this.got.length);
        if (a === 'hang') return;
        this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
        void Promise.resolve(a).then((status) => {
          this.inFlight--;
          res.statusCode = status;
          res.end('ok');
        });
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  events(type?: string) {
    return this.got
      .map((r) => ({ ...r, json: JSON.parse(r.body) as { type: string; id: string; timestamp: string; data: Record<string, unknown> } }))
      .filter((r) => !type || r.json.type === type);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

async function until<T>(what: string, fn: () => T | Promise<T>, ms = 45_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const nonEmpty = <T>(a: T[]): T[] | null => (a.length ? a : null);

const FAST = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_BASE_MS: '100',
  WEBHOOK_RETRY_MAX_MS: '800',
  WEBHOOK_RETRY_WINDOW_MS: '4000',
  WEBHOOK_TIMEOUT_MS: '300',
  WEBHOOK_POLL_MS: '50',
};

describe('/v4/webhooks and event delivery', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let plain: TestPerson;
  const receivers: Receiver[] = [];
  const as = (p: TestPerson) => bearer(p.token);
  const receiver = async () => {
    const r = await new Receiver().start();
    receivers.push(r);
    return r;
  };
  const hook = async (site: TestSite, url: string, types = '*') =>
    (await t.http().post('/v4/webhooks').set('Authorization', as(site.admin)).send({ URL: url, EventTypes: types }).expect(200)).body as {
      ID: string;
      Secret: string;
    };
  const color = (site: TestSite, name: string) =>
    t.http().post('/v4/colors').set('Authorization', as(site.admin)).send({ Name: name, ColorValue: 1, MinPercent: 0, MaxPercent: 10 }).expect(200);

  beforeAll(async () => {
    t = await startApp(FAST);
    acme = await createSite(t, { name: 'Acme' });
    globex = await createSite(t, { name: 'Globex' });
    plain = await createPerson(t, acme);
  });
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await t.close();
  });

  it('delivers a change signed as Standard Webhooks says, with the record as GET answers it', async () => {
    const r = await receiver();
    const w = await hook(acme, r.url, 'color.created');
    expect(w.Secret).toMatch(/^whsec_/);
    const c = await color(acme, 'Signed');
    const [got] = await until('the event', () => nonEmpty(r.events('color.created')));
    // The reference implementation verifies the signature and the timestamp.
    const verified = new StandardWebhook(w.Secret).verify(got.body, got.headers) as {
      type: string;
      id: string;
      timestamp: string;
      data: Record<string, unknown>;
    };
    expect(verified.type).toBe('color.created');
    expect(got.headers['webhook-id']).toBe(verified.id);
    expect(verified.data).toMatchObject({ Kind: 'color', ID: String(c.body.ID), Action: 'create' });
    const read = await t.http().get(`/v4/colors/${c.body.ID}`).set('Authorization', as(acme.admin)).expect(200);
    expect(verified.data.Record).toEqual(read.body);
    expect(() => new StandardWebhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got.body, got.headers)).toThrow();
  });

  it('names events by the field that changed (task.completed) and delivers only subscribed types', async () => {
    const r = await receiver();
    await hook(acme, r.url, 'task.completed');
    const task = await t
      .http()
      .post('/v4/tasks')
      .set('Authorization', as(acme.admin))
      .send({ Name: 'Ship it', AssignedToID: acme.admin.individualId, Kind: 'individual', AncestorID: acme.admin.individualId })
      .expect(200);
    await t.http().patch(`/v4/tasks/${task.body.ID}`).set('Authorization', as(acme.admin)).send({ Name: 'Ship it now' }).expect(200);
    await t.http().patch(`/v4/tasks/${task.body.ID}`).set('Authorization', as(acme.admin)).send({ Completed: true }).expect(200);
    const [got] = await until('task.completed', () => nonEmpty(r.events('task.completed')));
    expect(got.json.data).toMatchObject({ Kind: 'task', ID: task.body.ID, Action: 'update' });
    await new Promise((res) => setTimeout(res, 300));
    expect(r.events().map((e) => e.json.type)).toEqual(['task.completed']);
  });

  it('retries a receiver that answers 500 three times, and after the 200 sends the event no more', async () => {
    const r = await receiver();
    r.answer = (_r, n) => (n <= 3 ? 500 : 200);
    const w = await hook(acme, r.url, 'color.created');
    await color(acme, 'Flaky');
    await until('the 200', () => r.got.length >= 4);
    await new Promise((res) => setTimeout(res, 600));
    expect(r.got).toHaveLength(4);
    expect(new Set(r.got.map((g) => g.headers['webhook-id'])).size).toBe(1);
    const log = await until('four logged attempts', async () => {
      const res = await t.http().get(`/v4/webhooks/${w.ID}/deliveries`).set('Authorization', as(acme.admin)).expect(200);
      return (res.body as unknown[]).length >= 4 ? res : null;
    });
    expect((log.body as { Status: string; ResponseCode: number; Attempt: number }[]).map((d) => [d.Status, d.ResponseCode, d.Attempt])).toEqual([
      ['delivered', 200, 4],
      ['failed', 500, 3],
      ['failed', 500, 2],
      ['failed', 500, 1],
    ]);
    const again = await t.http().get(`/v4/webhooks/${w.ID}`).set('Authorization', as(acme.admin)).expect(200);
    expect(again.body).toMatchObject({ Active: true, DisabledReason: null, FailingSince: null });
  });

  it('retries a receiver that never answers with growing delays, then disables it and says why', async () => {
    const r = await receiver();
    r.answer = () => 'hang';
    const w = await hook(globex, r.url, 'color.*');
    await color(globex, 'Into the void');
    const disabled = await until(
      'the endpoint to be disabled',
      async () => {
        const res = await t.http().get(`/v4/webhooks/${w.ID}`).set('Authorization', as(globex.admin)).expect(200);
        return res.body.Active === false && res.body;
      },
      40_000,
    );
    expect(disabled.DisabledReason).toMatch(/deliveries failed since .* last error: no complete answer within 300 ms/);
    expect(r.got.length).toBeGreaterThanOrEqual(4);
    expect(new Set(r.got.map((g) => g.headers['webhook-id'])).size).toBe(1);
    // The delays between attempts grow as backoffMs says (webhook-dispatcher.spec.ts: 100 ms doubling
    // to the 800 ms cap here, ±25 %), each after a 300 ms timeout: the last wait (≥ 900 ms) is longer
    // than the first (≤ 425 ms plus the work around it).
    const gaps = r.got.slice(1).map((g, i) => g.at - r.got[i].at);
    expect(gaps[gaps.length - 1]).toBeGreaterThan(gaps[0]);
    const count = r.got.length;
    await color(globex, 'Not sent');
    await new Promise((res) => setTimeout(res, 400));
    expect(r.got.length).toBe(count);
    // Switching it on again delivers the queue to a receiver that now answers.
    r.answer = () => 200;
    await t.http().patch(`/v4/webhooks/${w.ID}`).set('Authorization', as(globex.admin)).send({ Active: true }).expect(200);
    await until('the queued events', () =>
      r
        .events()
        .slice(count)
        .some((e) => (e.json.data.Record as { Name?: string } | null)?.Name === 'Not sent'),
    );
  });

  it('pings, redelivers a logged event with the same id, and signs with both secrets while a rotation overlaps', async () => {
    const r = await receiver();
    const w = await hook(acme, r.url, 'color.deleted');
    const ping = await t.http().post(`/v4/webhooks/${w.ID}/ping`).set('Authorization', as(acme.admin)).expect(200);
    expect(ping.body).toMatchObject({ EventType: 'webhook.ping', Status: 'delivered', ResponseCode: 200 });
    expect(new StandardWebhook(w.Secret).verify(r.got[0].body, r.got[0].headers)).toMatchObject({ type: 'webhook.ping' });

    const rotated = await t.http().post(`/v4/webhooks/${w.ID}/rotate-secret`).set('Authorization', as(acme.admin)).expect(200);
    expect(rotated.body.Secret).not.toBe(w.Secret);
    expect(rotated.body.PreviousSecretExpires).not.toBeNull();
    const c = await color(acme, 'Rotated');
    await t.http().delete(`/v4/colors/${c.body.ID}`).set('Authorization', as(acme.admin)).expect(200);
    const [ev] = await until('color.deleted', () => nonEmpty(r.events('color.deleted')));
    expect(new StandardWebhook(w.Secret).verify(ev.body, ev.headers)).toMatchObject({ type: 'color.deleted' });
    expect(new StandardWebhook(rotated.body.Secret).verify(ev.body, ev.headers)).toMatchObject({ type: 'color.deleted', data: { Record: null } });

    // The receiver has the event before the wave that sent it writes its log row (outbox.statements.ts).
    const first = await until('the logged delivery', async () => {
      const log = await t.http().get(`/v4/webhooks/${w.ID}/deliveries`).set('Authorization', as(acme.admin)).expect(200);
      return (log.body as { ID: string; EventType: string }[]).find((d) => d.EventType === 'color.deleted');
    });
    const again = await t.http().post(`/v4/webhooks/${w.ID}/deliveries/${first.ID}/redeliver`).set('Authorization', as(acme.admin)).expect(200);
    expect(again.body).toMatchObject({ EventType: 'color.deleted', Status: 'delivered', Attempt: 2 });
    const last = r.got[r.got.length - 1];
    expect(last.headers['webhook-id']).toBe(ev.headers['webhook-id']);
    expect(last.body).toBe(ev.body);
  });

  it('signs the events after a rotation with the new secret even when a delivery was under way across it', async () => {
    const r = await receiver();
    let answer!: () => void;
    const held = new Promise<number>((res) => (answer = () => res(200)));
    r.answer = (got) => ((JSON.parse(got.body) as { type: string }).type === 'color.created' ? held : 200);
    const w = await hook(globex, r.url, 'color.*');
    const c = await color(globex, 'Across a rotation');
    // The replica delivering color.created holds the webhook (and the secret it claimed with) while the secret rotates.
    await until('color.created in flight', () => nonEmpty(r.events('color.created')));
    const rotated = await t.http().post(`/v4/webhooks/${w.ID}/rotate-secret`).set('Authorization', as(globex.admin)).expect(200);
    await t.http().delete(`/v4/colors/${c.body.ID}`).set('Authorization', as(globex.admin)).expect(200);
    answer();
    const [ev] = await until('color.deleted', () => nonEmpty(r.events('color.deleted')));
    // Answered within the 300 ms timeout: the drain went on across the rotation rather than failing and claiming afresh.
    expect(r.events('color.created')).toHaveLength(1);
    expect(new StandardWebhook(rotated.body.Secret).verify(ev.body, ev.headers)).toMatchObject({ type: 'color.deleted' });
    expect(new StandardWebhook(w.Secret).verify(ev.body, ev.headers)).toMatchObject({ type: 'color.deleted' });
  });

  it('reads and writes webhooks in XML, and records their changes in the trail without the secret', async () => {
    const r = await receiver();
    const xml = `<Webhook xmlns="urn:pms:v4"><URL>${r.url}</URL><EventTypes>period.closed dialog.held</EventTypes></Webhook>`;
    const res = await t
      .http()
      .post('/v4/webhooks')
      .set('Authorization', as(acme.admin))
      .set('Content-Type', 'application/xml')
      .set('Accept', 'application/xml')
      .send(xml)
      .expect(200);
    const w = (await codec.decodeXml(res.text)) as Record<string, string>;
    expect(w.EventTypes).toBe('period.closed dialog.held');
    await t.http().post(`/v4/webhooks/${w.ID}/rotate-secret`).set('Authorization', as(acme.admin)).expect(200);
    const trail = await t.http().get(`/v4/audit?kind=webhook&rowid=${w.ID}`).set('Authorization', as(acme.admin)).expect(200);
    const rotation = (trail.body as { Action: string; Changes: { Field: string; Before: string | null; After: string | null; Secret: boolean }[] }[])[0];
    expect(rotation.Changes.find((c) => c.Field === 'Secret')).toEqual({ Field: 'Secret', Before: null, After: null, Secret: true });
    expect(JSON.stringify(trail.body)).not.toContain(w.Secret);
    const list = await t.http().get('/v4/webhooks').set('Authorization', as(acme.admin)).set('Accept', 'application/xml').expect(200);
    expect(list.text).toContain('<ArrayOfWebhook');
  });

  it('answers 400 for bad input, 404 for another site’s webhook, 403 for a non-administrator', async () => {
    const r = await receiver();
    const bad = await t
      .http()
      .post('/v4/webhooks')
      .set('Authorization', as(acme.admin))
      .send({ URL: 'ftp://example.test/x', EventTypes: 'Not A Type' })
      .expect(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['EventTypes', 'URL']);
    await t.http().post('/v4/webhooks').set('Authorization', as(acme.admin)).send({ URL: r.url, EventTypes: '*', Secret: 'plain' }).expect(400);
    await t.http().post('/v4/webhooks').set('Authorization', as(acme.admin)).send({ EventTypes: '*' }).expect(400);
    const theirs = await hook(globex, r.url);
    await t.http().get(`/v4/webhooks/${theirs.ID}`).set('Authorization', as(acme.admin)).expect(404);
    await t.http().get(`/v4/webhooks/${theirs.ID}/deliveries`).set('Authorization', as(acme.admin)).expect(404);
    await t.http().post(`/v4/webhooks/${theirs.ID}/ping`).set('Authorization', as(acme.admin)).expect(404);
    await t.http().delete(`/v4/webhooks/${theirs.ID}`).set('Authorization', as(acme.admin)).expect(404);
    await t.http().post(`/v4/webhooks/${theirs.ID}/deliveries/${randomUUID()}/redeliver`).set('Authorization', as(globex.admin)).expect(404);
    await t.http().get(`/v4/webhooks/${randomUUID()}`).set('Authorization', as(acme.admin)).expect(404);
    await t.http().get('/v4/webhooks').set('Authorization', as(plain)).expect(403);
    await t.http().post('/v4/webhooks').set('Authorization', as(plain)).send({ URL: r.url, EventTypes: '*' }).expect(403);
    await t.http().delete(`/v4/webhooks/${theirs.ID}`).set('Authorization', as(globex.admin)).expect(200);
    await t.http().get(`/v4/webhooks/${theirs.ID}`).set('Authorization', as(globex.admin)).expect(404);
  });
});

describe('webhooks: delivery right after commit', () => {
  let t: TestApp;
  let site: TestSite;
  const receivers: Receiver[] = [];
  // The poll would find a change only after a minute: whatever arrives sooner was woken by its commit.
  const POLL_MS = 60_000;
  beforeAll(async () => {
    t = await startApp({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: String(POLL_MS) });
    site = await createSite(t);
  });
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await t.close();
  });
  const receiver = async () => {
    const r = await new Receiver().start();
    receivers.push(r);
    return r;
  };
  const as = () => bearer(site.admin.token);

  it('wakes the dispatcher when a write commits: each event arrives well within the poll interval', async () => {
    const r = await receiver();
    await t.http().post('/v4/webhooks').set('Authorization', as()).send({ URL: r.url, EventTypes: 'color.created' }).expect(200);
    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      await t
        .http()
        .post('/v4/colors')
        .set('Authorization', as())
        .send({ Name: `Now ${i}`, ColorValue: i, MinPercent: 0, MaxPercent: 10 })
        .expect(200);
      const [got] = await until(`event ${i}`, () => nonEmpty(r.events().slice(i)), 10_000);
      // The event's timestamp is its commit time (the same clock): arrival − commit.
      latencies.push(got.at - Date.parse(got.json.timestamp));
    }
    expect(Math.max(...latencies)).toBeLessThan(3000);
    expect(Math.max(...latencies)).toBeLessThan(POLL_MS / 20);
  });

  it('sends different records at once while each record’s events keep their order', async () => {
    const r = await receiver();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // Every answer waits for the gate, then a moment more, so requests sent together overlap.
    r.answer = async () => {
      await gate;
      await sleep(150);
      return 200;
    };
    await t.http().post('/v4/webhooks').set('Authorization', as()).send({ URL: r.url, EventTypes: 'color.*' }).expect(200);
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const c = await t
        .http()
        .post('/v4/colors')
        .set('Authorization', as())
        .send({ Name: `Par ${i}`, ColorValue: i, MinPercent: 0, MaxPercent: 10 })
        .expect(200);
      ids.push(c.body.ID as number);
    }
    for (const id of ids)
      await t
        .http()
        .patch(`/v4/colors/${id}`)
        .set('Authorization', as())
        .send({ Name: `Par ${id} renamed` })
        .expect(200);
    // The first create is held at the receiver; the other seven events wait behind it.
    await until('the first event', () => r.got.length >= 1);
    open();
    await until('all eight events', () => r.got.length >= 8);
    await sleep(300);
    expect(r.got).toHaveLength(8);
    expect(r.maxInFlight).toBeGreaterThanOrEqual(2);
    for (const id of ids) {
      const mine = r.events().filter((e) => e.json.data.ID === String(id));
      expect(mine.map((e) => e.json.type)).toEqual(['color.created', 'color.updated']);
    }
  });
});

describe('webhooks: targets on private addresses', () => {
  let t: TestApp;
  let site: TestSite;
  beforeAll(async () => {
    t = await startApp({ WEBHOOK_POLL_MS: '50' });
    site = await createSite(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    'http://127.0.0.1:8080/x',
    'http://localhost/x',
    'http://169.254.169.254/latest/meta-data',
    'http://10.1.2.3/x',
    'http://[::1]/x',
    'http://[::ffff:127.0.0.1]/x',
    // Reserved ranges (issue 46, row 11): documentation, discard, 6to4, IPv4-translated.
    'http://192.0.2.1/x',
    'http://198.51.100.7/x',
    'http://203.0.113.9/x',
    'http://[2001:db8::1]/x',
    'http://[100::1]/x',
    'http://[2002::1]/x',
    'http://[::ffff:0:a00:1]/x',
  ])('refuses %s unless EGRESS_ALLOW_PRIVATE=true', async (url) => {
    const res = await t.http().post('/v4/webhooks').set('Authorization', bearer(site.admin.token)).send({ URL: url, EventTypes: '*' }).expect(400);
    expect(res.body.errors[0].field).toBe('URL');
  });
});

describe('webhooks: replicas and restarts on one database', () => {
  // Delivery is at least once: a send that times out is sent again (docs/events.md). These tests are
  // about replicas and restarts, not timeouts, so a send may take as long as a loaded CI machine needs
  // (with FAST's 300 ms, a slow first wave was resent and showed as a double delivery).
  const PATIENT = { ...FAST, WEBHOOK_TIMEOUT_MS: '10000' };
  let writer: TestApp;
  const receivers: Receiver[] = [];
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await writer?.close();
  });

  it('delivers every event committed while no replica delivered, once a replica starts (the outbox survives a restart)', async () => {
    // The writer commits and never delivers: as a process killed between commit and delivery.
    writer = await startApp({ ...PATIENT, WEBHOOKS: 'off' });
    const site = await createSite(writer);
    const r = await new Receiver().start();
    receivers.push(r);
    const w = await writer
      .http()
      .post('/v4/webhooks')
      .set('Authorization', bearer(site.admin.token))
      .send({ URL: r.url, EventTypes: 'color.created' })
      .expect(200);
    for (let i = 0; i < 10; i++)
      await writer
        .http()
        .post('/v4/colors')
        .set('Authorization', bearer(site.admin.token))
        .send({ Name: `R${i}`, ColorValue: i, MinPercent: 0, MaxPercent: 10 })
        .expect(200);
    await new Promise((res) => setTimeout(res, 300));
    expect(r.got).toHaveLength(0);
    const later = await startApp({ ...PATIENT, DATABASE_URL: writer.config.databaseUrl, JWT_SECRET: writer.config.jwtSecret });
    try {
      await until('10 events', () => r.got.length >= 10);
      await new Promise((res) => setTimeout(res, 300));
      // Each once; different records may arrive in any order (order holds per record), so by sequence number.
      const bySeq = r.events().sort((x, y) => (x.json.data.Seq as number) - (y.json.data.Seq as number));
      expect(bySeq.map((e) => (e.json.data.Record as { Name: string }).Name)).toEqual([...Array(10).keys()].map((i) => `R${i}`));
      // The log rows are written when each wave ends, after the receiver has answered.
      const log = await until('10 logged deliveries', async () => {
        const res = await later.http().get(`/v4/webhooks/${w.body.ID}/deliveries?limit=100`).set('Authorization', bearer(site.admin.token)).expect(200);
        return (res.body as unknown[]).length >= 10 ? res : null;
      });
      expect(log.body).toHaveLength(10);
    } finally {
      await later.close();
    }
  }, 180_000);

  it('two replicas on one database deliver every event exactly once', async () => {
    const site = await createSite(writer);
    const r = await new Receiver().start();
    receivers.push(r);
    const a = await startApp({ ...PATIENT, DATABASE_URL: writer.config.databaseUrl, JWT_SECRET: writer.config.jwtSecret });
    const b = await startApp({ ...PATIENT, DATABASE_URL: writer.config.databaseUrl, JWT_SECRET: writer.config.jwtSecret });
    try {
      await a.http().post('/v4/webhooks').set('Authorization', bearer(site.admin.token)).send({ URL: r.url, EventTypes: 'color.created' }).expect(200);
      const names: string[] = [];
      await Promise.all(
        [a, b].map(async (app, k) => {
          for (let i = 0; i < 15; i++) {
            const name = `${k}-${i}`;
            names.push(name);
            await app
              .http()
              .post('/v4/colors')
              .set('Authorization', bearer(site.admin.token))
              .send({ Name: name, ColorValue: i, MinPercent: 0, MaxPercent: 10 })
              .expect(200);
          }
        }),
      );
      await until('30 events', () => r.got.length >= 30);
      await new Promise((res) => setTimeout(res, 500));
      const ids = r.got.map((g) => g.headers['webhook-id']);
      expect(ids).toHaveLength(30);
      expect(new Set(ids).size).toBe(30);
      expect(
        r
          .events()
          .map((e) => (e.json.data.Record as { Name: string }).Name)
          .sort(),
      ).toEqual(names.sort());
      expect(new Set(r.events().map((e) => e.json.data.Seq as number)).size).toBe(30);
    } finally {
      await a.close();
      await b.close();
    }
  }, 180_000);
});
