import { jest } from '@jest/globals';
import { parametersOf } from './contract.js';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceUnavailableError } from '../../src/common/errors/errors.js';
import { WireCodec } from '../../src/http/wire/codec.js';
import { IdempotencyStore } from '../../src/database/idempotency-store.js';
import { IdempotencySweeper } from '../../src/modules/idempotency/idempotency-sweeper.js';
import { IdempotencyKeyEntity, IdempotencyKeyMysqlEntity } from '../../src/database/entities/idempotency-key.entity.js';
import { requestFingerprint, sha256Hex } from '../../src/http/pipeline/idempotency.js';
import { ProjectEntity } from '../../src/database/entities/project.entity.js';
import { bearer, createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { DB_KIND, startApp, TestApp } from './harness.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Safe retries with Idempotency-Key (docs/idempotency.md), against the real app and database:
 * the same key and request replay the first answer without writing again — also when the first
 * answer never reached the client, or was an error raised after the commit — in any format and
 * time zone; a different request is 409; keys are the caller's own; failures are not stored;
 * expired keys are swept.
 */
describe(`Idempotency-Key (${DB_KIND})`, () => {
  let t: TestApp;
  let site: TestSite;
  let other: TestPerson;
  let secondAdmin: TestPerson;
  let foreign: TestSite;
  const xml = new WireCodec('urn:pms:v4');

  beforeAll(async () => {
    t = await startApp();
    site = await createSite(t);
    other = await createPerson(t, site);
    secondAdmin = await createPerson(t, site, { isAdmin: true });
    foreign = await createSite(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const key = () => `k-${randomUUID()}`;
  const project = (name: string, owner: TestPerson = site.admin) => ({
    Name: name,
    OwnerID: owner.individualId,
    StartDate: '2026-03-01T09:30:00.000+00:00',
    DueDate: '2026-06-30T17:00:00.000+00:00',
  });
  const post = (body: object, idemKey?: string, who: TestPerson = site.admin, query = '') => {
    const req = t.http().post(`/v4/projects${query}`).set('Authorization', bearer(who.token)).send(body);
    return idemKey === undefined ? req : req.set('Idempotency-Key', idemKey);
  };
  const projectsNamed = (name: string) => t.ds.getRepository(ProjectEntity).count({ where: { name } });
  const storedKeys = async () => Number((await t.ds.query('SELECT COUNT(*) AS n FROM idempotency_keys'))[0].n);

  describe('a retry with the same key and body', () => {
    it('replays the first answer (status, body, ETag) and writes nothing again', async () => {
      const k = key();
      const name = `Replay ${k}`;
      const first = await post(project(name), k);
      expect(first.status).toBe(200);
      expect(first.headers['idempotency-replayed']).toBeUndefined();

      const again = await post(project(name), k);
      expect(again.status).toBe(first.status);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(again.text).toBe(first.text);
      expect(again.headers.etag).toBe(first.headers.etag);
      expect(await projectsNamed(name)).toBe(1);
    });

    it('treats the body as parsed: key order and whitespace do not make another request', async () => {
      const k = key();
      const name = `Order ${k}`;
      const first = await post(project(name), k);
      const body = project(name);
      const reordered = JSON.stringify({ DueDate: body.DueDate, StartDate: body.StartDate, OwnerID: body.OwnerID, Name: body.Name }, null, 2);
      const again = await t
        .http()
        .post('/v4/projects')
        .set('Authorization', bearer(site.admin.token))
        .set('Content-Type', 'application/json')
        .set('Idempotency-Key', k)
        .send(reordered);
      expect(again.status).toBe(200);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.body.ID).toBe(first.body.ID);
      expect(await projectsNamed(name)).toBe(1);
    });

    it('replays a JSON answer as XML, exactly as a read of the record is written, and back', async () => {
      const k = key();
      const name = `Xml ${k}`;
      const first = await post(project(name), k);
      const asXml = await post(project(name), k).set('Accept', 'application/xml');
      expect(asXml.status).toBe(200);
      expect(asXml.headers['content-type']).toMatch(/^application\/xml/);
      expect(asXml.headers['idempotency-replayed']).toBe('true');
      const read = await t.http().get(`/v4/projects/${first.body.ID}`).set('Authorization', bearer(site.admin.token)).set('Accept', 'application/xml');
      expect(asXml.text).toBe(read.text);
      expect(asXml.headers.etag).toBe(read.headers.etag);
      const decoded = (await xml.decodeXml(asXml.text)) as Record<string, string>;
      expect(decoded.ID).toBe(first.body.ID);

      const asJson = await post(project(name), k);
      expect(asJson.text).toBe(first.text);
      expect(await projectsNamed(name)).toBe(1);
    });

    it('replays an XML answer as JSON', async () => {
      const k = key();
      const name = `FromXml ${k}`;
      const first = await post(project(name), k).set('Accept', 'text/xml');
      expect(first.status).toBe(200);
      expect(first.headers['content-type']).toMatch(/^text\/xml/);
      const id = ((await xml.decodeXml(first.text)) as Record<string, string>).ID;

      const asJson = await post(project(name), k);
      expect(asJson.headers['idempotency-replayed']).toBe('true');
      const read = await t.http().get(`/v4/projects/${id}`).set('Authorization', bearer(site.admin.token));
      expect(asJson.body).toEqual(read.body);
      expect(asJson.text).toBe(read.text);
      expect(await projectsNamed(name)).toBe(1);
    });

    it('writes the replayed dates in the time zone the retry asks for', async () => {
      const k = key();
      const name = `Tz ${k}`;
      const first = await post(project(name), k);
      expect(first.body.StartDate).toBe('2026-03-01T09:30:00.000+00:00');
      const inBerlin = await post(project(name), k, site.admin, '?tz=Europe/Berlin');
      expect(inBerlin.headers['idempotency-replayed']).toBe('true');
      expect(inBerlin.body.StartDate).toBe('2026-03-01T10:30:00.000+01:00');
      expect(inBerlin.body.DueDate).toBe('2026-06-30T19:00:00.000+02:00');
      expect(new Date(inBerlin.body.Created).getTime()).toBe(new Date(first.body.Created).getTime());
      expect(inBerlin.body.Created).toMatch(/\+0[12]:00$/);
      // XML's DateTimeOffset carries the offset of the zone as well.
      const inXml = await post(project(name), k, site.admin, '?tz=%2B05:30').set('Accept', 'application/xml');
      expect(inXml.text).toContain('<StartDate>2026-03-01T15:00:00.000+05:30</StartDate>');
      expect(await projectsNamed(name)).toBe(1);
    });

    it('makes a PUT retried after its If-Match moved the version answer the first success, not 412', async () => {
      const created = await post(project(`Put ${randomUUID()}`));
      const id = created.body.ID as string;
      const k = key();
      const change = { ID: id, Name: `Put renamed ${k}`, DueDate: '2026-09-30T17:00:00.000+00:00' };
      const put = (idemKey?: string) => {
        const req = t.http().put(`/v4/projects/${id}`).set('Authorization', bearer(site.admin.token)).set('If-Match', created.headers.etag).send(change);
        return idemKey ? req.set('Idempotency-Key', idemKey) : req;
      };
      const first = await put(k);
      expect(first.status).toBe(200);
      expect(first.body.DueDateChanges).toBe(1);
      const again = await put(k);
      expect(again.status).toBe(200);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      // Without the key the same retry is refused: the record has moved on.
      expect((await put()).status).toBe(412);
      const read = await t.http().get(`/v4/projects/${id}`).set('Authorization', bearer(site.admin.token));
      expect(read.body.DueDateChanges).toBe(1);
    });
  });

  describe('an answer lost after the commit', () => {
    it('is replayed when the connection dropped before the client read the answer', async () => {
      const server = t.app.getHttpServer() as http.Server;
      if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const k = key();
      const name = `Lost ${k}`;
      const payload = JSON.stringify(project(name));
      // The client drops the connection as soon as the first byte of the answer arrives: it never
      // learns whether the write happened.
      await new Promise<void>((resolve) => {
        const req = http.request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v4/projects',
          headers: {
            Authorization: bearer(site.admin.token),
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(payload),
            'Idempotency-Key': k,
          },
        });
        req.on('socket', (socket) => {
          socket.once('data', () => {
            socket.destroy();
            resolve();
          });
        });
        req.on('error', () => resolve());
        req.end(payload);
      });
      expect(await projectsNamed(name)).toBe(1);

      const retry = await post(project(name), k);
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotency-replayed']).toBe('true');
      const stored = await t.ds.getRepository(ProjectEntity).findOneByOrFail({ name });
      expect(retry.body.ID).toBe(stored.id);
      expect(await projectsNamed(name)).toBe(1);
    });

    it('is replayed when the first answer was a 503 raised after the commit', async () => {
      const codec = t.app.get(WireCodec);
      const k = key();
      const name = `After commit ${k}`;
      const spy = jest.spyOn(codec, 'encode').mockImplementationOnce(() => {
        throw new ServiceUnavailableError('simulated failure after the commit', 1);
      });
      try {
        const first = await post(project(name), k);
        expect(first.status).toBe(503);
        expect(first.headers['retry-after']).toBe('1');
      } finally {
        spy.mockRestore();
      }
      expect(await projectsNamed(name)).toBe(1);

      const retry = await post(project(name), k);
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotency-replayed']).toBe('true');
      expect(retry.body.ID).toBe((await t.ds.getRepository(ProjectEntity).findOneByOrFail({ name })).id);
      expect(await projectsNamed(name)).toBe(1);
    });

    it('(without a key, the same blind retry writes the record twice)', async () => {
      const codec = t.app.get(WireCodec);
      const name = `Blind ${randomUUID()}`;
      const spy = jest.spyOn(codec, 'encode').mockImplementationOnce(() => {
        throw new ServiceUnavailableError('simulated failure after the commit', 1);
      });
      try {
        expect((await post(project(name))).status).toBe(503);
      } finally {
        spy.mockRestore();
      }
      expect((await post(project(name))).status).toBe(200);
      expect(await projectsNamed(name)).toBe(2);
    });
  });

  describe('a key whose claim committed without its answer (a transaction the database half-committed)', () => {
    it('is free again: the retry writes the record once instead of failing, and is replayed after that', async () => {
      const k = key();
      const name = `Leftover ${k}`;
      // What a half-committed transaction left: the key's claimed row, with no answer stored in it.
      const now = new Date();
      await t.ds.getRepository(DB_KIND === 'sqlite' ? IdempotencyKeyEntity : IdempotencyKeyMysqlEntity).insert({
        siteId: site.siteId,
        userId: site.admin.userId,
        keyHash: sha256Hex(k),
        fingerprint: requestFingerprint('POST', '/v4/projects', project(name)),
        request: 'POST /v4/projects',
        status: 0,
        answer: '',
        created: now,
        expires: new Date(now.getTime() + 3600_000),
      });
      const retry = await post(project(name), k);
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotency-replayed']).toBeUndefined();
      const again = await post(project(name), k);
      expect(again.status).toBe(200);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.body.ID).toBe(retry.body.ID);
      expect(await projectsNamed(name)).toBe(1);
    });
  });

  describe('concurrent requests with one key', () => {
    it('write once: 6 identical requests sent at once all answer the one record', async () => {
      for (let round = 0; round < 3; round++) {
        const k = key();
        const name = `Concurrent ${k}`;
        const answers = await Promise.all([0, 1, 2, 3, 4, 5].map(() => post(project(name), k)));
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
        expect(new Set(answers.map((a) => a.body.ID)).size).toBe(1);
        expect(answers.filter((a) => a.headers['idempotency-replayed'] === undefined)).toHaveLength(1);
        expect(await projectsNamed(name)).toBe(1);
      }
    });

    it('with different bodies: one writes, the others are 409 idempotency-key-reused', async () => {
      const k = key();
      const names = [0, 1, 2, 3].map((n) => `Race ${n} ${k}`);
      const answers = await Promise.all(names.map((name) => post(project(name), k)));
      const codes = answers.map((a) => a.status).sort();
      expect(codes).toEqual([200, 409, 409, 409]);
      for (const a of answers.filter((x) => x.status === 409)) expect(a.body.type).toBe('urn:pms:problem:idempotency-key-reused');
      const counts = await Promise.all(names.map(projectsNamed));
      expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
    });
  });

  describe('a key used for another request', () => {
    it('is 409 idempotency-key-reused with another body, and writes nothing', async () => {
      const k = key();
      await post(project(`First ${k}`), k);
      const res = await post(project(`Second ${k}`), k);
      expect(res.status).toBe(409);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.type).toBe('urn:pms:problem:idempotency-key-reused');
      expect(res.body.detail).toContain('POST /v4/projects');
      expect(await projectsNamed(`Second ${k}`)).toBe(0);
    });

    it('is 409 on another path with the same body', async () => {
      const k = key();
      const first = await post(project(`Value ${k}`), k);
      expect(first.status).toBe(200);
      // The project's body is a valid core value too (its other fields are not a core value's, and dropped).
      const res = await t
        .http()
        .post('/v4/corevalues')
        .set('Authorization', bearer(site.admin.token))
        .set('Idempotency-Key', k)
        .send(project(`Value ${k}`));
      expect(res.status).toBe(409);
      expect(res.body.type).toBe('urn:pms:problem:idempotency-key-reused');
    });

    it('is 400 for a body the route refuses, whatever the key, and writes nothing', async () => {
      const k = key();
      expect((await post(project(`Valid ${k}`), k)).status).toBe(200);
      const res = await t
        .http()
        .post('/v4/accountabilities')
        .set('Authorization', bearer(site.admin.token))
        .set('Idempotency-Key', k)
        .send({ Name: `Valid ${k}` });
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('urn:pms:problem:validation-failed');
      expect(await projectsNamed(`Valid ${k}`)).toBe(1);
    });
  });

  describe('keys are per caller and site', () => {
    it('lets two callers of one site use the same key for the same body independently', async () => {
      const k = key();
      const name = `Shared key ${k}`;
      const mine = await post(project(name), k, site.admin);
      const theirs = await post(project(name), k, secondAdmin);
      expect([mine.status, theirs.status]).toEqual([200, 200]);
      expect(theirs.headers['idempotency-replayed']).toBeUndefined();
      expect(theirs.body.ID).not.toBe(mine.body.ID);
      expect(await projectsNamed(name)).toBe(2);
      // Each caller still replays their own.
      const mineAgain = await post(project(name), k, site.admin);
      expect(mineAgain.body.ID).toBe(mine.body.ID);
      const theirsAgain = await post(project(name), k, secondAdmin);
      expect(theirsAgain.body.ID).toBe(theirs.body.ID);
    });

    it('lets a caller of another site, or a plain member, use the same key with their own body', async () => {
      const k = key();
      const mine = await post(project(`Site A ${k}`), k, site.admin);
      const member = await post(project(`Member ${k}`, other), k, other);
      const abroad = await post(project(`Site B ${k}`, foreign.admin), k, foreign.admin);
      expect([mine.status, member.status, abroad.status]).toEqual([200, 200, 200]);
      expect(member.body.SiteID).toBe(site.siteId);
      expect(abroad.body.SiteID).toBe(foreign.siteId);
      expect([mine, member, abroad].every((r) => r.headers['idempotency-replayed'] === undefined)).toBe(true);
    });
  });

  describe('what is not stored', () => {
    it('a 400: the corrected retry with the same key writes, and is then replayed', async () => {
      const k = key();
      const name = `Corrected ${k}`;
      const bad = await post({ ...project(name), DueDate: 'not a date' }, k);
      expect(bad.status).toBe(400);
      expect(await projectsNamed(name)).toBe(0);
      const fixed = await post(project(name), k);
      expect(fixed.status).toBe(200);
      expect(fixed.headers['idempotency-replayed']).toBeUndefined();
      const again = await post(project(name), k);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.body.ID).toBe(fixed.body.ID);
      expect(await projectsNamed(name)).toBe(1);
    });

    it('a 409 of the write itself (id-taken) is not stored either', async () => {
      const taken = (await post(project(`Taken ${randomUUID()}`))).body.ID as string;
      const k = key();
      const name = `Free id ${k}`;
      const clash = await post({ ...project(name), ID: taken }, k);
      expect(clash.status).toBe(409);
      expect(clash.body.type).toBe('urn:pms:problem:id-taken');
      const id = randomUUID();
      const ok = await post({ ...project(name), ID: id }, k);
      expect(ok.status).toBe(200);
      expect(ok.body.ID).toBe(id);
    });

    it('nothing for requests without the header: each blind POST writes', async () => {
      const name = `No key ${randomUUID()}`;
      const before = await storedKeys();
      expect((await post(project(name))).status).toBe(200);
      expect((await post(project(name))).status).toBe(200);
      expect(await projectsNamed(name)).toBe(2);
      expect(await storedKeys()).toBe(before);
    });

    it('nothing on logging in: the public token endpoint ignores the header', async () => {
      const before = await storedKeys();
      const k = key();
      for (let i = 0; i < 2; i++) {
        const res = await t.http().post('/v4/auth/token').set('Idempotency-Key', k).send({ UserName: other.userName, Password: other.password });
        expect(res.status).toBe(200);
        expect(res.headers['idempotency-replayed']).toBeUndefined();
      }
      expect(await storedKeys()).toBe(before);
    });
  });

  describe('invalid keys', () => {
    it.each([
      ['too long', 'x'.repeat(129)],
      ['with a space', 'two words'],
      ['with a comma (the header sent twice)', 'a, b'],
      ['non-ASCII', 'clé'],
    ])('are 400 naming the header (%s), and nothing is written', async (_label, bad) => {
      const name = `Bad key ${randomUUID()}`;
      const res = await post(project(name), bad);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'Idempotency-Key', message: expect.stringContaining('128') }]);
      expect(await projectsNamed(name)).toBe(0);
    });

    it('accepts 128 characters of the allowed set', async () => {
      const k = `${randomUUID()}:AZaz09-_.~+/=`.padEnd(128, 'x');
      expect((await post(project(`Long key ${k.slice(0, 8)}`), k)).status).toBe(200);
    });
  });

  describe('OpenAPI', () => {
    it('declares the header, the replay marker and the 409 on every POST, PUT and PATCH but logging in, and nowhere else', async () => {
      type Op = { parameters?: { name: string; in: string }[]; responses: Record<string, { headers?: Record<string, unknown>; description?: string }> };
      const doc = (await t.http().get('/docs/openapi.json').expect(200)).body as { info: { description: string }; paths: Record<string, Record<string, Op>> };
      expect(doc.info.description).toContain('Idempotency-Key');
      expect(doc.info.description).toContain('24 hours');
      let writes = 0;
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          const header = parametersOf(doc, op).filter((p) => p.name === 'Idempotency-Key' && p.in === 'header');
          // A file import's body is a stream read once: it takes no key (docs/imports.md).
          const honoured = path.startsWith('/v4/') && path !== '/v4/auth/token' && path !== '/v4/imports' && ['post', 'put', 'patch'].includes(method);
          expect({ path, method, header: header.length }).toEqual({ path, method, header: honoured ? 1 : 0 });
          if (!honoured) continue;
          writes++;
          expect(op.responses['200'].headers).toHaveProperty('Idempotency-Replayed');
          expect(op.responses['409'].description).toContain('idempotency-key-reused');
        }
      }
      expect(writes).toBeGreaterThan(65);
    });
  });

  describe('expiry', () => {
    it('keeps a key for 24 hours by default; the sweep deletes it after that', async () => {
      const k = key();
      await post(project(`Sweep ${k}`), k);
      const store = t.app.get(IdempotencyStore);
      expect(await store.sweep(new Date(Date.now() + 23 * 3600 * 1000))).toBe(0);
      const count = await storedKeys();
      expect(count).toBeGreaterThan(0);
      expect(await store.sweep(new Date(Date.now() + 24 * 3600 * 1000 + 60_000))).toBe(count);
      expect(await storedKeys()).toBe(0);
      // The key is free again: the same body writes a new record.
      const again = await post(project(`Sweep ${k}`), k);
      expect(again.headers['idempotency-replayed']).toBeUndefined();
      expect(await projectsNamed(`Sweep ${k}`)).toBe(2);
    });
  });
});

