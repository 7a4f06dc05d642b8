import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, RequestBodyObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { PROBLEM_XML_NS } from '../http/wire/codec.js';
import { exampleValue } from './openapi-examples.js';
import { listElements, operationExample, PLACEHOLDERS, requestExample, type BodyExample } from '../http/wire/examples.js';
import type { RouteInfo } from './openapi-routes.js';
import type { DocumentContribution } from '../http/pipeline/document-contributor.js';
import { ordinalCompare, wireInputOf, wireTypeName } from '../http/wire/wire.js';

/**
 * Completes the document @nestjs/swagger builds from the decorators so that a generator can trust
 * it (docs/openapi.md): OpenAPI 3.1 types (`null` only where a field can be null), a `Problem`
 * schema on every error each operation can give — derived from the route's access rule, method,
 * path parameters and body —, the response and request headers, one example per request body,
 * XML names and namespaces, `servers`, and `/metrics` as text/plain.
 */
export interface RefineOptions {
  xmlNamespace: string;
  /** The features' own parts of the document (document-contributor.ts). */
  contributions: DocumentContribution[];
}

/** The media types of request bodies, by format (the merge-patch types are PATCH's: merge-patch.ts). */
const JSON_TYPES = ['application/json', 'text/json', 'application/merge-patch+json'];
const XML_TYPES = ['application/xml', 'text/xml', 'application/merge-patch+xml'];

const ref = (kind: 'schemas' | 'headers' | 'parameters' | 'responses', name: string): ReferenceObject => ({ $ref: `#/components/${kind}/${name}` });

/** Access rules that need more than a valid token: a caller without the label gets 403. */
const ROLE_RULES = new Set(['admin', 'pm', 'pm+admin', 'global-admin']);

/** Outside /v4: answered without the database (live, metrics) or with it (ready). */
const NO_DATABASE = new Set(['/health/live']);

export function refineDocument(document: OpenAPIObject, routes: RouteInfo[], opts: RefineOptions): void {
  document.openapi = '3.1.0';
  document.servers = [{ url: '/', description: 'This server (the document is served by the API it describes)' }];
  addComponents(document);
  addSharedResponses(document);
  const claimed = new Map(opts.contributions.map((c) => [c, routes.filter((r) => c.claims?.(r.path))]));
  const theirs = new Set([...claimed.values()].flat());
  for (const route of routes) {
    const op = document.paths[route.path]?.[route.method] as OperationObject | undefined;
    if (!op || theirs.has(route)) continue;
    refineOperation(document, route, op, opts);
  }
  for (const [contribution, own] of claimed) contribution.refineOperations?.(document, own);
  toOpenApi31(document);
}

// ---------------------------------------------------------------------------------------------
// Components: Problem, headers, conditional-request parameters
// ---------------------------------------------------------------------------------------------

