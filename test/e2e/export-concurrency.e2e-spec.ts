import { get as httpGet, type ClientRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPerson, createSite, type TestPerson, type TestSite } from '../factories/index.js';
import { insertManyPeople } from '../factories/individuals.js';
import { bearer, DB_KIND, startApp, type TestApp } from './harness.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Exports at once (docs/limits.md): a streamed export is one request of its caller's budget however
 * long it runs, and holds pooled connections while it reads ahead, so a replica runs at most
 * EXPORT_MAX_PER_CALLER exports of one caller and EXPORT_MAX_PER_SITE of one site; one more is 429
 * with Retry-After before anything is read, and a slot comes back when its export ends, also when
 * its client hangs up. Exports held open by clients that do not read, on a site whose CSV is several
 * times what the sockets between them hold.
 */
describe(`exports at once, per caller and per site (${DB_KIND})`, () => {
  let t: TestApp;
  let big: TestSite;
  let other: TestSite;
  let member: TestPerson;
  let another: TestPerson;
  const COUNT = 30_000;
  const open: ClientRequest[] = [];

  beforeAll(async () => {
    t = await startApp({ EXPORT_BATCH_ROWS: '500', EXPORT_MAX_PER_CALLER: '1', EXPORT_MAX_PER_SITE: '2' });
    big = await createSite(t);
    other = await createSite(t);
    member = await createPerson(t, big);
    another = await createPerson(t, big);
    await insertManyPeople(t, big, COUNT);
  }, 180_000);
  afterAll(async () => {
    for (const req of open) req.destroy();
    await t?.close();
  });

  const port = async () => {
    const server = t.app.getHttpServer() as Server;
    if (!server.listening) await new Promise<void>((r) => server.listen(0, r));
    return (server.address() as AddressInfo).port;
  };

  /** An export of the individuals as `token`, its answer's head taken and its body left unread (the export waits). */
  const exportAs = async (token: string): Promise<{ req: ClientRequest; res: IncomingMessage; body: () => Promise<string> }> => {
    const p = await port();
    return new Promise((resolve, reject) => {
      const req = httpGet({ port: p, path: '/v4/individuals', agent: false, headers: { Authorization: bearer(token), Accept: 'text/csv' } }, (res) => {
        res.pause();
        open.push(req);
        const body = () =>
          new Promise<string>((done) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () => done(text));
            res.resume();
          });
        resolve({ req, res, body });
      });
      req.on('error', reject);
    });
  };

  it('answers 429 with Retry-After to one export more than a caller or a site may run, before any byte, and gives the slot back when an export ends', async () => {
    const first = await exportAs(big.admin.token);
    expect(first.res.statusCode).toBe(200);
    expect(first.res.headers['content-type']).toMatch(/^text\/csv/);

    // The same caller again: 429 at once, a problem document, nothing of the list.
    const again = await exportAs(big.admin.token);
    expect(again.res.statusCode).toBe(429);
    expect(again.res.headers['retry-after']).toBe('5');
    const problem = JSON.parse(await again.body()) as { type: string; detail: string };
    expect(problem.type).toBe('urn:pms:problem:too-many-requests');
    expect(problem.detail).toMatch(/At most 1 exports of one caller run at once \(EXPORT_MAX_PER_CALLER\)/);
    // Its other requests are not held back: a page of the same list.
    expect((await t.http().get('/v4/individuals?limit=2').set('Authorization', bearer(big.admin.token))).status).toBe(200);

    // Another caller of the site has a slot of their own, until the site's two are taken.
    const second = await exportAs(member.token);
    expect(second.res.statusCode).toBe(200);
    const third = await exportAs(another.token);
    expect(third.res.statusCode).toBe(429);
    expect(JSON.parse(await third.body()).detail).toMatch(/At most 2 exports of one site run at once \(EXPORT_MAX_PER_SITE\)/);
    // Another site is not held back by this one's.
    const elsewhere = await exportAs(other.admin.token);
    expect(elsewhere.res.statusCode).toBe(200);
    expect((await elsewhere.body()).split('\r\n')[0].split(',')).toContain('ID');

    // The first export's client hangs up: its slot comes back (the export ends at its next batch).
    first.req.destroy();
    let next = await exportAs(big.admin.token);
    for (let i = 0; i < 50 && next.res.statusCode === 429; i++) {
      await next.body();
      await sleep(100);
      next = await exportAs(big.admin.token);
    }
    expect(next.res.statusCode).toBe(200);
    // An export read to its end gives its slot back too: every row (the header, then one a person), then the member's next one starts.
    const total = Number((await t.http().get('/v4/individuals?limit=1').set('Authorization', bearer(member.token))).headers['x-total-count']);
    expect(total).toBeGreaterThan(COUNT);
    const whole = await second.body();
    expect(whole.endsWith('\r\n')).toBe(true);
    expect(whole.trimEnd().split('\r\n')).toHaveLength(total + 1);
    const after = await exportAs(member.token);
    expect(after.res.statusCode).toBe(200);
  }, 120_000);
});
