import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { xmlExample } from '../../src/common/http/openapi-examples.js';
import { buildWorld, World } from '../factories/world.js';
import { bearer, DB_KIND, startApp, TestApp, WireCodec } from './harness.js';
import { Params, ROUTE_CASES } from './route-cases.js';
import { fillPath, listRoutes } from './routes.js';

/**
 * PATCH (docs/http-and-xml.md, "PATCH"): every PATCH route of the app, from one table. Each row
 * names the route, how its record is read back, a field to change, a field that null clears
 * (where the record has one), a field on which null is 400, and two fields for concurrent
 * writers. Every row runs the same tests, on the records of a World (test/factories/world.ts):
 * a one-field change in JSON and in XML leaves every other field as it was; null clears; null
 * on a required field is 400 naming it; If-Match (stale 412, current 200); an Idempotency-Key
 * replay; another site's ids 404; a caller without rights 403; concurrent PATCHes of different
 * fields both survive (on MariaDB each request holds its own connection).
 */
type Json = Record<string, unknown>;
const NS = 'urn:pms:v4';
const codec = new WireCodec(NS);
const d = (iso: string) => `${iso}T00:00:00.000+00:00`;

interface PatchCase {
  /** The route, as test/e2e/route-cases.ts keys it; its path parameters come from there. */
  route: string;
  /** The XML root of the record (the type the route answers). */
  root: string;
  /** The record as a client reads it: a GET of the same path, or found in a list. */
  read: (r: Reader) => Promise<Json>;
  /** A field, the value JSON sets, the value XML sets. */
  change: [field: string, json: unknown, xml: unknown];
  /** Members derived from the changed field (they change with it). */
  derived?: string[];
  /** A field null clears: a value to set first, and what the cleared field reads (null unless said). */
  clears?: [field: string, value: unknown, cleared?: unknown];
  /** A field on which null is 400 (required on PUT, or one the PUT says cannot be cleared). */
  required?: string;
  /** Two fields changed by concurrent writers, each with its value of a round. */
  concurrent?: [field: string, value: (round: number) => unknown, field: string, value: (round: number) => unknown];
  /** The caller with the right to change the record (default: the world's site administrator). */
  caller?: (t: TestApp, w: World) => string;
  /** The answer to the site administrator of another site naming this site's record (default 404). */
  foreign?: number;
}

/** What a row's read gets: the world, the route's path with that world's parameters, and the caller. */
interface Reader {
  w: World;
  p: Params;
  path: string;
  get: (path: string) => Promise<unknown>;
}

/** GET of the route's own path (a List of one is unwrapped). */
const samePath = async (r: Reader) => one(await r.get(r.path));
/** GET of another path (a List of one is unwrapped). */
const at = (path: (w: World) => string) => async (r: Reader) => one(await r.get(path(r.w)));
/** The record of id `p.id` in a list. */
const inList = (path: (w: World) => string) => async (r: Reader) => {
  const list = (await r.get(path(r.w))) as Json[];
  const found = list.find((record) => String(record.ID) === String(r.p.id));
  if (!found) throw new Error(`${r.p.id} is not in ${path(r.w)}`);
  return found;
};

const text = (prefix: string) => (round: number) => `${prefix} ${round}`;
const listItem = (route: string): PatchCase => ({
  route,
  root: 'ListItem',
  read: samePath,
  change: ['Description', 'Changed in JSON', 'Changed in XML'],
  required: 'Name',
  concurrent: ['Name', text('Name'), 'Description', text('Description')],
});
const member = (route: string): PatchCase => ({
  route,
  root: 'OrganizationMember',
  read: at((w) => `/v4/individuals/${w.ids.individual}/departments/${w.ids.department}/departmentmembers`),
  change: ['Title', 'Title in JSON', 'Title in XML'],
  clears: ['Title', 'A title'],
});

