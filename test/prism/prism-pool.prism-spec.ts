import request from 'supertest';
import { startApp, TestApp } from '../e2e/harness.js';
import { serveAt, startPrism, type PrismProxy } from '../e2e/prism.js';

/**
 * The Prism runs (npm run test:prism, test:prism:all) are only worth what their proxy finds. This
 * holds the machinery itself — the run's Prisms shared through the pool (test/e2e/prism-pool.mjs),
 * the switch that hands each request to its app, and the relay of each app: a documented exchange
 * is validated and found fine, an answer the document does not declare and a request the document
 * refuses but the service takes are both found, and one document is served by one Prism however
 * many apps use it.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("Prism's validating proxy, as the Prism runs use it", () => {
  let t: TestApp;
  let served: { url: string; close: () => Promise<void> };
  let document: Json;
  const proxies: PrismProxy[] = [];

  /** A relay to the run's Prism for `doc`, in front of this file's app. */
  async function proxy(doc: Json): Promise<PrismProxy> {
    const p = await startPrism(served.url, JSON.stringify(doc));
    proxies.push(p);
    return p;
  }
  /** The document with the 200 JSON answer of GET /health/live changed by `change`. */
  function alteredLive(change: (get: Json) => void): Json {
    const doc = structuredClone(document);
    change(doc.paths['/health/live'].get);
    return doc;
  }

  beforeAll(async () => {
    t = await startApp();
    served = await serveAt(t.app.getHttpServer());
    document = (await request(t.app.getHttpServer()).get('/docs/openapi.json').expect(200)).body as Json;
  });
  afterAll(async () => {
    for (const p of proxies) await p.close();
    await served?.close();
    await t?.close();
  });

  it('validates a documented request and its answer, and finds nothing', async () => {
    const p = await proxy(document);
    const res = await request(p.url).get('/health/live').set('Accept', 'application/json').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect({ validated: p.validated, findings: p.findings, refusedByBoth: p.refusedByBoth }).toEqual({ validated: 1, findings: [], refusedByBoth: 0 });
  });

  it('finds an answer the document does not declare', async () => {
    const p = await proxy(
      alteredLive((get) => {
        get.responses['200'].content['application/json'].schema = {
          type: 'object',
          required: ['NotAnswered'],
          properties: { NotAnswered: { type: 'string' } },
        };
      }),
    );
    await request(p.url).get('/health/live').set('Accept', 'application/json');
    expect(p.findings).toHaveLength(1);
    expect(p.findings[0]).toMatch(/^GET \/health\/live: Prism found the answer breaks the document: .*NotAnswered/);
  });

  it('finds a request the document refuses but the service takes, and counts one both refuse', async () => {
    const p = await proxy(
      alteredLive((get) => {
        get.parameters = [...(get.parameters ?? []), { name: 'probe', in: 'query', required: true, schema: { type: 'string' } }];
      }),
    );
    // The service does not know `probe`: it answers 200, which the document (requiring it) says it must not.
    const res = await request(p.url).get('/health/live').set('Accept', 'application/json').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(p.findings).toHaveLength(1);
    expect(p.findings[0]).toMatch(
      /^GET \/health\/live \(no body\): Prism refused the request \(UNPROCESSABLE_ENTITY: .*probe.*\) but the service answered 200$/,
    );
    // A request the service refuses as well (no token) is a case meant to be invalid, not a finding.
    const refused = await proxy(document);
    await request(refused.url).get('/v4/individuals').set('Accept', 'application/json').expect(401);
    expect({ findings: refused.findings }).toEqual({ findings: [] });
  });

  it('serves one document by one Prism whatever the apps that use it, and another document by another', async () => {
    const [a, b] = [await proxy(document), await proxy(document)];
    const other = await proxy(alteredLive((get) => (get.description = 'another document')));
    expect(a.prismPid).toBe(b.prismPid);
    expect(other.prismPid).not.toBe(a.prismPid);
    // Each relay's requests reach this app through the shared Prism and are counted by that relay alone.
    await request(a.url).get('/health/live').set('Accept', 'application/json').expect(200);
    await request(a.url).get('/health/live').set('Accept', 'application/json').expect(200);
    await request(b.url).get('/health/live').set('Accept', 'application/json').expect(200);
    expect([a.validated, b.validated]).toEqual([2, 1]);
  });
});
