import { placeholderOf, xmlExample } from '../../src/openapi/openapi-examples.js';
import { isFileBodyPath } from '../../src/http/wire/file-body.js';
import { ADMIN_PASSWORD, bearer, startApp, TestApp, WireCodec } from './harness.js';

/**
 * Every request-body example of the OpenAPI document is sent to a fresh server, in JSON and in
 * XML, and must answer 200. Examples without placeholders go as they are; in the others each
 * placeholder — an example id, or an upper-case token, that the request body's description tells
 * to replace — is replaced by what it says: the caller's individual, its organization, a period or
 * project created by an earlier example, the id of the record an earlier POST example created.
 * The XML example is data, as the JSON one: it is sent written as XML with the names its schema
 * gives (root, namespace). Then each PUT and PATCH example is sent again with a stale If-Match,
 * which the document says answers 412. PATCH examples go as merge patches
 * (application/merge-patch+json, application/merge-patch+xml).
 */
type Json = Record<string, unknown>;
interface Operation {
  requestBody?: { description?: string; content: Record<string, { example?: unknown; schema?: { $ref?: string } }> };
  parameters?: ({ name: string; in: string } | { $ref: string })[];
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { xml?: { name: string; namespace: string } }> };
}

/** Examples that create what later ones name run first (a period before goals, a project before its scopes). */
const FIRST = ['/v4/periods', '/v4/departments', '/v4/individuals', '/v4/projects'];

for (const format of ['json', 'xml'] as const) {
  describe(`request-body examples of the OpenAPI document, sent as ${format.toUpperCase()}`, () => {
    let t: TestApp;
    let doc: Doc;
    beforeAll(async () => {
      t = await startApp();
      doc = (await t.http().get('/docs/openapi.json').expect(200)).body;
    });
    afterAll(async () => {
      await t.close();
    });

    it('answers 200 to every example (placeholders replaced), and 412 to each PUT and PATCH example with a stale If-Match', async () => {
      const me = (await t.http().get('/v4/me').set('Authorization', bearer(t.adminToken)).expect(200)).body as Json;
      const created = new Map<string, { body: Json; pathValues: Record<string, string> }>();
      const values: Record<string, unknown> = {
        ADMIN_PASSWORD,
        INDIVIDUAL_ID: me.ID,
        USER_ID: me.UserID,
        ORGANIZATION_ID: me.PrimaryOrganizationID,
      };

      const rank = (o: { path: string; method: string }) =>
        (o.method === 'post' ? 0 : 100) + (FIRST.includes(o.path) ? FIRST.indexOf(o.path) : o.path === '/v4/auth/token' ? -1 : 50);
      const ops = Object.entries(doc.paths)
        .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })))
        // SCIM's examples need an API token with the scope scim: scim.e2e-spec.ts sends them. An
        // action's ignored body (`{}`) is not run here: the action itself (a logout everywhere, a
        // close) is its own tests'.
        // A file import's examples are files (CSV, NDJSON…): imports.e2e-spec.ts sends them.
        .filter(
          (o) =>
            o.op.requestBody &&
            !o.path.startsWith('/scim/') &&
            !JSON.stringify(o.op.requestBody).includes('schemas/IgnoredBody') &&
            !(o.method === 'post' && isFileBodyPath(o.path)),
        )
        .sort((a, b) => rank(a) - rank(b));
      expect(ops.length).toBeGreaterThanOrEqual(35);

      const results: string[] = [];
      for (const { path, method, op } of ops) {
        const content = op.requestBody!.content;
        const mediaType = method === 'patch' ? `application/merge-patch+${format}` : format === 'json' ? 'application/json' : 'application/xml';
        const example = content[mediaType]?.example;
        expect({ op: `${method} ${path}`, hasExample: example !== undefined }).toEqual({ op: `${method} ${path}`, hasExample: true });

        // Path: a POST with ids in its path gets a fresh pair; a PUT or PATCH reuses what its POST created.
        const pathValues: Record<string, string> = {};
        let url = path;
        if (method === 'post') {
          for (const name of pathParams(path)) pathValues[name] = await freshRecordFor(t, name);
        } else {
          const collection = path.replace(/\/\{[^/]+\}$/, '');
          const origin = created.get(collection);
          // A PUT naming records of two kinds (/metrics/{id}/values/{periodid},
          // /basicroles/{basicRoleid}/dialogs/{dialogid}): each id from what its POST made.
          const pair = /^\/v4\/([a-z]+)\/\{(\w+)\}\/([a-z]+)\/\{(\w+)\}$/.exec(path);
          const idOf = (collection: string) => (collection === 'values' ? values.PERIOD_ID : (created.get(`/v4/${collection}`)?.body.ID as string | undefined));
          if (!origin && pair && idOf(pair[1]) !== undefined && idOf(pair[3]) !== undefined) {
            pathValues[pair[2]] = String(idOf(pair[1]));
            pathValues[pair[4]] = String(idOf(pair[3]));
          } else if (!origin && path.includes('{')) {
            // (A PUT whose path names no record, such as /dashboards/settings, changes the site's one record.)
            results.push(`--- ${method.toUpperCase()} ${path}: no POST example created a record to change`);
            continue;
          }
          if (origin) {
            Object.assign(pathValues, origin.pathValues);
            const last = /\/\{([^/]+)\}$/.exec(path);
            if (last && !(last[1] in pathValues)) pathValues[last[1]] = String(origin.body.ID);
            values.PATH_ID = last ? origin.body.ID : undefined;
            values.USER_NAME = origin.body.UserName;
          }
        }
        for (const [name, value] of Object.entries(pathValues)) url = url.replace(`{${name}}`, value);
        values.ANCESTOR_ID = path.includes('projectscopes') ? created.get('/v4/projects')?.body.ID : me.ID;

        const description = op.requestBody!.description ?? '';
        const body = substitute(example as Json, values, description);
        const xmlName = doc.components.schemas[content[mediaType].schema!.$ref!.split('/').pop()!].xml!;
        const send = (ifMatch?: string) => {
          const agent = t.http();
          let req = agent[method as 'post' | 'put' | 'patch'](url)
            .set('Authorization', bearer(t.adminToken))
            .set('Accept', format === 'json' ? 'application/json' : 'application/xml');
          if (ifMatch) req = req.set('If-Match', ifMatch);
          if (format === 'json') return req.set('Content-Type', mediaType).send(JSON.stringify(body));
          return req.set('Content-Type', mediaType).send(xmlExample(xmlName.name, xmlName.namespace, body));
        };
        const res = await send();
        results.push(`${res.status} ${method.toUpperCase()} ${path}${res.status === 200 ? '' : ` ${res.text}`}`);
        if (res.status !== 200) continue;
        const answer = format === 'json' ? (res.body as Json) : ((await new WireCodec('urn:pms:v4').decodeXml(res.text)) as Json);
        const record = (Array.isArray(answer) ? answer[0] : answer) as Json;
        if (path === '/v4/periods' && method === 'post') values.PERIOD_ID = record.ID;
        if (path === '/v4/departments' && method === 'post') values.DEPARTMENT_ID = record.ID;
        if (method === 'post' && path !== '/v4/auth/token') created.set(path, { body: record, pathValues });
        if ((method === 'put' || method === 'patch') && (op.parameters ?? []).some((p) => '$ref' in p && p.$ref.endsWith('/If-Match'))) {
          const stale = await send('"an-etag-of-another-version"');
          results.push(
            `${stale.status === 412 ? 200 : stale.status} ${method.toUpperCase()} ${path} with a stale If-Match (412 expected, got ${stale.status})`,
          );
        }
      }
      expect(results.filter((r) => !r.startsWith('200 '))).toEqual([]);
      expect(results.length).toBeGreaterThan(ops.length);
    });
  });
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
}

