import { bearer, startApp, TestApp } from './harness.js';
import { parametersOf } from './contract.js';
import { HttpMetrics } from '../../src/http/pipeline/http-metrics.js';
import { metricsPortOf, startMetricsServer } from '../../src/http/pipeline/metrics-server.js';
import { setTimeout as sleep } from 'node:timers/promises';

describe('HTTP conventions (docs/http-and-xml.md)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ LOG_LEVEL: 'info' });
  });
  afterAll(async () => {
    await t.close();
  });

  const auth = () => bearer(t.adminToken);

  describe('media types', () => {
    it('answers text/json and text/xml with those content types', async () => {
      const json = await t.http().get('/v4/sites').set('Authorization', auth()).set('Accept', 'text/json').expect(200);
      expect(json.headers['content-type']).toBe('text/json; charset=utf-8');
      expect(JSON.parse(json.text)).toEqual(expect.any(Array));
      const xml = await t.http().get('/v4/sites').set('Authorization', auth()).set('Accept', 'text/xml').expect(200);
      expect(xml.headers['content-type']).toBe('text/xml; charset=utf-8');
    });

    it('honours q-values and falls back to JSON for */* and unknown types (never 406)', async () => {
      const xml = await t.http().get('/v4/sites').set('Authorization', auth()).set('Accept', 'application/json;q=0.4, application/xml;q=0.9').expect(200);
      expect(xml.headers['content-type']).toMatch(/^application\/xml/);
      const png = await t.http().get('/v4/sites').set('Authorization', auth()).set('Accept', 'image/png').expect(200);
      expect(png.headers['content-type']).toMatch(/^application\/json/);
      expect(png.headers.vary).toMatch(/Accept/);
    });

    it('reads text/json and text/xml request bodies with a charset', async () => {
      await t
        .http()
        .post('/v4/sites')
        .set('Authorization', auth())
        .set('Content-Type', 'text/json; charset=utf-8')
        .send(JSON.stringify({ Name: 'TJ' }))
        .expect(200);
      await t
        .http()
        .post('/v4/sites')
        .set('Authorization', auth())
        .set('Content-Type', 'text/xml; charset=utf-8')
        .send('<Site><Name>TX</Name></Site>')
        .expect(200);
    });

    it('refuses a body of another media type with 415, in the negotiated format', async () => {
      const res = await t
        .http()
        .post('/v4/sites')
        .set('Authorization', auth())
        .set('Content-Type', 'text/plain')
        .set('Accept', 'application/xml')
        .send('Name=x')
        .expect(415);
      expect(res.headers['content-type']).toBe('application/problem+xml; charset=utf-8');
      expect(res.text).toContain('<type>urn:pms:problem:unsupported-media-type</type>');
    });

    it('accepts the form encoding only on the login route', async () => {
      await t.http().post('/v4/sites').set('Authorization', auth()).type('form').send({ Name: 'x' }).expect(415);
    });
  });

  describe('bad bodies', () => {
    it('answers malformed JSON with 400 problem details, not 500', async () => {
      const res = await t.http().post('/v4/sites').set('Authorization', auth()).set('Content-Type', 'application/json').send('{"Name": ').expect(400);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.body.type).toBe('urn:pms:problem:malformed-body');
    });

    it('answers malformed XML, DOCTYPE and entity declarations with 400', async () => {
      for (const body of [
        '<Site><Name>x</Site>',
        '<?xml version="1.0"?><!DOCTYPE Site [<!ENTITY x SYSTEM "file:///etc/passwd">]><Site><Name>&x;</Name></Site>',
      ]) {
        const res = await t.http().post('/v4/sites').set('Authorization', auth()).set('Content-Type', 'application/xml').send(body).expect(400);
        expect(res.body.type).toBe('urn:pms:problem:malformed-body');
      }
    });

    it('answers a JSON array or scalar where a record is expected with 400', async () => {
      await t.http().post('/v4/sites').set('Authorization', auth()).set('Content-Type', 'application/json').send('[{"Name":"x"}]').expect(400);
      await t.http().post('/v4/sites').set('Authorization', auth()).set('Content-Type', 'application/json').send('"x"').expect(400);
    });

    it('answers a body over 1 MiB with 413 (JSON and XML)', async () => {
      const big = 'x'.repeat(1024 * 1024 + 10);
      const json = await t
        .http()
        .post('/v4/sites')
        .set('Authorization', auth())
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ Name: big }))
        .expect(413);
      expect(json.body.type).toBe('urn:pms:problem:payload-too-large');
      await t.http().post('/v4/sites').set('Authorization', auth()).set('Content-Type', 'application/xml').send(`<Site><Name>${big}</Name></Site>`).expect(413);
    });
  });

  describe('unknown paths and methods', () => {
    it('answers an unknown path with a 404 problem in the negotiated format', async () => {
      const res = await t.http().get('/v4/no-such-thing').set('Authorization', auth()).set('Accept', 'application/xml').expect(404);
      expect(res.text).toContain('<problem xmlns="urn:ietf:rfc:7807">');
    });

    it('answers a known path with a wrong method with 405 and Allow', async () => {
      const res = await t.http().delete('/v4/sites').set('Authorization', auth()).expect(405);
      expect(res.headers.allow).toBe('GET, POST');
      expect(res.body.type).toBe('urn:pms:problem:method-not-allowed');
    });
  });

  describe('request ids and logs', () => {
    it('echoes a well-formed X-Request-Id and uses it in the access log and problem body', async () => {
      const res = await t.http().get('/v4/no-such-thing').set('Authorization', auth()).set('X-Request-Id', 'trace-abc-123').expect(404);
      expect(res.headers['x-request-id']).toBe('trace-abc-123');
      expect(res.body.requestId).toBe('trace-abc-123');
      await sleep(20);
      const line = t.logs.map((l) => JSON.parse(l)).find((l) => l.context === 'http' && l.requestId === 'trace-abc-123');
      expect(line).toMatchObject({ level: 'info', method: 'GET', path: '/v4/no-such-thing', status: 404, requestId: 'trace-abc-123' });
    });

    it('replaces a malformed X-Request-Id with a generated one', async () => {
      const res = await t.http().get('/health/live').set('X-Request-Id', 'bad id with spaces').expect(200);
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('writes every log line as one JSON object', () => {
      expect(t.logs.length).toBeGreaterThan(0);
      for (const line of t.logs) expect(() => JSON.parse(line)).not.toThrow();
    });
  });

  describe('metrics', () => {
    it('serves Prometheus metrics on the metrics port without a token, labelled by route template (never by id)', async () => {
      await t.http().get(`/v4/sites/${t.defaultSiteId}`).set('Authorization', auth()).expect(200);
      await t.http().get('/v4/no-such-thing').set('Authorization', auth()).expect(404);
      const server = await startMetricsServer(t.app.get(HttpMetrics), '127.0.0.1', 0);
      const origin = `http://127.0.0.1:${metricsPortOf(server)}`;
      let res: { status: number; type: string | null; text: string };
      try {
        const scrape = await fetch(`${origin}/metrics`);
        res = { status: scrape.status, type: scrape.headers.get('content-type'), text: await scrape.text() };
        const other = await fetch(`${origin}/v4/individuals`);
        const post = await fetch(`${origin}/metrics`, { method: 'POST' });
        expect([other.status, post.status, post.headers.get('allow')]).toEqual([404, 405, 'GET, HEAD']);
      } finally {
        server.closeAllConnections();
        server.close();
      }
      expect(res.status).toBe(200);
      expect(res.type).toMatch(/^text\/plain/);
      expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/v4\/sites\/:siteid",status="200"\} [1-9]/);
      expect(res.text).toMatch(/http_requests_total\{method="GET",route="unmatched",status="404"\} [1-9]/);
      expect(res.text).toContain('http_request_duration_seconds_bucket');
      expect(res.text).toContain('process_cpu_seconds_total');
      expect(res.text).not.toContain(t.defaultSiteId);
    });
  });

  describe('health and OpenAPI', () => {
    it('answers /health/live and /health/ready without a token', async () => {
      expect((await t.http().get('/health/live').expect(200)).body).toEqual({ status: 'ok' });
      expect((await t.http().get('/health/ready').expect(200)).body).toEqual({ status: 'ok', database: 'up' });
    });

    it('serves Swagger UI at /docs and the OpenAPI document at /docs/openapi.json with the bearer scheme and both media types', async () => {
      await t.http().get('/docs').expect(200);
      const doc = (await t.http().get('/docs/openapi.json').expect(200)).body;
      expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      const post = doc.paths['/v4/sites'].post;
      expect(Object.keys(post.requestBody.content)).toEqual(expect.arrayContaining(['application/json', 'text/json', 'application/xml', 'text/xml']));
      expect(Object.keys(post.responses['200'].content)).toEqual(expect.arrayContaining(['application/json', 'application/xml']));
      expect(post.security).toEqual([{ bearer: [] }]);
      expect(doc.components.schemas.Site.properties.Created.description).toMatch(/read-only/);
      // Response schemas carry the spec's type names, the same as the XML roots.
      expect(Object.keys(doc.components.schemas)).toEqual(
        expect.arrayContaining(['Individual', 'ListItem', 'Organization', 'OrganizationMember', 'Goal', 'Comment']),
      );
      expect(post.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Site' });
      for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: { name: string }[] }>>)) {
        if (!path.startsWith('/v4/') || path === '/v4/auth/token') continue;
        for (const op of Object.values(item)) expect({ path, tz: parametersOf(doc, op).filter((p) => p.name === 'tz').length }).toEqual({ path, tz: 1 });
      }
    });
  });
});

describe('a lost database', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close().catch(() => undefined);
  });

  it('answers 503 with Retry-After on API calls and readiness, and nothing of the cause', async () => {
    await t.ds.destroy();
    const res = await t.http().get('/v4/sites').set('Authorization', bearer(t.adminToken)).expect(503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.body.type).toBe('urn:pms:problem:service-unavailable');
    expect(JSON.stringify(res.body)).not.toMatch(/sqlite|mysql|SELECT|stack/i);
    const ready = await t.http().get('/health/ready').expect(503);
    expect(ready.headers['retry-after']).toBeDefined();
    await t.http().get('/health/live').expect(200);
  });
});

describe('path id parsing', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(['1e3', '0x10', '1.5', '99999999999', 'abc'])('refuses the integer id %s with 400 naming the parameter', async (id) => {
    const res = await t.http().get(`/v4/goals/${id}`).set('Authorization', bearer(t.adminToken)).expect(400);
    expect(res.body.errors).toEqual([{ field: 'id', message: 'id must be a whole number (int32)' }]);
  });
});
