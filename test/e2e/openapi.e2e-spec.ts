import { readFileSync } from 'node:fs';
import { parametersOf } from './contract.js';
import { INPUT_DATE_PATTERN } from '../../src/common/dates.js';
import { ordinalCompare } from '../../src/http/wire/wire.js';
import { startApp, TestApp } from './harness.js';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { license: string };

/**
 * The OpenAPI document as a generator and a Swagger UI user read it (docs/openapi.md). What the
 * service answers is held to it by the contract check of every e2e test (contract.ts); the
 * request examples are executed by openapi-examples.e2e-spec.ts; the generated client is compiled
 * and run by generated-client.e2e-spec.ts.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: Json;
  const ops = () =>
    Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );
  const op = (method: string, path: string) => doc.paths[path][method] as Json;
  const response = (r: Json): Json => (r.$ref ? doc.components.responses[r.$ref.split('/').pop()] : r);
  const errors = (method: string, path: string) =>
    Object.keys(op(method, path).responses)
      .map(Number)
      .filter((s) => s >= 400);

  beforeAll(async () => {
    t = await startApp({ XML_NAMESPACE: 'urn:example:pms' });
    doc = (await t.http().get('/docs/openapi.json').expect(200)).body;
  });
  afterAll(async () => {
    await t.close();
  });

  it('is OpenAPI 3.1 with a server entry and no 3.0-only keywords', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(JSON.stringify(doc)).not.toContain('"nullable"');
  });

  it('makes a response field nullable only where it can be null', () => {
    const s = doc.components.schemas;
    expect(s.TokenResponse.properties.access_token.type).toBe('string');
    expect(s.TokenResponse.required).toEqual(['access_token', 'token_type', 'expires_in']);
    expect(s.Organization.properties.ID.type).toBe('string');
    expect(s.Organization.properties.Name.type).toBe('string');
    expect(s.Organization.properties.ParentID.type).toEqual(['string', 'null']);
    expect(s.Individual.properties.LastCommentDate.type).toEqual(['string', 'null']);
    expect(s.Goal.properties.ID.type).toBe('integer');
    expect(s.Organization.properties.CreatedBy.type).toEqual(['string', 'null']);
    expect(s.Organization.properties.Created.type).toBe('string');
    // Inputs: optional fields take null, required ones do not; an enum names null where null is allowed.
    expect(s.CreateOrganizationDto.properties.ParentID.type).toEqual(['string', 'null']);
    expect(s.CreateOrganizationDto.properties.RowType.enum).toEqual([4, 56, null]);
    expect(s.CreateOrganizationDto.properties.Name.type).toBe('string');
  });

  it('gives every error answer of every operation the Problem schema, in JSON and XML', () => {
    expect(doc.components.schemas.Problem).toMatchObject({
      required: ['type', 'title', 'status'],
      xml: { name: 'problem', namespace: 'urn:ietf:rfc:7807' },
    });
    expect(doc.components.schemas.FieldError.xml).toMatchObject({ name: 'i' });
    let count = 0;
    for (const { path, method, op } of ops()) {
      for (const [status, r] of Object.entries(op.responses as Record<string, Json>)) {
        if (Number(status) < 400) continue;
        count++;
        const content = response(r).content;
        // SCIM answers its own error body, in its own media type (docs/identity.md).
        if (path.startsWith('/scim/v2/')) {
          expect({ path, method, status, content }).toEqual({
            path,
            method,
            status,
            content: { 'application/scim+json': { schema: { $ref: '#/components/schemas/ScimError' } } },
          });
          continue;
        }
        expect({ path, method, status, content }).toEqual({
          path,
          method,
          status,
          content: {
            'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
            'application/problem+xml': { schema: { $ref: '#/components/schemas/Problem' } },
          },
        });
      }
    }
    expect(count).toBeGreaterThan(500);
  });

  it('derives the error statuses from the access rule, the method, the path ids and the body', () => {
    expect(errors('post', '/v4/auth/token')).toEqual([400, 401, 403, 404, 413, 415, 429, 503]);
    // 403: an API token without the departments:read scope (docs/identity.md); 429: a spent request budget (docs/limits.md).
    expect(errors('get', '/v4/departments')).toEqual([400, 401, 403, 429, 503]);
    // 406: an export type alone on a list that does not stream (docs/exports.md).
    expect(errors('get', '/v4/{kind}/{id}/history')).toEqual([400, 401, 403, 404, 406, 429, 503]);
    expect(errors('get', '/v4/audit')).toEqual([400, 401, 403, 429, 503]);
    expect(errors('get', '/v4/securitygroups')).toEqual([400, 401, 403, 429, 503]);
    expect(errors('get', '/v4/sites')).toEqual([400, 401, 403, 429, 503]);
    expect(errors('post', '/v4/departments')).toEqual([400, 401, 403, 409, 413, 415, 429, 503]);
    expect(errors('get', '/v4/departments/{id}')).toEqual([400, 401, 403, 404, 429, 503]);
    expect(errors('put', '/v4/departments/{id}')).toEqual([400, 401, 403, 404, 409, 412, 413, 415, 429, 503]);
    expect(errors('delete', '/v4/departments/{id}')).toEqual([400, 401, 403, 404, 409, 412, 413, 415, 429, 503]);
    // An action takes a body it ignores, parsed as every body is (a wrong media type, a body over 1 MiB).
    expect(errors('put', '/v4/departments/{id}/undelete')).toEqual([400, 401, 403, 404, 409, 413, 415, 429, 503]);
    expect(errors('get', '/v4/me')).toEqual([400, 401, 403, 404, 429, 503]);
    // A list that streams exports (it takes cursor=) has no 406; one that does not, has.
    expect(errors('get', '/v4/corevalues')).toEqual([400, 401, 403, 429, 503]);
    expect(errors('get', '/v4/dialogs')).toEqual([400, 401, 403, 404, 429, 503]);
    expect(errors('get', '/v4/individuals/{id}/commitments')).toEqual([400, 401, 403, 404, 429, 503]);
    expect(errors('get', '/v4/individuals/{id}/assessments')).toEqual([400, 401, 403, 404, 429, 503]);
    expect(errors('get', '/v4/individuals/{individualid}/basicroles')).toEqual([400, 401, 403, 404, 429, 503]);
    expect(errors('get', '/v4/individuals/{ancestorid}/archives')).toEqual([400, 401, 403, 404, 429, 503]);
    expect(errors('get', '/v4/sites/{siteid}/colors/defaults')).toEqual([400, 401, 403, 404, 429, 503]);
    expect(errors('get', '/health/live')).toEqual([]);
    expect(errors('get', '/health/ready')).toEqual([503]);
    expect(response(op('post', '/v4/departments').responses['403']).description).toMatch(/administrator/);
    expect(response(op('get', '/v4/corevalues').responses['403']).description).toMatch(/pm-disabled/);
  });

  it('declares the headers: X-Request-Id, ETag, X-Total-Count, Link, X-Sync-Cursor, Retry-After, WWW-Authenticate, Cache-Control, Content-Disposition', () => {
    const headers = (method: string, path: string, status: string) => Object.keys(response(op(method, path).responses[status]).headers ?? {}).sort();
    expect(Object.keys(doc.components.headers).sort()).toEqual([
      'Content-Disposition',
      'ETag',
      'Idempotency-Replayed',
      'Link',
      'RateLimit',
      'RateLimit-Policy',
      'Retry-After',
      'WWW-Authenticate',
      'X-Request-Id',
      'X-Sync-Cursor',
      'X-Total-Count',
    ]);
    // A list answers its records (X-Total-Count), or with updatedSince those changed since then (X-Sync-Cursor).
    // Every authenticated answer announces the request budgets (RateLimit, RateLimit-Policy).
    // A queried list's exports are downloads (Content-Disposition, docs/exports.md).
    expect(headers('get', '/v4/departments', '200')).toEqual([
      'Content-Disposition',
      'Link',
      'RateLimit',
      'RateLimit-Policy',
      'X-Request-Id',
      'X-Sync-Cursor',
      'X-Total-Count',
    ]);
    expect(Object.keys(response(op('get', '/v4/departments').responses['200']).content ?? {})).toEqual([
      'application/json',
      'text/json',
      'application/xml',
      'text/xml',
      'text/csv',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/x-ndjson',
    ]);
    expect(headers('get', '/v4/sync/{kind}', '200')).toEqual(['Link', 'RateLimit', 'RateLimit-Policy', 'X-Request-Id', 'X-Sync-Cursor']);
    // A list that refuses updatedSince (a membership, not a field, ties its records) never sends a cursor.
    expect(headers('get', '/v4/individuals/{id}/departments', '200')).toEqual([
      'Content-Disposition',
      'Link',
      'RateLimit',
      'RateLimit-Policy',
      'X-Request-Id',
      'X-Total-Count',
    ]);
    expect(headers('get', '/v4/departments/{id}', '200')).toEqual(['ETag', 'RateLimit', 'RateLimit-Policy', 'X-Request-Id']);
    expect(headers('get', '/v4/accountabilities/{id}', '200')).toEqual(['ETag', 'RateLimit', 'RateLimit-Policy', 'X-Request-Id']);
    expect(headers('get', '/v4/departments/{id}', '304')).toEqual(['ETag', 'X-Request-Id']);
    expect(headers('get', '/v4/departments', '503')).toEqual(['Retry-After', 'X-Request-Id']);
    expect(headers('post', '/v4/auth/token', '429')).toEqual(['Retry-After', 'X-Request-Id']);
    expect(headers('get', '/v4/departments', '429')).toEqual(['RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id']);
    expect(headers('get', '/v4/departments', '401')).toEqual(['WWW-Authenticate', 'X-Request-Id']);
    const token = response(op('post', '/v4/auth/token').responses['200']).headers;
    expect(token['Cache-Control'].schema).toEqual({ type: 'string', enum: ['no-store'] });
  });

  it('takes If-None-Match on single-record reads and If-Match on the changes that honour it', () => {
    const headerParams = (method: string, path: string) =>
      (op(method, path).parameters as Json[])
        .filter((p) => p.$ref?.startsWith('#/components/parameters/'))
        .map((p) => p.$ref.split('/').pop())
        .filter((name: string) => doc.components.parameters[name].in === 'header');
    expect(headerParams('get', '/v4/departments/{id}')).toEqual(['If-None-Match']);
    expect(headerParams('get', '/v4/departments')).toEqual([]);
    // Writes also take Idempotency-Key, declared once as well (the document stays light).
    expect(headerParams('put', '/v4/departments/{id}')).toEqual(['If-Match', 'Idempotency-Key']);
    expect(headerParams('delete', '/v4/goals/{id}')).toEqual(['If-Match']);
    expect(headerParams('put', '/v4/projects/{id}/undelete')).toEqual(['Idempotency-Key']);
    expect(doc.components.parameters['If-Match']).toMatchObject({ name: 'If-Match', in: 'header' });
  });

  it('declares filter, sort, fields and cursor once, as shared parameters of the lists that take them (docs/queries.md)', () => {
    const shared = (method: string, path: string) =>
      (op(method, path).parameters as Json[]).filter((p) => /\/List[A-Z]/.test(p.$ref ?? '')).map((p) => p.$ref.split('/').pop());
    for (const path of ['/v4/individuals', '/v4/sites/{siteid}/individuals', '/v4/departments', '/v4/organizations'])
      expect({ path, shared: shared('get', path) }).toEqual({ path, shared: ['ListFilter', 'ListSort', 'ListFields', 'ListCursor'] });
    expect(shared('get', '/v4/{kind}/{id}/history')).toEqual([]);
    expect(shared('get', '/v4/audit')).toEqual(['ListFilter', 'ListSort', 'ListFields', 'ListCursor']);
    expect(shared('get', '/v4/webhooks')).toEqual(['ListFilter', 'ListSort', 'ListFields', 'ListCursor']);
    expect(shared('get', '/v4/me/departments')).toEqual(['ListFilter', 'ListSort', 'ListFields', 'ListCursor']);
    for (const [name, param] of [
      ['ListFilter', 'filter'],
      ['ListSort', 'sort'],
      ['ListFields', 'fields'],
      ['ListCursor', 'cursor'],
    ])
      expect(doc.components.parameters[name]).toMatchObject({ name: param, in: 'query', required: false });
    expect(op('get', '/v4/individuals').description).toMatch(/Filterable with `filter=`: ID \(guid\), FirstName \(string\), LastName \(string\)/);
  });

  it('declares tz on every /v4 operation without a value Swagger UI would pre-fill', () => {
    let count = 0;
    for (const { path, op } of ops()) {
      if (!path.startsWith('/v4/') || path === '/v4/auth/token') continue;
      const tz = parametersOf(doc, op as { parameters?: unknown[] }).filter((p) => p.name === 'tz');
      expect({ path, tz: tz.length }).toEqual({ path, tz: 1 });
      expect(tz[0].schema).toEqual({ type: 'string' });
      expect(tz[0].example).toBeUndefined();
      count++;
    }
    expect(count).toBeGreaterThan(100);
  });

  it('describes the probes by their real bodies, and /v4/metrics as the Metric list (the scrape is on its own port, not in the API)', async () => {
    // The Metric list, of Metrics also with updatedSince (no union: docs/delta-sync.md).
    expect(op('get', '/v4/metrics').responses['200'].content['application/json'].schema).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/Metric' },
    });
    expect(doc.paths['/metrics']).toBeUndefined();
    expect(op('get', '/health/ready').responses['200'].content['application/json'].schema.required).toEqual(['status', 'database']);
  });

  it('names XML elements as the service writes them: <ArrayOfSite><Site>, roots in the configured namespace', () => {
    const list = op('get', '/v4/sites').responses['200'].content['application/xml'].schema;
    expect(list).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Site' },
      xml: { name: 'ArrayOfSite', wrapped: true, namespace: 'urn:example:pms' },
    });
    expect(doc.components.schemas.Site.xml).toEqual({ name: 'Site', namespace: 'urn:example:pms' });
    expect(op('get', '/v4/accountabilities/{id}').responses['200'].content['application/xml'].schema.xml.name).toBe('List');
    expect(doc.components.schemas.ListItem.xml).toEqual({ name: 'ListItem', namespace: 'urn:example:pms' });
  });

  it('gives every request body one example per media type: the XML one the same data, rooted and namespaced by its schema', () => {
    let count = 0;
    for (const { path, method, op } of ops()) {
      if (!op.requestBody) continue;
      // SCIM is JSON only: one example, in application/scim+json and application/json alike.
      if (path.startsWith('/scim/v2/')) {
        const content = op.requestBody.content as Record<string, Json>;
        expect({ path, method, types: Object.keys(content) }).toEqual({ path, method, types: ['application/scim+json', 'application/json'] });
        expect(typeof content['application/scim+json'].example).toBe('object');
        continue;
      }
      // An import takes a file (docs/imports.md): one example per file type it reads.
      if (path === '/v4/imports') {
        const content = op.requestBody.content as Record<string, Json>;
        expect(Object.keys(content).sort()).toEqual(
          [
            'application/json',
            'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
            'application/x-ndjson',
            'application/xml',
            'text/csv',
          ].sort(),
        );
        for (const type of ['application/json', 'application/x-ndjson', 'application/xml', 'text/csv'])
          expect({ type, example: content[type].example !== undefined }).toEqual({ type, example: true });
        continue;
      }
      count++;
      const content = op.requestBody.content as Record<string, Json>;
      const json = content['application/json'].example;
      expect({ path, method, json: typeof json }).toEqual({ path, method, json: 'object' });
      expect(content['text/json'].example).toEqual(json);
      // XML: the same members (an optional null left out), in ordinal order; a tool writes them with the schema's xml names.
      const xml = content['application/xml'].example as Json;
      expect(Object.keys(xml)).toEqual(Object.keys(xml).sort(ordinalCompare));
      expect({ path, method, extra: Object.keys(xml).filter((k) => !(k in (json as Json))) }).toEqual({ path, method, extra: [] });
      for (const [k, v] of Object.entries(json as Json)) if (v !== null && !Array.isArray(v)) expect({ path, k, v: xml[k] }).toEqual({ path, k, v });
      expect(content['text/xml'].example).toEqual(xml);
      const schema = doc.components.schemas[content['application/xml'].schema.$ref.split('/').pop()];
      // The root is the type the operation answers or the input is for (Organization for /departments), never a DTO class name.
      expect({ path, method, xml: schema.xml }).toEqual({ path, method, xml: { name: expect.stringMatching(/^[A-Za-z]+$/), namespace: 'urn:example:pms' } });
      expect(schema.xml.name).not.toMatch(/Dto$/);
      expect(op.requestBody.description).toContain(`root \`${schema.xml.name}\``);
      expect(op.requestBody.description).toMatch(/works unchanged|replace `/);
    }
    expect(count).toBeGreaterThanOrEqual(35);
    const root = (method: string, path: string) =>
      doc.components.schemas[op(method, path).requestBody.content['application/xml'].schema.$ref.split('/').pop()].xml.name;
    expect(root('post', '/v4/auth/token')).toBe('TokenRequest');
    expect(root('post', '/v4/departments')).toBe('Organization');
    expect(root('put', '/v4/metrics/{id}/values/{periodid}')).toBe('MetricValue');
    // A nested list's items are named as the service writes them: <Ratings><AssessmentRating>.
    expect(doc.components.schemas.AssessmentRatingInput.xml).toEqual({ name: 'AssessmentRating' });
    const departments = op('post', '/v4/departments').requestBody;
    expect(departments.content['application/json'].example).not.toHaveProperty('ParentID');
    expect(departments.content['application/xml'].example).toEqual({ Description: 'New business and renewals', Name: 'Sales', Rank: 1, RowType: 56 });
    expect(departments.description).toMatch(/works unchanged on a fresh server/);
    // A required null stays (an empty element, read as null); an optional one is left out of the XML example.
    expect(op('post', '/v4/individuals').requestBody.content['application/xml'].example.PrimaryReportsTo).toBeNull();
    expect(op('post', '/v4/permissions').requestBody.content['application/xml'].example).not.toHaveProperty('ChildType');
  });

  it('describes the request side as leniently as the service reads it: input dates by a pattern, list-valued strings by pattern and example, the archive writes’ body', () => {
    const schemaOf = (ref: string) => doc.components.schemas[ref.split('/').pop()!] as Json;
    // Every schema a request body names, and the schemas it nests.
    const inputs = new Map<string, Json>();
    const visit = (ref: string) => {
      const name = ref.split('/').pop()!;
      if (inputs.has(name)) return;
      const schema = schemaOf(ref);
      inputs.set(name, schema);
      for (const p of Object.values((schema.properties ?? {}) as Record<string, Json>)) {
        const nested = p.$ref ?? p.items?.$ref ?? p.anyOf?.find((x: Json) => x.$ref)?.$ref;
        if (nested) visit(nested);
      }
    };
    for (const { path, op } of ops()) {
      if (path.startsWith('/scim/')) continue;
      const ref = op.requestBody?.content?.['application/json']?.schema?.$ref;
      if (ref) visit(ref);
    }
    expect(inputs.size).toBeGreaterThan(40);
    let dates = 0;
    for (const [name, schema] of inputs)
      for (const [field, p] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
        expect({ name, field, format: p.format }).not.toEqual({ name, field, format: 'date-time' });
        if (p.pattern === INPUT_DATE_PATTERN) {
          dates++;
          for (const text of ['2026-11-21T15:00:00', '2026-11-21T15:00:00.1234567', '2026-11-21', p.example])
            expect(new RegExp(p.pattern).test(text)).toBe(true);
        }
      }
    expect(dates).toBeGreaterThan(30);
    // A number or a boolean may come as text, a UUID with blanks or empty (null): wire.ts coerce reads them so.
    let lenient = 0;
    for (const [name, schema] of inputs)
      for (const [field, p] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
        expect({ name, field, format: p.format }).not.toEqual({ name, field, format: 'uuid' });
        const types = ([] as string[]).concat(p.type ?? []);
        if (p.enum || !types.some((x) => ['integer', 'number', 'boolean'].includes(x))) continue;
        lenient++;
        expect({ name, field, string: types.includes('string'), pattern: typeof p.pattern }).toEqual({ name, field, string: true, pattern: 'string' });
      }
    expect(lenient).toBeGreaterThan(50);
    const target = doc.components.schemas.CreateMetricDto?.properties?.Target as Json | undefined;
    if (target) for (const text of ['120.5', ' -3 ', '1e3']) expect(new RegExp(target.pattern).test(text)).toBe(true);
    // Answers keep format: date-time.
    expect(doc.components.schemas.Goal.properties.DueDate.format).toBe('date-time');
    // Every example of a string with a pattern is admitted by it.
    for (const [name, schema] of inputs)
      for (const [field, p] of Object.entries((schema.properties ?? {}) as Record<string, Json>))
        if (p.pattern && p.example !== undefined) expect({ name, field, ok: new RegExp(p.pattern).test(String(p.example)) }).toEqual({ name, field, ok: true });
    for (const [schema, field] of [
      ['CreateWebhookDto', 'EventTypes'],
      ['UpdateWebhookDto', 'EventTypes'],
      ['CreateApiTokenDto', 'Scopes'],
    ]) {
      const p = doc.components.schemas[schema].properties[field] as Json;
      expect({ schema, field, pattern: typeof p.pattern, example: typeof p.example }).toEqual({ schema, field, pattern: 'string', example: 'string' });
    }
    // The archive writes take any body, and ignore it; so does every action (an undelete, a close), needing none.
    for (const method of ['post', 'put']) {
      const body = op(method, method === 'post' ? '/v4/archives' : '/v4/archives/{id}').requestBody;
      expect(body.required).toBe(false);
      expect(Object.keys(body.content)).toEqual(['application/json', 'text/json', 'application/xml', 'text/xml']);
      expect(schemaOf(body.content['application/json'].schema.$ref)).toMatchObject({ type: 'object', properties: {} });
    }
    for (const [method, path] of [
      ['put', '/v4/projects/{id}/undelete'],
      ['put', '/v4/periods/{id}/close'],
      ['post', '/v4/auth/logout-everywhere'],
      ['post', '/v4/webhooks/{id}/ping'],
      ['delete', '/v4/goals/{id}'],
    ]) {
      const body = op(method, path).requestBody;
      expect({ method, path, required: body.required, schema: body.content['application/json'].schema.$ref }).toEqual({
        method,
        path,
        required: false,
        schema: '#/components/schemas/IgnoredBody',
      });
    }
    // A PATCH without a body answers the record as it is: the body is optional.
    expect(op('patch', '/v4/goals/{id}').requestBody.required).toBe(false);
    // Every write of the document declares the body it takes (a DELETE too: one sent is ignored).
    const bodiless = ops().filter(
      ({ path, method, op }) => ['post', 'put', 'patch', 'delete'].includes(method) && !path.startsWith('/scim/') && !op.requestBody,
    );
    expect(bodiless.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
  });

  it('shows real ids in the examples, and says what to replace them with', () => {
    const goals = op('post', '/v4/goals').requestBody;
    const example = goals.content['application/json'].example;
    expect(example.IndividualID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(example.PeriodID).toEqual(expect.any(Number));
    expect(goals.description).toContain(`replace \`IndividualID\` (**${example.IndividualID}**) with the ID of an individual`);
    expect(goals.description).toContain(`\`PeriodID\` (**${example.PeriodID}**) with the ID of a period`);
    // The body ID of a PUT is the path's: a UUID or an integer, as the resource's ids are.
    expect(typeof op('put', '/v4/departments/{id}').requestBody.content['application/json'].example.ID).toBe('string');
    expect(typeof op('put', '/v4/goals/{id}').requestBody.content['application/json'].example.ID).toBe('number');
    expect(op('put', '/v4/goals/{id}').requestBody.description).toMatch(/replace `ID` \(\*\*\d+\*\*\) with the id of the path/);
    expect(JSON.stringify(doc)).not.toMatch(/"(PATH|PERIOD|INDIVIDUAL|ORGANIZATION|DEPARTMENT|ANCESTOR|USER)_ID"/);
  });

  it('declares every tag with a description, the license, and no security on the public operations', () => {
    const used = [...new Set(ops().flatMap(({ op }) => op.tags as string[]))];
    expect((doc.tags as Json[]).map((t) => t.name)).toEqual(used);
    for (const tag of doc.tags as Json[]) expect({ tag: tag.name, description: typeof tag.description }).toEqual({ tag: tag.name, description: 'string' });
    expect(doc.info.license).toEqual({ name: packageJson.license, identifier: packageJson.license });
    for (const [method, path] of [
      ['post', '/v4/auth/token'],
      ['get', '/health/live'],
      ['get', '/health/ready'],
    ])
      expect({ method, path, security: op(method, path).security }).toEqual({ method, path, security: [] });
    expect(op('get', '/v4/departments').security).toEqual([{ bearer: [] }]);
    for (const { path, method, op } of ops()) expect({ path, method, description: typeof op.description }).toEqual({ path, method, description: 'string' });
  });
});