/** A record for a path id of a POST (the membership pair routes): a new individual or department. */
async function freshRecordFor(t: TestApp, name: string): Promise<string> {
  const auth = bearer(t.adminToken);
  const suffix = Math.random().toString(36).slice(2, 8);
  if (/department/i.test(name)) {
    return (
      await t
        .http()
        .post('/v4/departments')
        .set('Authorization', auth)
        .send({ Name: `Pair ${suffix}` })
        .expect(200)
    ).body.ID;
  }
  const me = (await t.http().get('/v4/me').set('Authorization', auth).expect(200)).body;
  const ind = await t
    .http()
    .post('/v4/individuals')
    .set('Authorization', auth)
    .send({
      FirstName: 'Pair',
      LastName: suffix,
      UserName: `pair.${suffix}`,
      Email: `${suffix}@example.com`,
      UserEmail: `${suffix}@example.com`,
      PrimaryOrganizationID: me.PrimaryOrganizationID,
      PrimaryTitle: 'Member',
      PrimaryReportsTo: null,
    })
    .expect(200);
  return ind.body.ID;
}

/**
 * Replaces the placeholders of an example (src/openapi/openapi-examples.ts: an example id, or
 * an upper-case token); each must be explained by the request body's description: "`Field` …
 * (**value**) with …".
 */
function substitute(example: Json, values: Record<string, unknown>, description: string): Json {
  const out: Json = {};
  // Records nested in the body (a bulk request's items) hold placeholders too.
  const nested = (v: unknown): unknown => (Array.isArray(v) ? v.map(nested) : v && typeof v === 'object' ? substitute(v as Json, values, description) : v);
  for (const [k, v] of Object.entries(example)) {
    const token = placeholderOf(k, v);
    if (token === undefined) {
      out[k] = nested(v);
      continue;
    }
    const explained = description.split('; ').some((c) => c.includes(`\`${k}\``) && c.includes(`(**${String(v)}**) with`));
    if (!explained) throw new Error(`placeholder ${k}: ${String(v)} is not explained in the description: ${description}`);
    if (values[token] === undefined) throw new Error(`no value for placeholder ${token}`);
    out[k] = values[token];
  }
  return out;
}