const CASES: PatchCase[] = [
  {
    route: 'PATCH /v4/sites/:siteid',
    root: 'Site',
    read: samePath,
    change: ['Name', 'Site named in JSON', 'Site named in XML'],
    required: 'Name',
    // The last round leaves performance management on, as the other rows need it.
    concurrent: ['Name', text('Site'), 'PerformanceManagement', (round) => round % 2 === 1],
    caller: (t) => t.adminToken,
    foreign: 403,
  },
  {
    route: 'PATCH /v4/individuals/:id',
    root: 'Individual',
    read: samePath,
    change: ['UserDefined1', 'Set in JSON', 'Set in XML'],
    clears: ['UserDefined2', 'To be cleared'],
    required: 'FirstName',
    concurrent: ['UserDefined3', text('three'), 'UserDefined4', text('four')],
  },
  member('PATCH /v4/individuals/:individualId/departments/:departmentId/departmentmembers'),
  member('PATCH /v4/departments/:departmentId/individuals/:individualId/departmentmembers'),
  member('PATCH /v4/departmentmembers/:id'),
  {
    route: 'PATCH /v4/departments/:id',
    root: 'Organization',
    read: samePath,
    change: ['Description', 'Described in JSON', 'Described in XML'],
    clears: ['Description', 'To be cleared'],
    required: 'Name',
    concurrent: ['Name', text('Department'), 'Rank', (round) => round + 10],
  },
  {
    route: 'PATCH /v4/periods/:id',
    root: 'Period',
    read: samePath,
    change: ['Name', 'Period named in JSON', 'Period named in XML'],
    required: 'StartDate',
    concurrent: ['Name', text('Period'), 'EndDate', (round) => d(`${2090 + round}-12-31`)],
  },
  listItem('PATCH /v4/accountabilities/:id'),
  listItem('PATCH /v4/evaluationcriteria/:id'),
  listItem('PATCH /v4/supervisoryscopes/:id'),
  listItem('PATCH /v4/projectscopes/:id'),
  {
    route: 'PATCH /v4/projects/:id',
    root: 'Project',
    read: samePath,
    change: ['Description', 'Described in JSON', 'Described in XML'],
    clears: ['CompletedDate', d('2027-05-31')],
    required: 'Name',
    concurrent: ['Name', text('Project'), 'Description', text('Description')],
  },
  {
    route: 'PATCH /v4/goals/:id',
    root: 'Goal',
    read: samePath,
    change: ['Why', 'Because of JSON', 'Because of XML'],
    clears: ['Measure3EndDate', d('2027-12-30')],
    required: 'Measure1StartDate',
    concurrent: ['Why', text('Why'), 'Comment', text('Comment')],
  },
  {
    route: 'PATCH /v4/colors/:id',
    root: 'Color',
    read: samePath,
    change: ['Name', 'Named in JSON', 'Named in XML'],
    required: 'ColorValue',
    concurrent: ['Name', text('Color'), 'ColorValue', (round) => 1000 + round],
  },
  {
    route: 'PATCH /v4/webhooks/:id',
    root: 'Webhook',
    read: samePath,
    change: ['EventTypes', 'dialog.held', 'task.completed'],
    clears: ['Description', 'To be cleared'],
    required: 'URL',
    concurrent: ['Description', text('Hook'), 'EventTypes', (round) => `period.closed task.r${round}`],
  },
  {
    route: 'PATCH /v4/corevalues/:id',
    root: 'CoreValue',
    read: inList(() => '/v4/corevalues'),
    change: ['Description', 'Described in JSON', 'Described in XML'],
    clears: ['Description', 'To be cleared'],
    required: 'Name',
    concurrent: ['Name', text('Value'), 'Rank', (round) => round + 5],
  },
  {
    route: 'PATCH /v4/commitments/:id',
    root: 'Commitment',
    read: inList((w) => `/v4/individuals/${w.ids.individual}/commitments?period=${w.ids.period}`),
    change: ['Description', 'Described in JSON', 'Described in XML'],
    clears: ['DueDate', d('2027-04-30')],
    required: 'Name',
    concurrent: ['Name', text('Commitment'), 'Description', text('Description')],
  },
  {
    route: 'PATCH /v4/comments/:id',
    root: 'Comment',
    read: inList((w) => `/v4/individuals/${w.ids.individual}/comments`),
    change: ['Body', 'Written in JSON', 'Written in XML'],
    required: 'Body',
  },
  {
    route: 'PATCH /v4/dialogs/:id',
    root: 'Dialog',
    read: samePath,
    change: ['Notes', 'Noted in JSON', 'Noted in XML'],
    clears: ['OccurredDate', d('2027-03-16')],
    required: 'LeaderID',
    concurrent: ['Notes', text('Notes'), 'OccurredDate', (round) => d(`2027-03-${10 + round}`)],
  },
  {
    route: 'PATCH /v4/tasks/:id',
    root: 'Task',
    read: samePath,
    change: ['Name', 'Task named in JSON', 'Task named in XML'],
    clears: ['DueDate', d('2027-05-31')],
    required: 'AssignedToID',
    concurrent: ['Name', text('Task'), 'DueDate', (round) => d(`2027-06-${10 + round}`)],
  },
  {
    route: 'PATCH /v4/basicroles/:id',
    root: 'BasicRole',
    read: samePath,
    change: ['Description', 'Described in JSON', 'Described in XML'],
    clears: ['Description', 'To be cleared'],
    required: 'Name',
    concurrent: ['Name', text('Role'), 'DialogsPerPeriod', (round) => round + 1],
  },
  {
    route: 'PATCH /v4/basicroles/:basicRoleid/dialogs/:dialogid',
    root: 'BasicRoleDialog',
    read: samePath,
    change: ['Comment', 'Commented in JSON', 'Commented in XML'],
    clears: ['Rating', 2],
    concurrent: ['Rating', (round) => (round % 5) + 1, 'Comment', text('Comment')],
  },
  {
    route: 'PATCH /v4/assessments/:id',
    root: 'Assessment',
    read: samePath,
    change: ['Ratings', [{ ItemKind: 'general', ItemID: null, Rating: 2 }], [{ ItemKind: 'general', ItemID: null, Rating: 4 }]],
    clears: ['Ratings', [{ ItemKind: 'general', ItemID: null, Rating: 1 }], []],
    required: 'PeriodID',
    concurrent: [
      'PeriodID',
      (round) => (round % 2 === 0 ? 'current' : 'closed'),
      'Ratings',
      (round) => [{ ItemKind: 'general', ItemID: null, Rating: (round % 5) + 1 }],
    ],
  },
  {
    route: 'PATCH /v4/metrics/:id',
    root: 'Metric',
    read: samePath,
    change: ['Target', 120.5, 99.25],
    clears: ['Target', 100],
    required: 'Name',
    concurrent: ['Name', text('Metric'), 'Target', (round) => 200 + round],
  },
  {
    route: 'PATCH /v4/dashboards/settings',
    root: 'DashboardSettings',
    read: samePath,
    change: ['ShowGoals', false, true],
    required: 'Threshold1',
    concurrent: ['ShowDialogs', (round) => round % 2 === 0, 'Threshold3', (round) => 120 + round],
  },
  {
    route: 'PATCH /v4/permissions/:id',
    root: 'Permission',
    read: samePath,
    change: ['ReadState', 2, 1],
    derived: ['ReadText'],
    required: 'CreateState',
    concurrent: ['ReadState', (round) => round % 3, 'DeleteState', (round) => (round + 1) % 3],
  },
  {
    route: 'PATCH /v4/identityproviders/:id',
    root: 'IdentityProvider',
    read: samePath,
    change: ['Name', 'Named in JSON', 'Named in XML'],
    clears: ['GroupsClaim', 'groups'],
    required: 'Name',
    concurrent: ['Name', text('IdP'), 'UserClaim', text('claim')],
  },
  {
    route: 'PATCH /v4/securitygroups/:id',
    root: 'SecurityGroup',
    read: samePath,
    change: ['Description', 'Described in JSON', 'Described in XML'],
    clears: ['Description', 'To be cleared'],
    required: 'Name',
    concurrent: ['Name', text('Group'), 'Description', text('Description')],
  },
];

