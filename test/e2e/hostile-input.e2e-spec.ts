import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import mysql from 'mysql2/promise';
import { bearer, createSite, createPerson, type TestSite } from '../factories/index.js';
import { ADMIN_PASSWORD, ADMIN_USER, createTestDatabase, DB_KIND, startApp, TestApp } from './harness.js';
import { BODY_LIMITS } from '../../src/http/wire/body-limits.js';
import { createApp } from '../../src/app.factory.js';
import { loadConfig, parseDatabaseUrl } from '../../src/config/config.js';
import { JsonLogger } from '../../src/common/logging/json-logger.js';

/**
 * Hostile input, as an attacker or a careless client sends it (docs/operations.md, "Input limits";
 * docs/identity-and-tenancy.md, "User names"; docs/http-and-xml.md): work bounded before any
 * transform, one identity per user name, dates checked on the stored instant, strict media types
 * and XML, problem bodies for every 404, and ids that say nothing about another site.
 */
describe(`hostile input (${DB_KIND})`, () => {
  let t: TestApp;
  let site: TestSite;
  beforeAll(async () => {
    t = await startApp();
    site = await createSite(t);
  });
  afterAll(async () => {
    await t.close();
  });

  // Bytes go out as they are (superagent would write a Buffer sent as JSON as a JSON object).
  const post = (path: string, contentType: string, body: string | Buffer, token = t.adminToken) =>
    t
      .http()
      .post(path)
      .set('Authorization', bearer(token))
      .set('Content-Type', contentType)
      .serialize((b: unknown) => b as string)
      .send(body);

  describe('bodies whose size is allowed but whose shape would cost seconds', () => {
    const manyKeys = (n: number, extra: Record<string, unknown> = {}) => {
      const o: Record<string, unknown> = { ...extra };
      for (let i = 0; i < n; i++) o[i.toString(36)] = 1;
      return JSON.stringify(o);
    };

    it('refuses the 120,000-key anonymous login body (1 MB, under the byte limit) with 400 naming the limit', async () => {
      const body = manyKeys(120_000, { UserName: 'x', Password: 'y' });
      expect(body.length).toBeLessThan(1024 * 1024);
      const res = await t.http().post('/v4/auth/token').set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        type: 'urn:pms:problem:body-too-complex',
        detail: `An object or array of the body has more than ${BODY_LIMITS.membersPerObject.toLocaleString('en-US')} members`,
      });
      // The instance is free: the next request is answered as usual.
      await t.http().get('/health/live').expect(200);
    });

    it('refuses 70,000 XML elements the same way', async () => {
      const body =
        '<TokenRequest xmlns="urn:pms:v4"><UserName>x</UserName><Password>y</Password>' +
        Array.from({ length: 70_000 }, (_, i) => `<a${i.toString(36)}/>`).join('') +
        '</TokenRequest>';
      const res = await t.http().post('/v4/auth/token').set('Content-Type', 'application/xml').set('Accept', 'application/xml').send(body);
      expect(res.status).toBe(400);
      expect(res.text).toContain('<type>urn:pms:problem:body-too-complex</type>');
    });

    it('reads an object of exactly the member limit as usual (unknown keys are dropped, not refused) and refuses one more', async () => {
      const atLimit = manyKeys(BODY_LIMITS.membersPerObject - 2, { UserName: ADMIN_USER, Password: ADMIN_PASSWORD });
      const ok = await t.http().post('/v4/auth/token').set('Content-Type', 'application/json').send(atLimit);
      expect(ok.status).toBe(200);
      const over = manyKeys(BODY_LIMITS.membersPerObject - 1, { UserName: ADMIN_USER, Password: ADMIN_PASSWORD });
      expect((await t.http().post('/v4/auth/token').set('Content-Type', 'application/json').send(over)).status).toBe(400);
    });

    it('counts keys and items in all, across nested objects and arrays', async () => {
      const chunk = Object.fromEntries(Array.from({ length: 900 }, (_, i) => [`k${i}`, 1]));
      const body = JSON.stringify({ Name: 'Wide', X: Array.from({ length: 12 }, () => chunk) });
      const res = await post('/v4/departments', 'application/json', body);
      expect(res.status).toBe(400);
      expect(res.body.detail).toBe(`The body has more than ${BODY_LIMITS.totalMembers.toLocaleString('en-US')} keys and array items`);
    });

    it('refuses one string longer than the string limit, and takes the longest text a field allows', async () => {
      const long = await post('/v4/departments', 'application/json', JSON.stringify({ Name: 'Long', X: 'a'.repeat(BODY_LIMITS.stringBytes + 1) }));
      expect(long.status).toBe(400);
      expect(long.body.type).toBe('urn:pms:problem:body-too-complex');
      const xml = await post(
        '/v4/departments',
        'application/xml',
        `<Organization xmlns="urn:pms:v4"><Name>Long</Name><X>${'a'.repeat(BODY_LIMITS.stringBytes + 1)}</X></Organization>`,
      );
      expect(xml.status).toBe(400);
      // A 10,000-character description, every character an escaped emoji: well inside the limit.
      const text = '😀'.repeat(5000);
      const escaped = JSON.stringify({ Name: 'Emoji', Description: text }).replace(/[\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
      const ok = await post('/v4/departments', 'application/json', escaped);
      expect(ok.status).toBe(200);
      expect(ok.body.Description).toBe(text);
    });
  });

  describe('one identity per user name', () => {
    let victim: { userName: string; password: string };
    beforeAll(async () => {
      victim = { userName: `lock.target.${randomUUID().slice(0, 6)}`, password: 'lock-password-1' };
      const res = await newPerson(victim.userName, victim.password);
      expect({ status: res.status, body: res.status === 200 ? null : res.body }).toEqual({ status: 200, body: null });
    });

    const newPerson = (UserName: string, Password?: string) =>
      post(
        '/v4/individuals',
        'application/json',
        JSON.stringify({
          FirstName: 'Lock',
          LastName: 'Target',
          UserName,
          Password,
          Email: 'lock@example.test',
          UserEmail: 'lock@example.test',
          PrimaryOrganizationID: site.orgId,
          PrimaryTitle: 'Tester',
          PrimaryReportsTo: null,
        }),
        site.admin.token,
      );
    const login = (UserName: string, Password: string) => t.http().post('/v4/auth/token').set('Content-Type', 'application/json').send({ UserName, Password });
    const fullWidth = (s: string) => [...s].map((c) => (c >= '!' && c <= '~' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('');

    it('refuses invisible and control characters in a new user name, and takes a full-width twin as a duplicate', async () => {
      for (const name of ['zero\u200bwidth', 'nul\u0000name', '\u202eoverride']) {
        const res = await newPerson(name);
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([expect.objectContaining({ field: 'UserName', message: expect.stringContaining('invisible') })]);
      }
      const twin = await newPerson(fullWidth(victim.userName.toUpperCase()));
      expect(twin.status).toBe(409);
      expect(twin.body.type).toBe('urn:pms:problem:duplicate-username');
    });

    it('locks the account after 10 failures under every spelling that names it, and no look-alike logs in', async () => {
      for (let i = 1; i < 10; i++) expect((await login(victim.userName, `wrong-${i}`)).status).toBe(401);
      expect((await login(victim.userName, 'wrong-10')).status).toBe(429);
      // The same name in other forms: the same key, so the same lock, even with the right password.
      for (const variant of [victim.userName.toUpperCase(), fullWidth(victim.userName)]) {
        const res = await login(variant, victim.password);
        expect({ variant, status: res.status }).toEqual({ variant, status: 429 });
      }
      // Names a lenient collation would match: refused, or another (unknown) name — never this account.
      for (const variant of [`${victim.userName}\u0000`, `${victim.userName}\u200b`, `\u200b${victim.userName}`]) {
        const res = await login(variant, victim.password);
        expect({ variant, status: res.status, type: res.body.type }).toEqual({ variant, status: 400, type: 'urn:pms:problem:validation-failed' });
      }
      const accented = victim.userName.replace('o', 'ó');
      const res = await login(accented, victim.password);
      expect(res.status).toBe(401);
      expect(res.body.access_token).toBeUndefined();
    });

    it('logs in under the full-width and upper-case forms of a name that is not locked', async () => {
      const person = await createPerson(t, site, { password: 'free-password-1' });
      for (const variant of [person.userName.toUpperCase(), fullWidth(person.userName)]) {
        const res = await login(variant, 'free-password-1');
        expect({ variant, status: res.status }).toEqual({ variant, status: 200 });
      }
    });
  });

  describe('dates at the edge of the stored range', () => {
    it.each([
      ['EndDate', { Name: 'Edge', StartDate: '2026-01-01T00:00:00Z', EndDate: '9999-12-31T23:59:59.999-14:00' }],
      ['StartDate', { Name: 'Edge', StartDate: '1000-01-01T00:00:00+14:00', EndDate: '2026-12-31T00:00:00Z' }],
    ])('refuses a %s whose UTC instant leaves the years 1000-9999 with 400 naming it (it was a 500)', async (field, body) => {
      const res = await post('/v4/periods', 'application/json', JSON.stringify(body));
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ field })]);
    });

    it('takes the last instant of 9999 in any offset, on create and update, and answers it as stored', async () => {
      const created = await post(
        '/v4/periods',
        'application/json',
        JSON.stringify({ Name: 'Far', StartDate: '2026-01-01T00:00:00Z', EndDate: '9999-12-31T09:59:59.999-14:00' }),
      );
      expect(created.status).toBe(200);
      expect(created.body.EndDate).toBe('9999-12-31T23:59:59.999+00:00');
      const put = await t
        .http()
        .put(`/v4/periods/${created.body.ID}`)
        .set('Authorization', bearer(t.adminToken))
        .send({ ...created.body, EndDate: '9999-12-31T23:59:59.999-00:01' });
      expect(put.status).toBe(400);
      expect(put.body.errors).toEqual([expect.objectContaining({ field: 'EndDate' })]);
      const project = await post(
        '/v4/projects',
        'application/json',
        JSON.stringify({
          Name: 'Edge project',
          OwnerID: (await t.http().get('/v4/me').set('Authorization', bearer(t.adminToken))).body.ID,
          StartDate: '9999-12-31T20:00:00-05:00',
        }),
      );
      expect(project.status).toBe(400);
      expect(project.body.errors).toEqual([expect.objectContaining({ field: 'StartDate' })]);
    });
  });

  describe('strict input', () => {
    it.each([
      ['JSON', 'application/json', Buffer.concat([Buffer.from('{"Name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])],
      [
        'XML',
        'application/xml',
        Buffer.concat([Buffer.from('<Organization xmlns="urn:pms:v4"><Name>'), Buffer.from([0xc3, 0x28]), Buffer.from('</Name></Organization>')]),
      ],
    ])('refuses %s that is not valid UTF-8 with 400 instead of storing U+FFFD', async (_kind, contentType, body) => {
      const res = await post('/v4/departments', contentType, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: 'urn:pms:problem:malformed-body', detail: 'The body is not valid UTF-8' });
    });

    it('refuses a login form that is not valid UTF-8', async () => {
      const res = await t
        .http()
        .post('/v4/auth/token')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send(Buffer.concat([Buffer.from('grant_type=password&username=adm'), Buffer.from([0xe9]), Buffer.from('&password=x')]));
      expect(res.status).toBe(400);
    });

    it.each([
      [
        'two roots',
        '<Organization xmlns="urn:pms:v4"><Name>a</Name></Organization><Organization xmlns="urn:pms:v4"><Name>b</Name></Organization>',
        'more than one root',
      ],
      ['a raw U+0001', '<Organization xmlns="urn:pms:v4"><Name>a\u0001b</Name></Organization>', 'U+0001'],
      ['a reference to U+0001', '<Organization xmlns="urn:pms:v4"><Name>a&#x1;b</Name></Organization>', '&#x1;'],
      [
        'a UTF-16 declaration over UTF-8 bytes',
        '<?xml version="1.0" encoding="utf-16"?><Organization xmlns="urn:pms:v4"><Name>a</Name></Organization>',
        'utf-16',
      ],
      ['another namespace', '<Organization xmlns="urn:not-ours"><Name>a</Name></Organization>', 'urn:not-ours'],
      ['a prefixed root in another namespace', '<p:Organization xmlns:p="urn:not-ours"><p:Name>a</p:Name></p:Organization>', 'urn:not-ours'],
    ])('refuses XML with %s with 400, writing nothing', async (_what, body, detail) => {
      const before = (await t.http().get('/v4/departments?limit=1').set('Authorization', bearer(t.adminToken))).headers['x-total-count'];
      const res = await post('/v4/departments', 'application/xml', body);
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('urn:pms:problem:malformed-body');
      expect(res.body.detail).toContain(detail);
      const after = (await t.http().get('/v4/departments?limit=1').set('Authorization', bearer(t.adminToken))).headers['x-total-count'];
      expect(after).toBe(before);
    });

    it('reads XML that declares UTF-8, our namespace through a prefix, or no namespace', async () => {
      for (const body of [
        '<?xml version="1.0" encoding="UTF-8"?><Organization xmlns="urn:pms:v4"><Name>Declared</Name></Organization>',
        '<p:Organization xmlns:p="urn:pms:v4"><p:Name>Prefixed</p:Name></p:Organization>',
        '<Organization><Name>Bare</Name></Organization>',
      ]) {
        const res = await post('/v4/departments', 'application/xml', body);
        expect({ body, status: res.status }).toEqual({ body, status: 200 });
      }
    });

    it.each(['application/vnd.api+json', 'application/problem+json', 'application/merge-patch+json', 'application/soap+xml', 'text/plain'])(
      'answers a body of type %s with 415',
      async (contentType) => {
        const res = await post('/v4/departments', contentType, '{"Name":"x"}');
        expect(res.status).toBe(415);
        expect(res.body.type).toBe('urn:pms:problem:unsupported-media-type');
      },
    );

    it.each(['//v4//departments', '/nothing/here', '/v4x/sites'])('answers %s with a 404 problem body in the negotiated format', async (path) => {
      const json = await t.http().get(path).set('Authorization', bearer(t.adminToken));
      expect(json.status).toBe(404);
      expect(json.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(json.body.type).toBe('urn:pms:problem:not-found');
      const xml = await t.http().get(path).set('Authorization', bearer(t.adminToken)).set('Accept', 'application/xml');
      expect(xml.status).toBe(404);
      expect(xml.headers['content-type']).toMatch(/^application\/problem\+xml/);
      expect(xml.text).toContain('<type>urn:pms:problem:not-found</type>');
    });

    it('sends GET / to Swagger UI', async () => {
      const res = await t.http().get('/');
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/docs');
    });
  });

  describe('ids taken in another site', () => {
    it('answers a create with an id used in another site exactly as one used in this site, naming no record', async () => {
      const own = await post('/v4/departments', 'application/json', JSON.stringify({ Name: 'Own' }));
      const elsewhere = await post('/v4/departments', 'application/json', JSON.stringify({ Name: 'Elsewhere' }), site.admin.token);
      expect(own.status).toBe(200);
      expect(elsewhere.status).toBe(200);
      const again = await post('/v4/departments', 'application/json', JSON.stringify({ ID: own.body.ID, Name: 'Again' }));
      const foreign = await post('/v4/departments', 'application/json', JSON.stringify({ ID: elsewhere.body.ID, Name: 'Foreign' }));
      expect(again.status).toBe(409);
      expect(foreign.status).toBe(409);
      const strip = (b: Record<string, unknown>, id: string) => ({ ...b, detail: String(b.detail).replace(id, '<id>'), requestId: undefined });
      expect(strip(foreign.body, elsewhere.body.ID)).toEqual(strip(again.body, own.body.ID));
      expect(foreign.body.detail).not.toMatch(/site|exists|Organization/i);
    });
  });
});

describe(`request bodies that never finish (${DB_KIND})`, () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startApp({ REQUEST_TIMEOUT_MS: '1500', DB_ACQUIRE_TIMEOUT_MS: '1000', DB_QUERY_TIMEOUT_MS: '1000' });
    const server = t.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await t.close();
  });

  /** Sends `head` and then nothing; resolves with what came back and when the connection closed. */
  const halfSend = (head: string) =>
    new Promise<{ text: string; ms: number }>((resolve) => {
      const started = Date.now();
      let text = '';
      const socket = connect(port, '127.0.0.1', () => socket.write(head));
      socket.on('data', (d) => (text += String(d)));
      socket.on('close', () => resolve({ text, ms: Date.now() - started }));
      socket.on('error', () => undefined);
    });

  it('answers 408 and closes the connection of a body that stops halfway (anonymous login route), within the request timeout', async () => {
    const res = await halfSend('POST /v4/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"UserName"');
    expect(res.text).toMatch(/^HTTP\/1\.1 408/);
    // Node checks once a second: the connection is gone within the timeout and that check.
    expect(res.ms).toBeLessThan(1500 + 2500);
  });

  it('closes a connection whose headers never end', async () => {
    const res = await halfSend('GET /health/live HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n');
    expect(res.text).toMatch(/^HTTP\/1\.1 408/);
    expect(res.ms).toBeLessThan(1500 + 2500);
  });
});