describe(`Idempotency-Key expiry in the background (${DB_KIND})`, () => {
  let t: TestApp;
  let site: TestSite;
  beforeAll(async () => {
    t = await startApp({ IDEMPOTENCY_TTL_SECONDS: '1', IDEMPOTENCY_SWEEP_SECONDS: '1' });
    site = await createSite(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (name: string, k: string) =>
    t.http().post('/v4/corevalues').set('Authorization', bearer(site.admin.token)).set('Idempotency-Key', k).send({ Name: name });
  const storedKeys = async () => Number((await t.ds.query('SELECT COUNT(*) AS n FROM idempotency_keys'))[0].n);

  it('an expired key no longer replays, even before the sweep reached it', async () => {
    const k = `exp-${randomUUID()}`;
    const first = await post(`Value ${k}`, k);
    expect(first.status).toBe(200);
    await sleep(1100);
    const other = await post(`Other ${k}`, k);
    expect(other.status).toBe(200);
    expect(other.headers['idempotency-replayed']).toBeUndefined();
    expect(other.body.ID).not.toBe(first.body.ID);
  });

  it('the background sweep deletes expired keys by itself', async () => {
    const k = `bg-${randomUUID()}`;
    expect((await post(`Swept ${k}`, k)).status).toBe(200);
    expect(await storedKeys()).toBeGreaterThan(0);
    const deadline = Date.now() + 6000;
    while ((await storedKeys()) > 0 && Date.now() < deadline) await sleep(200);
    expect(await storedKeys()).toBe(0);
  });

  it('stops sweeping when the app closes', async () => {
    const sweeper = t.app.get(IdempotencySweeper);
    await sweeper.onModuleDestroy();
    const k = `stop-${randomUUID()}`;
    expect((await post(`Kept ${k}`, k)).status).toBe(200);
    await sleep(2500);
    expect(await storedKeys()).toBe(1);
  });
});
