import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { xmlExample } from '../../src/openapi/openapi-examples.js';
import type { Json } from '../../src/testing/cases.js';
import { FEATURES } from '../factories/features.js';
import { buildWorld, harnessOf, World } from '../factories/world.js';
import { bearer, DB_KIND, startApp, TestApp, WireCodec } from './harness.js';
import { Params, ROUTE_CASES } from './route-cases.js';
import { fillPath, listRoutes } from './routes.js';

/**
 * PATCH (docs/http-and-xml.md, "PATCH"): every PATCH route of the app, from the rows its feature
 * declares (`patches` of its cases file, src/testing/cases.ts `PatchCase`): how its record is read
 * back, a field to change, a field that null clears (where the record has one), a field on which
 * null is 400, and two fields for concurrent writers. Every row runs the same tests, on the
 * records of a World (test/factories/world.ts): a one-field change in JSON and in XML leaves every
 * other field as it was; null clears; null on a required field is 400 naming it; If-Match (stale
 * 412, current 200); an Idempotency-Key replay; another site's ids 404; a caller without rights
 * 403; concurrent PATCHes of different fields both survive (on MariaDB each request holds its own
 * connection). The merge-patch rules of the wire itself are tested once, in the suite of the resource they are shown on.
 */
const NS = 'urn:pms:v4';
const codec = new WireCodec(NS);
const CASES = FEATURES.patches;

const keyPath = (route: string) => route.slice(route.indexOf(' ') + 1);