describe(`the character set of the database (${DB_KIND})`, () => {
  const HARD = ['emoji 😀🎉', 'combining e\u0301\u0302', 'right-to-left \u202eoverride', 'CJK 山田', 'astral 𝔘𝔫𝔦𝔠𝔬𝔡𝔢'];

  it('stores and answers every character a client may send', async () => {
    const t = await startApp();
    try {
      for (const name of HARD) {
        const res = await t.http().post('/v4/departments').set('Authorization', bearer(t.adminToken)).send({ Name: name });
        expect({ name, status: res.status }).toEqual({ name, status: 200 });
        const read = await t.http().get(`/v4/departments/${res.body.ID}`).set('Authorization', bearer(t.adminToken));
        expect(read.body.Name).toBe(name);
      }
    } finally {
      await t.close();
    }
  });

  if (DB_KIND === 'mysql') {
    it('starts an empty database created in latin1 in utf8mb4, and refuses to start on a table changed back, with one line saying what to run', async () => {
      const { url, cleanup } = await createTestDatabase();
      const db = parseDatabaseUrl(url);
      if (db.kind !== 'mysql') throw new Error('unreachable');
      const admin = await mysql.createConnection({ host: db.host, port: db.port, user: db.username, password: db.password, database: db.database });
      const start = () =>
        createApp(
          loadConfig({ NODE_ENV: 'test', DATABASE_URL: url, JWT_SECRET: 'j'.repeat(40), ADMIN_USERNAME: ADMIN_USER, ADMIN_PASSWORD, LOG_LEVEL: 'silent' }),
          new JsonLogger('silent', () => undefined),
        );
      try {
        await admin.query(`ALTER DATABASE \`${db.database}\` CHARACTER SET latin1 COLLATE latin1_swedish_ci`);
        const app = await start();
        try {
          const [tables] = await admin.query(
            "SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_COLLATION NOT LIKE 'utf8mb4%'",
          );
          expect(Number((tables as { n: number }[])[0].n)).toBe(0);
          const { default: request } = await import('supertest');
          const login = await request(app.getHttpServer()).post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD });
          for (const name of HARD) {
            const res = await request(app.getHttpServer()).post('/v4/departments').set('Authorization', bearer(login.body.access_token)).send({ Name: name });
            expect({ name, status: res.status, stored: res.body.Name }).toEqual({ name, status: 200, stored: name });
          }
        } finally {
          await app.close();
        }
        // Changed back by hand (a table no foreign key points at).
        await admin.query('ALTER TABLE sites CONVERT TO CHARACTER SET latin1');
        const refused = await start().then(
          () => null,
          (e: Error) => e,
        );
        expect(refused?.message).toMatch(
          /not utf8mb4 \(sites\.\w+ is latin1.*\) and cannot hold every character; convert them with: ALTER TABLE `sites` CONVERT TO CHARACTER SET utf8mb4/,
        );
        expect(refused?.message).not.toContain('\n');
      } finally {
        await admin.end();
        await cleanup();
      }
    });
  }
});