function addComponents(document: OpenAPIObject): void {
  const components = (document.components ??= {});
  components.schemas ??= {};
  components.schemas.FieldError = {
    type: 'object',
    description: 'One failing field of a validation problem.',
    required: ['field', 'message'],
    properties: {
      field: { type: 'string', description: 'The field (or query parameter, path parameter) that failed.', example: 'Name' },
      message: { type: 'string', example: 'Name is required' },
    },
    xml: { name: 'i', namespace: PROBLEM_XML_NS },
  };
  components.schemas.Problem = {
    type: 'object',
    description:
      'RFC 9457 problem details, the body of every error: `application/problem+json`, or `application/problem+xml` (root `problem` in the namespace urn:ietf:rfc:7807, `errors` members as `<i>`) when XML was negotiated.',
    required: ['type', 'title', 'status'],
    properties: {
      type: {
        type: 'string',
        description:
          'urn:pms:problem:{code}; the code is stable: validation-failed, malformed-body, bad-request, unauthorized, invalid-credentials, forbidden, admin-required, pm-disabled, not-found, method-not-allowed, not-acceptable, conflict, id-taken, duplicate, deleted, cycle, precondition-failed, payload-too-large, unsupported-media-type, too-many-requests, service-unavailable, internal-error, …',
        example: 'urn:pms:problem:validation-failed',
      },
      title: { type: 'string', description: 'Short summary of the problem type.', example: 'The request is not valid' },
      status: { type: 'integer', format: 'int32', description: 'The HTTP status code.', example: 400 },
      detail: { type: 'string', description: 'What went wrong with this request.', example: 'Name: Name is required' },
      instance: { type: 'string', description: 'The request path.', example: '/v4/departments' },
      requestId: { type: 'string', description: 'The id of the request in the logs (also the X-Request-Id header).' },
      errors: {
        type: 'array',
        description: 'Validation problems only: every failing field.',
        items: ref('schemas', 'FieldError'),
        xml: { wrapped: true },
      },
    },
    xml: { name: 'problem', namespace: PROBLEM_XML_NS },
  };
  components.headers = {
    ...components.headers,
    'X-Request-Id': {
      description: 'The id of this request in the logs and in problem bodies; a well-formed X-Request-Id sent with the request is kept.',
      schema: { type: 'string' },
    },
    ETag: {
      description:
        'Entity tag of the record (strong; the same in JSON and XML and whatever `tz`). Send it in If-Match to change only this version (else 412), or in If-None-Match to get 304 while it is current.',
      schema: { type: 'string' },
    },
    'X-Total-Count': {
      description:
        'Number of records in the whole list (with `filter`: the records it selects that the caller may read), all pages (not sent with `updatedSince` or `cursor`: a page of changes or a keyset page counts no list).',
      schema: { type: 'integer', minimum: 0 },
    },
    Link: {
      description:
        '`<{path}?offset=…&limit=…>; rel="next"` while more records follow (with `cursor`: `<{path}?cursor=…&limit=…>`, the next page’s cursor; with `updatedSince`: `<{path}?updatedSince=seq-…&limit=…>` while a page of changes is full); absent on the last page.',
      schema: { type: 'string' },
    },
    'X-Sync-Cursor': {
      description: 'With `updatedSince`: the cursor (`seq-<n>`) to send as the next `updatedSince` (docs/delta-sync.md).',
      schema: { type: 'string', pattern: '^seq-[0-9]+$' },
    },
    'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } },
    'RateLimit-Policy': {
      description:
        'The request budgets of this request (IETF draft-ietf-httpapi-ratelimit-headers, docs/limits.md): `"caller";q=<requests>;w=<seconds>` for the caller (a person\'s account or an API token) and `"site";q=…;w=…` for its site; a budget configured as 0 is not listed.',
      schema: { type: 'string', example: '"caller";q=12000;w=60, "site";q=60000;w=60' },
    },
    RateLimit: {
      description:
        'What remains of each budget after this request: `"caller";r=<requests left>;t=<seconds until the window ends>, "site";r=…;t=…` (docs/limits.md). Sent on every answer of an authenticated request, errors included.',
      schema: { type: 'string', example: '"caller";r=11999;t=59, "site";r=59999;t=59' },
    },
    'WWW-Authenticate': { description: '`Bearer realm="pms-api"`', schema: { type: 'string' } },
    'Content-Disposition': {
      description: 'On a streamed export (docs/exports.md): `attachment; filename="<collection>.csv"` (`.xlsx`, `.ndjson`).',
      schema: { type: 'string', example: 'attachment; filename="individuals.csv"' },
    },
  };
  components.parameters = {
    ...components.parameters,
    'If-Match': {
      name: 'If-Match',
      in: 'header',
      required: false,
      description: 'The ETag the record had when read (or `*`): the change is made only if it is still current, else 412.',
      schema: { type: 'string' },
    },
    'If-None-Match': {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'ETags the client holds: 304 Not Modified (no body) when one of them is the current one.',
      schema: { type: 'string' },
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

function problemContent(): ResponseObject['content'] {
  return {
    'application/problem+json': { schema: ref('schemas', 'Problem') },
    'application/problem+xml': { schema: ref('schemas', 'Problem') },
  };
}

const pathParams = (op: OperationObject) => (op.parameters ?? []).filter((p): p is ParameterObject => 'in' in p && p.in === 'path');
const hasQuery = (op: OperationObject, name: string) => (op.parameters ?? []).some((p) => 'in' in p && p.in === 'query' && p.name === name);
/** A queried list (`filter`, inline or already the shared ListFilter): it streams exports (docs/exports.md). */
const isQueried = (op: OperationObject) =>
  hasQuery(op, 'filter') || (op.parameters ?? []).some((p) => '$ref' in p && p.$ref === '#/components/parameters/ListFilter');

/** A record answered alone: an ETag, If-None-Match and 304 (the List-of-one reads included). */
function isSingleRecord(route: RouteInfo): boolean {
  if (!route.result?.type) return false;
  if (!route.result.collection) return true;
  // A page of changes (`/v4/sync/{kind}`) is no List-of-one read of a record.
  return route.method === 'get' && /\/\{[^/]+\}$/.test(route.path) && route.result.root !== 'ArrayOfSyncEntry';
}

/**
 * PUT, PATCH and DELETE of a record honour If-Match (412); the undelete actions do not read it.
 * (The services call assertIfMatch; openapi-examples.e2e-spec.ts sends a stale one with every PUT and PATCH example.)
 */
export function honoursIfMatch(route: RouteInfo): boolean {
  const writes = route.method === 'put' || route.method === 'patch';
  if (writes && SINGLETONS.has(route.path)) return true;
  return (writes || route.method === 'delete') && /\{[^/]+\}/.test(route.path) && !route.path.endsWith('/undelete');
}

/** Records the path names without an id (one per site), whose PUT honours If-Match too. */
const SINGLETONS = new Set(['/v4/dashboards/settings']);

/**
 * The error answers shared by many operations, declared once under components.responses (an
 * operation refers to them; only 403, whose reason depends on the route, is written inline).
 */
const SHARED_RESPONSES: Record<string, { status: number; description: string; headers?: string[] }> = {
  InvalidBody: {
    status: 400,
    description:
      'Invalid input: the body (every failing field is listed in `errors`), a path id or a query parameter such as `tz` (validation-failed, malformed-body, bad-request).',
  },
  InvalidParameters: {
    status: 400,
    description: 'Invalid input: a path id or a query parameter such as `tz`, `limit`, `offset` (validation-failed; every failing parameter in `errors`).',
  },
  Unauthorized: { status: 401, description: 'No bearer token, or an invalid or expired one (unauthorized).', headers: ['WWW-Authenticate'] },
  InvalidCredentials: { status: 401, description: 'Wrong user name or password: the same answer for both (invalid-credentials).' },
  NotFound: { status: 404, description: 'No such record in the caller’s site: an unknown id and a record of another site answer the same (not-found).' },
  NoIndividual: { status: 404, description: 'The caller has no individual record in the site (not-found).' },
  Conflict: {
    status: 409,
    description: 'Conflicts with the current state, e.g. an ID already used (id-taken), a deleted record (deleted), a cycle (cycle), a duplicate (duplicate).',
  },
  PreconditionFailed: { status: 412, description: 'If-Match names an ETag that is no longer the record’s: read it again and retry (precondition-failed).' },
  PayloadTooLarge: { status: 413, description: 'The body is larger than 1 MiB (payload-too-large).' },
  NotAcceptable: {
    status: 406,
    description:
      'Accept asks only for an export type (text/csv, XLSX, application/x-ndjson) of a list that does not stream (not-acceptable; docs/exports.md): ask for JSON or XML.',
  },
  UnsupportedMediaType: {
    status: 415,
    description:
      'The Content-Type is not application/json, text/json, application/xml or text/xml, nor on PATCH application/merge-patch+json or application/merge-patch+xml (unsupported-media-type).',
  },
  BudgetSpent: {
    status: 429,
    description:
      'The request budget of the caller (its account or API token) or of its site is spent for this window: wait Retry-After seconds (too-many-requests; docs/limits.md). RateLimit says which.',
    headers: ['Retry-After', 'RateLimit', 'RateLimit-Policy'],
  },
  TooManyRequests: {
    status: 429,
    description: 'Too many failed logins for this user name or from this address: wait Retry-After seconds (too-many-requests).',
    headers: ['Retry-After'],
  },
  ServiceUnavailable: {
    status: 503,
    description: 'The database is unavailable: retry after Retry-After seconds (service-unavailable).',
    headers: ['Retry-After'],
  },
};

/** An error answer of an operation: a shared response by name, or (403) its own description. */
export type ErrorAnswer = { shared: string } | { description: string };

/** The error statuses an operation can answer. */
export function errorStatuses(route: RouteInfo, op: OperationObject): Map<number, ErrorAnswer> {
  const out = new Map<number, ErrorAnswer>();
  const v4 = route.path.startsWith('/v4/');
  const login = v4 && route.rule === 'public';
  const body = !!op.requestBody;
  const ids = pathParams(op).length > 0;
  const existing403 = (op.responses as Record<string, ResponseObject>)['403']?.description;
  if (v4) out.set(400, { shared: body ? 'InvalidBody' : 'InvalidParameters' });
  if (login) out.set(401, { shared: 'InvalidCredentials' });
  else if (route.rule !== 'public') out.set(401, { shared: 'Unauthorized' });
  if (login) out.set(403, { description: 'SiteID names another site and the user is not a global administrator (forbidden).' });
  else if (ROLE_RULES.has(route.rule)) out.set(403, { description: existing403 || 'The caller lacks the label the operation requires (forbidden).' });
  else if (route.rule === 'authenticated' && existing403) out.set(403, { description: existing403 });
  else if (route.rule === 'authenticated' && (route.method !== 'get' || ids)) {
    out.set(403, {
      description: /\{siteid\}/i.test(route.path)
        ? 'Another site than the caller’s, for anyone but a global administrator; or the caller’s rights on the record do not allow it (forbidden).'
        : 'The caller’s rights on the record do not allow it (forbidden, admin-required).',
    });
  }
  // Any operation behind a bearer token: an API token without the operation's scope (docs/identity.md).
  if (route.rule !== 'public' && !login) {
    const scope = 'An API token without the scope the operation needs (insufficient-scope).';
    const own = out.get(403);
    out.set(403, { description: own && 'description' in own ? `${own.description.replace(/\.$/, '')}; or ${scope[0].toLowerCase()}${scope.slice(1)}` : scope });
  }
  if (login) out.set(404, { description: 'SiteID names no site (not-found).' });
  else if (ids) out.set(404, { shared: 'NotFound' });
  else if (route.path === '/v4/me' || route.path.startsWith('/v4/me/')) out.set(404, { shared: 'NoIndividual' });
  else if (v4 && hasQuery(op, 'period')) out.set(404, { shared: 'NotFound' }); // a period that is not one of the site's
  if (v4 && !login && route.method !== 'get') out.set(409, { shared: 'Conflict' });
  if (honoursIfMatch(route)) out.set(412, { shared: 'PreconditionFailed' });
  if (body) {
    out.set(413, { shared: 'PayloadTooLarge' });
    out.set(415, { shared: 'UnsupportedMediaType' });
  }
  if (route.exports && !isQueried(op)) out.set(406, { shared: 'NotAcceptable' });
  if (login) out.set(429, { shared: 'TooManyRequests' });
  else if (route.rule !== 'public') out.set(429, { shared: 'BudgetSpent' });
  if (!NO_DATABASE.has(route.path)) out.set(503, { shared: 'ServiceUnavailable' });
  return out;
}

function headersOf(names: string[]): ResponseObject['headers'] {
  return Object.fromEntries(names.map((n) => [n, ref('headers', n)]));
}

function addSharedResponses(document: OpenAPIObject): void {
  const responses = (document.components!.responses ??= {});
  for (const [name, r] of Object.entries(SHARED_RESPONSES)) {
    responses[name] = { description: r.description, headers: headersOf(['X-Request-Id', ...(r.headers ?? [])]), content: problemContent() };
  }
  responses.NotModified = { description: 'Not Modified: If-None-Match names the current ETag. No body.', headers: headersOf(['ETag', 'X-Request-Id']) };
}

/** The query parameters of queried lists (QueriedListQuery), by name: the component each refers to. */
const LIST_QUERY_PARAMETERS: Readonly<Record<string, string>> = { filter: 'ListFilter', sort: 'ListSort', fields: 'ListFields', cursor: 'ListCursor' };

function refineOperation(document: OpenAPIObject, route: RouteInfo, op: OperationObject, opts: RefineOptions): void {
  const responses = op.responses as Record<string, ResponseObject>;
  const single = isSingleRecord(route);
  const paged = hasQuery(op, 'limit');

  // 200: headers, XML names.
  const ok = responses['200'];
  if (ok) {
    const names = ['X-Request-Id'];
    if (single) names.push('ETag');
    // The sync route answers changes only (its updatedSince is required); a list answers its records, or with updatedSince its changes.
    const syncRoute = (op.parameters as ParameterObject[] | undefined)?.some((p) => p.name === 'updatedSince' && p.in === 'query' && p.required);
    const changes = syncRoute || (route.delta !== undefined && !('refuse' in route.delta));
    if (paged) names.push(...(syncRoute ? [] : ['X-Total-Count']), 'Link');
    if (changes) names.push('X-Sync-Cursor');
    if (route.rule !== 'public') names.push('RateLimit', 'RateLimit-Policy');
    ok.headers = { ...headersOf(names) };
    for (const h of route.headers) {
      ok.headers[h.name] = { description: `Always \`${h.value}\`.`, schema: { type: 'string', enum: [h.value] } };
    }
    for (const [name, h] of Object.entries(route.answerHeaders ?? {})) {
      ok.headers[name] = {
        description: h.description,
        schema: { type: 'string', ...(h.format ? { format: h.format } : {}), ...(h.enum ? { enum: [...h.enum] } : {}) },
      };
    }
    refineResultSchemas(document, route, ok, opts);
    if (route.exports && isQueried(op)) addExportTypes(ok);
  }

  // A public operation says so (`security: []`): no bearer token is needed or read.
  if (route.rule === 'public') op.security = [];

  // A queried list's filter, sort, fields and cursor (docs/queries.md): one shared definition each.
  op.parameters ??= [];
  op.parameters = op.parameters.map((p) => {
    const shared = 'in' in p && p.in === 'query' ? LIST_QUERY_PARAMETERS[p.name] : undefined;
    if (!shared) return p;
    const components = (document.components ??= {});
    components.parameters ??= {};
    components.parameters[shared] ??= p;
    return ref('parameters', shared);
  });

  // Conditional requests.
  if (single && route.method === 'get') {
    op.parameters.push(ref('parameters', 'If-None-Match'));
    responses['304'] = ref('responses', 'NotModified') as unknown as ResponseObject;
  }
  if (honoursIfMatch(route)) op.parameters.push(ref('parameters', 'If-Match'));

  // Errors.
  for (const [status, answer] of errorStatuses(route, op)) {
    responses[String(status)] =
      'shared' in answer
        ? (ref('responses', answer.shared) as unknown as ResponseObject)
        : { description: answer.description, headers: headersOf(['X-Request-Id']), content: problemContent() };
  }

  if (op.requestBody) refineRequestBody(document, route, op.requestBody as RequestBodyObject, opts);
}

/**
 * A queried list's streamed exports (docs/exports.md): the whole collection as CSV, XLSX or NDJSON,
 * each a download (Content-Disposition), so Swagger UI offers the three types in its media type list.
 */
function addExportTypes(ok: ResponseObject): void {
  const note = 'The whole collection (no `limit`), with the same `filter`, `sort`, `fields` and `deleted` (docs/exports.md).';
  ok.content = {
    ...ok.content,
    'text/csv': { schema: { type: 'string', description: `CSV (RFC 4180) with a header row of the member names in ordinal order. ${note}` } },
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': {
      schema: { type: 'string', format: 'binary', description: `An XLSX workbook of one sheet, a header row then one row per record. ${note}` },
    },
    'application/x-ndjson': { schema: { type: 'string', description: `One JSON record per line, as the JSON list writes it. ${note}` } },
  };
  ok.headers = { ...ok.headers, 'Content-Disposition': ref('headers', 'Content-Disposition') };
}

/** XML names and namespaces of the 200 schemas; `/metrics` as text/plain; the probes' bodies. */
function refineResultSchemas(document: OpenAPIObject, route: RouteInfo, ok: ResponseObject, opts: RefineOptions): void {
  const content = ok.content ?? {};
  if (content['text/plain']) {
    ok.content = { 'text/plain': { schema: { type: 'string', description: 'Prometheus text exposition format (version 0.0.4).' } } };
    return;
  }
  if (route.path.startsWith('/health/')) {
    const schema: SchemaObject = {
      type: 'object',
      required: route.path === '/health/ready' ? ['status', 'database'] : ['status'],
      properties: {
        status: { type: 'string', enum: ['ok'] },
        ...(route.path === '/health/ready' ? { database: { type: 'string', enum: ['up'] } } : {}),
      },
      xml: { name: 'Object', namespace: opts.xmlNamespace },
    };
    for (const mt of Object.keys(content)) content[mt] = { schema };
    return;
  }
  const type = route.result?.type;
  const name = type ? (wireTypeName(type) ?? type.name) : undefined;
  if (name) {
    const component = document.components?.schemas?.[name] as SchemaObject | undefined;
    if (component) component.xml = { name, namespace: opts.xmlNamespace };
  }
  for (const media of Object.values(content)) {
    const schema = media.schema as SchemaObject | undefined;
    // A list's two answers (its records, or with updatedSince their changes) each have their root.
    for (const s of [schema, ...((schema?.anyOf ?? []) as SchemaObject[])]) if (s?.xml) s.xml = { ...s.xml, namespace: opts.xmlNamespace };
  }
}

function refineRequestBody(document: OpenAPIObject, route: RouteInfo, body: RequestBodyObject, opts: RefineOptions): void {
  const json = body.content['application/json']?.schema as ReferenceObject | undefined;
  const schemaName = json?.$ref?.split('/').pop();
  if (!schemaName) return;
  // The XML root of a body: the input's own wire name (TokenRequest), else the type it is an
  // input of (a CreateOrganizationDto is sent as <Organization>, a PutMetricValueDto as
  // <MetricValue>), else the type the operation answers.
  const type = route.result?.type;
  const root = (route.body && (wireTypeName(route.body) ?? wireInputOf(route.body))) ?? (type ? (wireTypeName(type) ?? type.name) : schemaName);
  const schemas = document.components?.schemas ?? {};
  const component = schemas[schemaName] as SchemaObject | undefined;
  if (component) {
    component.xml = { name: root, namespace: opts.xmlNamespace };
    nameListItems(schemas, component);
    // A body none of whose members is required may be left out: the service reads a missing body as `{}`.
    if (!(component.required ?? []).length) body.required = false;
    lenientInput(schemas, component, new Set());
  }

  const example = operationExample(`${route.method.toUpperCase()} ${route.path}`) ?? requestExample(schemaName);
  if (!example) return;
  const { value, replace } = documentedExample(example, component);
  for (const mt of JSON_TYPES) if (body.content[mt]) body.content[mt].example = value;
  for (const mt of XML_TYPES) if (body.content[mt]) body.content[mt].example = xmlExampleData(value, component, schemas);
  if (example.form && body.content['application/x-www-form-urlencoded']) body.content['application/x-www-form-urlencoded'].example = example.form;

  body.description = [
    body.description,
    `JSON or XML (root \`${root}\` in the namespace \`${opts.xmlNamespace}\`, children in ordinal order).`,
    replace.length === 0
      ? /\{[^/]+\}/.test(route.path)
        ? 'The example body works unchanged; the path names the records.'
        : 'The example works unchanged on a fresh server.'
      : `In the example, replace ${replace.join('; ')}.`,
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * The example as the document shows it: each placeholder as the example value of its field's type
 * (a UUID, or an integer for an integer id), so the example is valid against the schema; and what
 * the description tells the reader to replace: "`AncestorID`, `LeaderID` (**…0002**) with …".
 */
function documentedExample(example: BodyExample, component: SchemaObject | undefined): { value: Record<string, unknown>; replace: string[] } {
  const fields = new Map<string, { shown: unknown; names: string[] }>();
  // Records nested in the body (a bulk request's items) hold placeholders too; their fields are typed by no component.
  const nested = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(nested) : v && typeof v === 'object' ? shownOf(v as Record<string, unknown>, undefined) : v;
  const shownOf = (body: Record<string, unknown>, schema: SchemaObject | undefined): Record<string, unknown> => {
    const value: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(body)) {
      if (typeof v !== 'string' || !(v in PLACEHOLDERS)) {
        value[name] = nested(v);
        continue;
      }
      const type = (schema?.properties?.[name] as SchemaObject | undefined)?.type as string | string[] | undefined;
      const shown = exampleValue(v, type === 'integer' || (Array.isArray(type) && type.includes('integer')));
      value[name] = shown;
      const key = `${v} ${String(shown)}`;
      if (!fields.has(key)) fields.set(key, { shown, names: [] });
      if (!fields.get(key)!.names.includes(name)) fields.get(key)!.names.push(name);
    }
    return value;
  };
  const value = shownOf(example.body, component);
  for (const v of Object.values(example.form ?? {})) {
    if (v in PLACEHOLDERS && ![...fields.keys()].some((k) => k.startsWith(`${v} `))) fields.set(`${v} ${v}`, { shown: v, names: [] });
  }
  const replace = [...fields.entries()].map(([key, { shown, names }]) => {
    const token = key.split(' ')[0];
    const quoted = names.map((n) => `\`${n}\``);
    const where = quoted.length ? `${quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}` : quoted[0]} ` : '';
    return `${where}(**${String(shown)}**) with ${PLACEHOLDERS[token].means}`;
  });
  return { value, replace };
}

/**
 * The XML media types' example: the same data as the JSON one, which a tool writes as XML with the
 * schema's `xml` names (root and namespace, list items): members in ordinal order (the order
 * Swagger UI writes them in, and DataContractSerializer's), and a null only where the member is
 * required (an empty element, which the service reads as null); an optional null is left out, as
 * absent reads as null on input.
 */
function xmlExampleData(
  value: Record<string, unknown>,
  schema: SchemaObject | undefined,
  schemas: Record<string, SchemaObject | ReferenceObject>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(ordinalCompare)) {
    const v = value[key];
    if (v === null && !schema?.required?.includes(key)) continue;
    if (!Array.isArray(v)) {
      out[key] = v;
      continue;
    }
    const items = ((schema?.properties?.[key] as SchemaObject | undefined)?.items as ReferenceObject | undefined)?.$ref;
    const item = items ? (schemas[items.split('/').pop()!] as SchemaObject | undefined) : undefined;
    out[key] = v.map((x) => (x && typeof x === 'object' ? xmlExampleData(x as Record<string, unknown>, item, schemas) : x));
  }
  return out;
}

/**
 * The items of a nested list of a body (an assessment's Ratings) are named in XML as the service
 * writes them (declared by the features: `declareListElements`), so a tool writing the XML example names them right.
 */
function nameListItems(schemas: Record<string, SchemaObject | ReferenceObject>, component: SchemaObject): void {
  for (const [name, element] of listElements()) {
    const items = (component.properties?.[name] as SchemaObject | undefined)?.items as ReferenceObject | undefined;
    const item = items?.$ref ? (schemas[items.$ref.split('/').pop()!] as SchemaObject | undefined) : undefined;
    if (item && !item.xml) item.xml = { name: element };
  }
}

/**
 * What the service reads beside a JSON number, boolean or UUID in an input member (wire.ts
 * `coerce`, which XML needs and JSON gets alike): a number or boolean as text, a UUID with blanks
 * around it or empty (null). The document says so, so that it accepts what the service accepts
 * (docs/openapi.md, "the request side"): the type gains `string`, with a pattern for the text.
 * A member with an `enum` keeps its values as they are.
 */
const LENIENT_TEXT: Record<string, string> = {
  integer: '^\\s*-?\\d+\\s*$',
  number: '^\\s*-?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?\\s*$',
  boolean: '^(true|false|1|0)$',
};
const LENIENT_UUID = '^\\s*([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})?\\s*$';

function lenientInput(schemas: Record<string, SchemaObject | ReferenceObject>, schema: SchemaObject, seen: Set<SchemaObject>): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  for (const member of Object.values(schema.properties ?? {}) as (SchemaObject & ReferenceObject)[]) {
    const nested = member.$ref ?? (member.items as ReferenceObject | undefined)?.$ref;
    if (nested) {
      const target = schemas[nested.split('/').pop()!] as SchemaObject | undefined;
      if (target) lenientInput(schemas, target, seen);
      continue;
    }
    if (member.enum) continue;
    const type = member.type as string | undefined;
    if (type && LENIENT_TEXT[type]) {
      (member as unknown as Json).type = [type, 'string'];
      member.pattern = LENIENT_TEXT[type];
    } else if (type === 'string' && member.format === 'uuid') {
      delete member.format;
      member.pattern = LENIENT_UUID;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// OpenAPI 3.0 → 3.1 schemas
// ---------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

/**
 * @nestjs/swagger writes 3.0's `nullable`; 3.1 (JSON Schema 2020-12) says it with a `null` type:
 * `type: [string, 'null']`, `null` in an `enum`, and `anyOf: [{$ref}, {type: 'null'}]` for a
 * reference (also one written as `allOf: [{$ref}]`). `nullable: false` is dropped.
 */
function toOpenApi31(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) toOpenApi31(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const obj = node as Json;
  if ('nullable' in obj) {
    const nullable = obj.nullable === true;
    delete obj.nullable;
    if (nullable) {
      const refs = obj.allOf as Json[] | undefined;
      if (Array.isArray(refs) && refs.length === 1 && typeof refs[0].$ref === 'string') {
        // A nested record member (`allOf: [{$ref}]`, how @nestjs/swagger writes a lazily typed one): the record or null.
        obj.anyOf = [refs[0], { type: 'null' }];
        delete obj.allOf;
        delete obj.type;
      } else if (typeof obj.$ref === 'string') {
        obj.anyOf = [{ $ref: obj.$ref }, { type: 'null' }];
        delete obj.$ref;
      } else if (typeof obj.type === 'string') {
        obj.type = [obj.type, 'null'];
        if (Array.isArray(obj.enum) && !obj.enum.includes(null)) obj.enum = [...(obj.enum as unknown[]), null];
      } else if (Array.isArray(obj.type) && !obj.type.includes('null')) {
        obj.type = [...(obj.type as unknown[]), 'null'];
      }
    }
  }
  for (const value of Object.values(obj)) toOpenApi31(value);
}
