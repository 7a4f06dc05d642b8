import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { bearer, startApp, type TestApp } from './harness.js';

/**
 * Answers of 1 KB or more in a compressible media type go out compressed when the client accepts
 * it (docs/http-and-xml.md, "Compression"): the OpenAPI document, Swagger UI's assets, lists in
 * JSON and XML alike; small answers, and clients that do not ask, get the bytes
 * as they are. Read with node:http, which (unlike supertest) does not decompress for us.
 */
interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function rawGet(port: number, path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function decode(r: Raw): Buffer {
  const coding = r.headers['content-encoding'];
  if (coding === 'gzip') return gunzipSync(r.body);
  if (coding === 'br') return brotliDecompressSync(r.body);
  expect(coding).toBeUndefined();
  return r.body;
}

describe.each([
  ['on', {}],
  ['off', { COMPRESSION: 'off' }],
] as const)('compression %s', (mode, env) => {
  let t: TestApp;
  let port: number;
  let auth: Record<string, string>;
  const on = mode === 'on';

  beforeAll(async () => {
    t = await startApp(env);
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    auth = { Authorization: bearer(t.adminToken) };
    // Enough units that the list is well over 1 KB in either media type.
    const root = await t.http().get('/v4/organizations').set('Authorization', bearer(t.adminToken)).expect(200);
    const parent = (root.body as Array<{ ID: string }>)[0].ID;
    for (let i = 0; i < 12; i++) {
      await t
        .http()
        .post('/v4/departments')
        .set('Authorization', bearer(t.adminToken))
        .send({ Name: `Unit ${i}`, Description: `The unit numbered ${i}`, RowType: 56, Rank: i, ParentID: parent })
        .expect(200);
    }
  });
  afterAll(() => t?.close());

  const cases: Array<[string, string, Record<string, string>, RegExp]> = [
    ['the OpenAPI document', '/docs/openapi.json', {}, /^application\/json/],
    ["Swagger UI's script", '/docs/swagger-ui-bundle.js', {}, /javascript/],
    ["Swagger UI's style sheet", '/docs/swagger-ui.css', {}, /^text\/css/],
    ['a JSON list', '/v4/departments', { Accept: 'application/json' }, /^application\/json/],
    ['an XML list', '/v4/departments', { Accept: 'application/xml' }, /^application\/xml/],
  ];

  it.each(cases)('%s: br or gzip as asked, the same bytes once decoded, Vary: Accept-Encoding', async (_name, path, extra, type) => {
    const withAuth = path.startsWith('/v4') ? { ...auth, ...extra } : extra;
    const plain = await rawGet(port, path, withAuth);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toMatch(type);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);

    for (const [accept, coding] of [
      ['gzip', 'gzip'],
      ['br', 'br'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0.5, gzip', 'gzip'],
    ] as const) {
      const r = await rawGet(port, path, { ...withAuth, 'Accept-Encoding': accept });
      expect(r.status).toBe(200);
      expect(r.headers['content-encoding']).toBe(on ? coding : undefined);
      if (on) {
        expect(r.headers.vary ?? '').toMatch(/Accept-Encoding/i);
        expect(r.body.length).toBeLessThan(plain.body.length / 2);
      }
      expect(decode(r).equals(plain.body)).toBe(true);
    }
    // A client that takes only the bytes as they are gets them.
    const identity = await rawGet(port, path, { ...withAuth, 'Accept-Encoding': 'identity' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.equals(plain.body)).toBe(true);
  });

  it('leaves an answer under 1 KB as it is, even when the client accepts gzip', async () => {
    const r = await rawGet(port, `/v4/sites/${t.defaultSiteId}`, { ...auth, 'Accept-Encoding': 'gzip, br' });
    expect(r.status).toBe(200);
    expect(r.body.length).toBeLessThan(1024);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(r.body.toString('utf8')).ID).toBe(t.defaultSiteId);
  });

  it('keeps the ETag and answers If-None-Match with 304 whatever the coding', async () => {
    const path = `/v4/sites/${t.defaultSiteId}`;
    const plain = await rawGet(port, path, auth);
    const zipped = await rawGet(port, path, { ...auth, 'Accept-Encoding': 'gzip' });
    expect(zipped.headers.etag).toBe(plain.headers.etag);
    const again = await rawGet(port, path, { ...auth, 'Accept-Encoding': 'gzip', 'If-None-Match': String(plain.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });
});