async function get(t: TestApp, path: string, token: string): Promise<unknown> {
  const res = await t.http().get(path).set('Authorization', bearer(token));
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** Members that change with every write, whatever it writes. */
const AUDIT = ['Updated', 'UpdatedBy'];
const without = (record: Json, fields: string[]) => Object.fromEntries(Object.entries(record).filter(([k]) => !fields.includes(k)));

describe(`PATCH on every resource that has PUT (${DB_KIND})`, () => {
  let t: TestApp;
  let A: World;
  let B: World;

  beforeAll(async () => {
    t = await startApp();
    A = await buildWorld(t, 'Alpha');
    B = await buildWorld(t, 'Bravo');
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  it('has a row for every PATCH route of the app, and every PATCH route a PUT on the same path', () => {
    const routes = listRoutes(t.app);
    // A PATCH whose body is not a merge patch (SCIM's PatchOp, RFC 7644) is its feature's own test.
    const patches = routes.filter((r) => r.method === 'PATCH' && !ROUTE_CASES[r.key]?.contentType).map((r) => r.key);
    expect(CASES.map((c) => c.route).sort()).toEqual([...patches].sort());
    expect(patches.filter((key) => !routes.some((r) => r.key === key.replace(/^PATCH/, 'PUT')))).toEqual([]);
    expect(patches.length).toBe(28);
  });

  it('declares each PATCH in the OpenAPI document: the merge-patch media types, a schema with every member optional, an example, If-Match and the errors of its PUT', async () => {
    const doc = (await t.http().get('/docs/openapi.json')).body as {
      paths: Record<string, Record<string, Json>>;
      components: { schemas: Record<string, Json> };
    };
    const wrong: string[] = [];
    for (const c of CASES) {
      const path = keyPath(c.route).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const op = doc.paths[path].patch as {
        requestBody: { content: Record<string, { schema: { $ref: string }; example?: unknown; examples?: unknown }> };
        responses: Json;
        parameters: Json[];
      };
      const put = doc.paths[path].put as { responses: Json };
      const content = op.requestBody.content;
      const types = Object.keys(content).sort();
      if (types.join() !== 'application/json,application/merge-patch+json,application/merge-patch+xml,application/xml,text/json,text/xml')
        wrong.push(`${c.route}: ${types}`);
      const schema = doc.components.schemas[content['application/merge-patch+json'].schema.$ref.split('/').pop()!];
      if (schema.required) wrong.push(`${c.route}: required ${JSON.stringify(schema.required)}`);
      // An example of each format, as `example` or as named `examples`.
      const exampled = (type: string) => content[type].example !== undefined || content[type].examples !== undefined;
      if (!exampled('application/merge-patch+json') || !exampled('application/merge-patch+xml')) wrong.push(`${c.route}: no example`);
      if (Object.keys(op.responses).sort().join() !== Object.keys(put.responses).sort().join())
        wrong.push(`${c.route}: answers ${Object.keys(op.responses)} but PUT ${Object.keys(put.responses)}`);
      if (!op.parameters.some((p) => p.$ref === '#/components/parameters/If-Match')) wrong.push(`${c.route}: no If-Match`);
    }
    expect(wrong).toEqual([]);
  });

  describe.each(CASES)('$route', (c) => {
    const path = keyPath(c.route);
    const params = (w: World): Params => ROUTE_CASES[c.route].params?.(w) ?? {};
    const token = (w: World) => (c.caller ? c.caller(harnessOf(t), w) : w.admin.token);
    const read = (w: World = A) => c.read({ w, p: params(w), path: fillPath(path, params(w)), get: (at) => get(t, at, token(w)) });
    /** A PATCH as a JSON merge patch (or XML when `xml` is given) by `as` (default: the row's caller). */
    const patch = (body: Json, opts: { xml?: boolean; as?: string; ifMatch?: string; key?: string; w?: World; p?: Params } = {}): Promise<Response> => {
      const w = opts.w ?? A;
      let req = t
        .http()
        .patch(fillPath(path, opts.p ?? params(w)))
        .set('Authorization', bearer(opts.as ?? token(w)))
        .set('Accept', opts.xml ? 'application/xml' : 'application/json');
      if (opts.ifMatch) req = req.set('If-Match', opts.ifMatch);
      if (opts.key) req = req.set('Idempotency-Key', opts.key);
      return opts.xml
        ? req.set('Content-Type', 'application/merge-patch+xml').send(xmlExample(c.root, NS, body))
        : req.set('Content-Type', 'application/merge-patch+json').send(JSON.stringify(body));
    };
    const unchanged = (record: Json, fields: string[]) => without(record, [...AUDIT, ...fields, ...(c.derived ?? [])]);

    it('changes one field in JSON (application/merge-patch+json) and leaves every other field as it was', async () => {
      const [field, json] = c.change;
      const before = await read();
      const res = await patch({ [field]: json });
      expect({ status: res.status, [field]: res.body[field] }).toEqual({ status: 200, [field]: json });
      const after = await read();
      expect(unchanged(after, [field])).toEqual(unchanged(before, [field]));
      expect(after[field]).toEqual(json);
      expect(unchanged(res.body, [])).toEqual(unchanged(after, []));
    });

    it('changes one field in XML (application/merge-patch+xml, absent elements unchanged) and answers XML', async () => {
      const [field, , xml] = c.change;
      const before = await read();
      const res = await patch({ [field]: xml }, { xml: true });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/xml/);
      const answered = (await codec.decodeXml(res.text)) as Json;
      expect(Object.keys(answered).sort()).toEqual(Object.keys(before).sort());
      const after = await read();
      expect(unchanged(after, [field])).toEqual(unchanged(before, [field]));
      expect(after[field]).toEqual(xml);
    });

    if (c.clears) {
      const [field, set, cleared = null] = c.clears;
      it(`clears ${field} with null (JSON) and i:nil (XML), leaving the other fields as they were`, async () => {
        expect((await patch({ [field]: set })).status).toBe(200);
        const before = await read();
        const json = await patch({ [field]: null });
        expect({ status: json.status, [field]: json.body[field] }).toEqual({ status: 200, [field]: cleared });
        expect(unchanged(await read(), [field])).toEqual(unchanged(before, [field]));
        expect((await patch({ [field]: set })).status).toBe(200);
        const xml = await patch({ [field]: null }, { xml: true });
        expect(xml.status).toBe(200);
        expect(xml.text).toMatch(cleared === null ? new RegExp(`<${field} i:nil="true"/>`) : new RegExp(`<${field}/>`));
        const after = await read();
        expect(after[field]).toEqual(cleared);
        expect(unchanged(after, [field])).toEqual(unchanged(before, [field]));
      });
    }

    if (c.required) {
      const field = c.required;
      it(`answers null on ${field} with 400 naming it, and writes nothing`, async () => {
        const before = await read();
        for (const xml of [false, true]) {
          const res = await patch({ [field]: null }, { xml });
          expect(res.status).toBe(400);
          if (xml) expect(res.text).toContain(`<field>${field}</field>`);
          else expect(res.body.errors).toContainEqual(expect.objectContaining({ field }));
        }
        expect(await read()).toEqual(before);
      });
    }

    it('honours If-Match: a stale ETag is 412 and changes nothing, the current one is 200', async () => {
      const [field, json, xml] = c.change;
      const first = await patch({ [field]: xml });
      const second = await patch({ [field]: json });
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(first.headers.etag).toMatch(/^"\d+-[\w-]+"$/);
      expect(second.headers.etag).not.toBe(first.headers.etag);
      const stale = await patch({ [field]: xml }, { ifMatch: first.headers.etag });
      expect({ status: stale.status, type: stale.body.type }).toEqual({ status: 412, type: 'urn:pms:problem:precondition-failed' });
      expect((await read())[field]).toEqual(json);
      const fresh = await patch({ [field]: xml }, { ifMatch: second.headers.etag });
      expect({ status: fresh.status, [field]: fresh.body[field] }).toEqual({ status: 200, [field]: xml });
    });

    it('replays a retry with the same Idempotency-Key without writing again', async () => {
      const [field, json, xml] = c.change;
      expect((await patch({ [field]: json })).status).toBe(200);
      const key = randomUUID();
      const first = await patch({ [field]: xml }, { key });
      const retry = await patch({ [field]: xml }, { key });
      expect([first.status, retry.status]).toEqual([200, 200]);
      expect(first.headers['idempotency-replayed']).toBeUndefined();
      expect(retry.headers['idempotency-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(retry.headers.etag).toBe(first.headers.etag);
      // Not written twice: the record is still the one the first attempt answered.
      expect(await read()).toEqual(first.body);
      const other = await patch({ [field]: json }, { key });
      expect({ status: other.status, type: other.body.type }).toEqual({ status: 409, type: 'urn:pms:problem:idempotency-key-reused' });
    });

    if (path.includes(':')) {
      it(`answers ${c.foreign ?? 404} to a site administrator naming the records of another site, which do not change`, async () => {
        const [field, json] = c.change;
        const theirs = await read(B);
        const res = await patch({ [field]: json }, { p: params(B), as: A.admin.token });
        expect(res.status).toBe(c.foreign ?? 404);
        expect(await read(B)).toEqual(theirs);
      });
    }

    it('answers 403 to a caller without the right to change the record, and writes nothing', async () => {
      const [field, json, xml] = c.change;
      expect((await patch({ [field]: xml })).status).toBe(200);
      const before = await read();
      const res = await patch({ [field]: json }, { as: A.peer.token });
      expect(res.status).toBe(403);
      expect(await read()).toEqual(before);
    });

    if (c.concurrent) {
      const [f1, v1, f2, v2] = c.concurrent;
      it(`loses neither of two concurrent PATCHes of ${f1} and of ${f2}, over 6 rounds`, async () => {
        for (let round = 0; round < 6; round++) {
          const answers = await Promise.all([patch({ [f1]: v1(round, A) }), patch({ [f2]: v2(round, A) })]);
          expect(answers.map((a) => a.status)).toEqual([200, 200]);
          const after = await read();
          expect({ round, [f1]: after[f1], [f2]: after[f2] }).toEqual({ round, [f1]: v1(round, A), [f2]: v2(round, A) });
        }
      });
    }
  });
});
