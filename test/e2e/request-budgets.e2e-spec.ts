import { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import { bearer, startApp, TestApp } from './harness.js';
import { remaining } from './rate-limit-headers.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Request budgets (docs/limits.md): every authenticated request spends one of its caller's budget
 * (a person's account or an API token) and one of its site's; both are announced on every answer
 * (IETF RateLimit / RateLimit-Policy), and a request over either answers 429 with Retry-After.
 * Small budgets here; the other suites run with budgets they never reach.
 */
const PER_CALLER = 25;
const PER_SITE = 40;
const WINDOW = 60;

type Res = { status: number; headers: Record<string, string>; body: Record<string, unknown>; text: string };

describe('request budgets', () => {
  let t: TestApp;
  let site: TestSite;
  let other: TestSite;
  let alice: TestPerson;
  let bob: TestPerson;
  let carol: TestPerson;

  beforeAll(async () => {
    t = await startApp({ RATE_LIMIT_PER_CALLER: String(PER_CALLER), RATE_LIMIT_PER_SITE: String(PER_SITE), RATE_LIMIT_WINDOW_SECONDS: String(WINDOW) });
    site = await createSite(t);
    other = await createSite(t);
    [alice, bob] = [await createPerson(t, site), await createPerson(t, site)];
    carol = await createPerson(t, other);
  });
  afterAll(() => t?.close());

  const get = (token: string, path: string, accept = 'application/json'): Promise<Res> =>
    t.http().get(path).set('Authorization', bearer(token)).set('Accept', accept) as unknown as Promise<Res>;

  it('announces both budgets on every authenticated answer, errors included, and counts down by one', async () => {
    const first = await get(alice.token, '/v4/me');
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe(`"caller";q=${PER_CALLER};w=${WINDOW}, "site";q=${PER_SITE};w=${WINDOW}`);
    const a = remaining(first.headers.ratelimit);
    expect(a.caller.r).toBe(PER_CALLER - 1); // alice's first request of her own
    expect(a.caller.t).toBeGreaterThanOrEqual(1);
    expect(a.caller.t).toBeLessThanOrEqual(WINDOW);
    const missing = await get(alice.token, '/v4/individuals/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    const b = remaining(missing.headers.ratelimit);
    expect(b.caller.r).toBe(a.caller.r - 1);
    expect(b.site.r).toBe(a.site.r - 1);
  });

  it('leaves public routes (probes, the document, login) out of every budget', async () => {
    for (const path of ['/health/live', '/health/ready', '/docs/openapi.json']) {
      const res = await t.http().get(path);
      expect(res.status).toBe(200);
      expect(res.headers.ratelimit).toBeUndefined();
    }
    const login = await t.http().post('/v4/auth/token').send({ UserName: bob.userName, Password: bob.password });
    expect(login.status).toBe(200);
    expect(login.headers.ratelimit).toBeUndefined();
  });

  it("answers 429 with Retry-After once a caller's budget is spent, in JSON and XML, and other callers and sites go on", async () => {
    let last = remaining((await get(alice.token, '/v4/me')).headers.ratelimit).caller.r;
    while (last > 0) {
      const res = await get(alice.token, '/v4/me');
      expect(res.status).toBe(200);
      last = remaining(res.headers.ratelimit).caller.r;
    }
    const refused = await get(alice.token, '/v4/me');
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 429, type: 'urn:pms:problem:too-many-requests' });
    expect(String(refused.body.detail)).toContain(`this account (${PER_CALLER} requests every ${WINDOW} s)`);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW);
    expect(remaining(refused.headers.ratelimit).caller).toEqual({ r: 0, t: retryAfter });
    const xml = await get(alice.token, '/v4/me', 'application/xml');
    expect(xml.status).toBe(429);
    expect(xml.headers['content-type']).toMatch(/^application\/problem\+xml/);
    expect(xml.text).toContain('too-many-requests');
    // Alice's refusal is hers: a colleague and another site's member still get answers.
    expect((await get(bob.token, '/v4/me')).status).toBe(200);
    expect((await get(carol.token, '/v4/me')).status).toBe(200);
  });

  it("refuses every caller of a site once the site's budget is spent, and no caller of another site", async () => {
    let res = await get(bob.token, '/v4/me');
    while (res.status === 200) res = await get(bob.token, '/v4/me');
    expect(res.status).toBe(429);
    // Bob's own budget is not spent (alice used most of the site's), the site's is.
    expect(remaining(res.headers.ratelimit).site.r).toBe(0);
    expect(remaining(res.headers.ratelimit).caller.r).toBeGreaterThan(0);
    expect(String(res.body.detail)).toContain(`this site (${PER_SITE} requests every ${WINDOW} s)`);
    expect((await get(site.admin.token, '/v4/me')).status).toBe(429);
    const elsewhere = await get(carol.token, '/v4/me');
    expect(elsewhere.status).toBe(200);
    expect(remaining(elsewhere.headers.ratelimit).site.r).toBeGreaterThan(0);
  });

  it('gives an API token a budget of its own, apart from the person who made it', async () => {
    const tokenRes = await t.http().post('/v4/apitokens').set('Authorization', bearer(other.admin.token)).send({ Name: 'Feed', Scopes: 'individuals:read' });
    expect(tokenRes.status).toBe(200);
    const secret = tokenRes.body.Secret as string;
    const admin = remaining((await get(other.admin.token, '/v4/me')).headers.ratelimit).caller.r;
    const first = await get(secret, `/v4/individuals/${carol.individualId}`);
    expect(first.status).toBe(200);
    expect(remaining(first.headers.ratelimit).caller.r).toBe(PER_CALLER - 1);
    expect(remaining((await get(other.admin.token, '/v4/me')).headers.ratelimit).caller.r).toBe(admin - 1);
  });
});