const keyPath = (route: string) => route.slice(route.indexOf(' ') + 1);

async function get(t: TestApp, path: string, token: string): Promise<unknown> {
  const res = await t.http().get(path).set('Authorization', bearer(token));
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
  return res.body;
}
const one = (body: unknown) => (Array.isArray(body) ? body[0] : body) as Json;

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
    // SCIM's PATCH is a PatchOp (RFC 7644), not a merge patch: scim.e2e-spec.ts holds it.
    const patches = routes.filter((r) => r.method === 'PATCH' && !r.path.startsWith('/scim/')).map((r) => r.key);
    expect(CASES.map((c) => c.route).sort()).toEqual([...patches].sort());
    expect(patches.filter((key) => !routes.some((r) => r.key === key.replace(/^PATCH/, 'PUT')))).toEqual([]);
    expect(patches.length).toBe(28);
  });

  describe('the wire', () => {
    const goal = () => `/v4/goals/${A.ids.goal}`;
    const send = (method: 'patch' | 'put', path: string, contentType: string, body: string) =>
      t.http()[method](path).set('Authorization', bearer(A.admin.token)).set('Content-Type', contentType).send(body);

    it('reads a merge patch as application/merge-patch+json, application/json, text/json, application/merge-patch+xml, application/xml or text/xml', async () => {
      const json = JSON.stringify({ Why: 'Any of the six' });
      const xml = '<Goal xmlns="urn:pms:v4"><Why>Any of the six</Why></Goal>';
      for (const [type, body] of [
        ['application/merge-patch+json', json],
        ['application/json; charset=utf-8', json],
        ['text/json', json],
        ['application/merge-patch+xml', xml],
        ['application/xml', xml],
        ['text/xml; charset=utf-8', xml],
      ]) {
        const res = await send('patch', goal(), type, body);
        expect({ type, status: res.status, Why: res.body.Why }).toEqual({ type, status: 200, Why: 'Any of the six' });
      }
    });

    it('answers 415 to a JSON Patch (RFC 6902) and to the merge-patch types on PUT, whose body is a whole record', async () => {
      const jsonPatch = await send('patch', goal(), 'application/json-patch+json', '[{"op":"replace","path":"/Why","value":"x"}]');
      const onPut = await send('put', goal(), 'application/merge-patch+json', '{"Why":"x"}');
      for (const res of [jsonPatch, onPut]) {
        expect({ status: res.status, type: res.body.type }).toEqual({ status: 415, type: 'urn:pms:problem:unsupported-media-type' });
      }
      expect(jsonPatch.body.detail).toContain('application/merge-patch+json');
    });

    it('answers 400 to a patch that is not an object (a list, a value, an XML list), writing nothing', async () => {
      const before = (await t.http().get(goal()).set('Authorization', bearer(A.admin.token))).body;
      for (const [type, body] of [
        ['application/merge-patch+json', '[{"Why":"x"}]'],
        ['application/merge-patch+json', '"Why"'],
        ['application/merge-patch+xml', '<ArrayOfGoal xmlns="urn:pms:v4"><Goal><Why>x</Why></Goal></ArrayOfGoal>'],
      ]) {
        const res = await send('patch', goal(), type, body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
      }
      expect((await t.http().get(goal()).set('Authorization', bearer(A.admin.token))).body).toEqual(before);
    });

    it('ignores read-only and unknown fields, and a field the PUT ignores, as the PUT does', async () => {
      const before = (await t.http().get(goal()).set('Authorization', bearer(A.admin.token))).body;
      const res = await send(
        'patch',
        goal(),
        'application/merge-patch+json',
        JSON.stringify({ SiteID: B.siteId, FullName: 'Someone Else', MeasuresTotal: 99, IndividualID: A.manager.individualId, Nonsense: 1, Why: 'Only this' }),
      );
      expect(res.status).toBe(200);
      expect(without(res.body, [...AUDIT, 'Why'])).toEqual(without(before, [...AUDIT, 'Why']));
      expect(res.body.Why).toBe('Only this');
    });

    it('answers an empty patch with the record as it was (an empty body too), and 400 for an ID other than the path’s', async () => {
      const before = (await t.http().get(goal()).set('Authorization', bearer(A.admin.token))).body;
      const empty = await send('patch', goal(), 'application/merge-patch+json', '{}');
      const none = await t.http().patch(goal()).set('Authorization', bearer(A.admin.token));
      for (const res of [empty, none]) expect(without(res.body, AUDIT)).toEqual(without(before, AUDIT));
      const otherId = await send('patch', goal(), 'application/merge-patch+json', JSON.stringify({ ID: A.ids.goal + 1 }));
      expect(otherId.status).toBe(400);
      expect(otherId.body.errors).toEqual([expect.objectContaining({ field: 'ID' })]);
    });

    it('creates the record of a basic role in a dialog from the patch when the pair has none, as its PUT does', async () => {
      const role = (
        await t
          .http()
          .post('/v4/basicroles')
          .set('Authorization', bearer(A.admin.token))
          .send({ IndividualID: A.ids.individual, Name: 'Mentor', Description: 'Onboards new hires', Rank: 2 })
      ).body.ID as string;
      const path = `/v4/basicroles/${role}/dialogs/${A.ids.dialog}`;
      expect((await t.http().get(path).set('Authorization', bearer(A.admin.token))).status).toBe(404);
      const stale = await send('patch', path, 'application/merge-patch+json', '{"Rating":4}').set('If-Match', '"1-abc"');
      expect(stale.status).toBe(412);
      const res = await send('patch', path, 'application/merge-patch+json', '{"Rating":4}');
      expect({ status: res.status, Rating: res.body.Rating, Comment: res.body.Comment }).toEqual({ status: 200, Rating: 4, Comment: null });
      expect((await t.http().get(path).set('Authorization', bearer(A.admin.token))).body).toEqual(res.body);
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
  });

  describe.each(CASES)('$route', (c) => {
    const path = keyPath(c.route);
    const params = (w: World): Params => ROUTE_CASES[c.route].params?.(w) ?? {};
    const token = (w: World) => (c.caller ?? ((_t: TestApp, world: World) => world.admin.token))(t, w);
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
    /** The values the world's periods stand for in a row's values. */
    const value = (v: unknown) => (v === 'current' ? A.ids.period : v === 'closed' ? A.ids.closedPeriod : v);
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
          const answers = await Promise.all([patch({ [f1]: value(v1(round)) }), patch({ [f2]: value(v2(round)) })]);
          expect(answers.map((a) => a.status)).toEqual([200, 200]);
          const after = await read();
          expect({ round, [f1]: after[f1], [f2]: after[f2] }).toEqual({ round, [f1]: value(v1(round)), [f2]: value(v2(round)) });
        }
      });
    }
  });
});