describe('request budgets: a new window', () => {
  let t: TestApp;
  let person: TestPerson;
  beforeAll(async () => {
    t = await startApp({ RATE_LIMIT_PER_CALLER: '3', RATE_LIMIT_PER_SITE: '0', RATE_LIMIT_WINDOW_SECONDS: '2' });
    person = await createPerson(t, await createSite(t));
  });
  afterAll(() => t?.close());

  it('answers again after Retry-After; a budget of 0 is no budget (no site policy announced)', async () => {
    const me = () => t.http().get('/v4/me').set('Authorization', bearer(person.token));
    let res = await me();
    expect(res.headers['ratelimit-policy']).toBe('"caller";q=3;w=2');
    while (res.status === 200) res = await me();
    expect(res.status).toBe(429);
    await sleep(Number(res.headers['retry-after']) * 1000 + 100);
    const again = await me();
    expect(again.status).toBe(200);
    expect(remaining(again.headers.ratelimit).caller.r).toBe(2);
  });
});

describe('request budgets: a bulk request spends one per item', () => {
  let t: TestApp;
  let site: TestSite;
  beforeAll(async () => {
    t = await startApp({ RATE_LIMIT_PER_CALLER: '100', RATE_LIMIT_PER_SITE: '0' });
    site = await createSite(t);
  });
  afterAll(() => t?.close());

  const left = (res: { headers: Record<string, string> }) => remaining(res.headers.ratelimit).caller.r;
  const unit = (name: string) => ({ Op: 'create', Record: { Name: name } });

  it('counts the items of a JSON or an XML bulk request, valid or not, and refuses a batch over what remains', async () => {
    const before = left(await t.http().get('/v4/me').set('Authorization', bearer(site.admin.token)));
    const json = await t
      .http()
      .post('/v4/departments/bulk')
      .set('Authorization', bearer(site.admin.token))
      .send({ Items: [unit('A'), unit('B'), { Op: 'create', Record: {} }] });
    expect(json.status).toBe(200);
    expect(left(json)).toBe(before - 3);
    const ns = t.config.xmlNamespace;
    const item = (name: string) => `<BulkItemOfOrganization><Op>create</Op><Record><Name>${name}</Name></Record></BulkItemOfOrganization>`;
    const xml = await t
      .http()
      .post('/v4/departments/bulk')
      .set('Authorization', bearer(site.admin.token))
      .set('Content-Type', 'application/xml')
      .send(`<BulkRequestOfOrganization xmlns="${ns}"><Items>${item('C')}${item('D')}</Items></BulkRequestOfOrganization>`);
    expect(xml.status).toBe(200);
    expect(left(xml)).toBe(before - 5);
    // A batch larger than what remains is refused whole: nothing of it is written.
    const big = await t
      .http()
      .post('/v4/departments/bulk')
      .set('Authorization', bearer(site.admin.token))
      .send({ Items: Array.from({ length: before }, (_, i) => unit(`Big ${i}`)) });
    expect(big.status).toBe(429);
    const units = await t.ds.getRepository(OrganizationEntity).findBy({ siteId: site.siteId });
    expect(units.map((u) => u.name).filter((n) => n.startsWith('Big '))).toEqual([]);
    expect(
      units
        .map((u) => u.name)
        .filter((n) => /^[ABCD]$/.test(n))
        .sort(),
    ).toEqual(['A', 'B', 'C', 'D']);
  });
});
