import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { Injectable } from '@nestjs/common';
import { ContributesToDocument, type DocumentContribution, type DocumentRoute } from '../../http/pipeline/document-contributor.js';
import { SCIM_BASE, SCIM_MEDIA_TYPE, SCIM_SCHEMA } from './scim-protocol.js';

/**
 * The SCIM operations of the document (tag SCIM; docs/identity.md, "SCIM provisioning"): their
 * bodies in `application/scim+json` (requests also in `application/json`), the User, Group,
 * ListResponse, PatchOp and Error schemas, paging and attribute parameters, and the SCIM error
 * body on every error status. The /v4 refinement (openapi-document.ts) leaves these paths alone.
 */
const ref = (kind: 'schemas' | 'headers' | 'parameters', name: string): ReferenceObject => ({ $ref: `#/components/${kind}/${name}` });
const obj = (properties: Record<string, SchemaObject | ReferenceObject>, required: string[] = [], description?: string): SchemaObject => ({
  type: 'object',
  ...(description ? { description } : {}),
  ...(required.length ? { required } : {}),
  properties,
});
const str = (description?: string, extra: SchemaObject = {}): SchemaObject => ({ type: 'string', ...(description ? { description } : {}), ...extra });
const list = (items: SchemaObject | ReferenceObject, description?: string): SchemaObject => ({ type: 'array', items, ...(description ? { description } : {}) });

const META = obj(
  {
    resourceType: str(undefined, { enum: ['User', 'Group'] }),
    created: str('An instant in UTC, e.g. 2026-01-31T09:30:00.000Z.'),
    lastModified: str('An instant in UTC.'),
    location: str('The resource’s path, /scim/v2/{Users|Groups}/{id}.'),
    version: str('The ETag, W/"…".'),
  },
  ['resourceType', 'created', 'lastModified', 'location'],
);

/** What every resource has: its schemas, read-only id and meta, and the client's externalId. */
const identity = (row: string, what: string): Record<string, SchemaObject> => ({
  schemas: list(str()),
  id: str(`The ${row}’s ID (read-only).`, { readOnly: true }),
  externalId: str(`The provisioning client’s id of the ${what} (at most 255 characters).`),
  meta: { ...META, readOnly: true },
});

const SCHEMAS: Record<string, SchemaObject> = {
  ScimError: obj(
    {
      schemas: list(str(undefined, { enum: [SCIM_SCHEMA.error] })),
      status: str('The HTTP status, as a string.', { example: '400' }),
      scimType: str('What kind of failure (RFC 7644 §3.12).', {
        enum: ['invalidFilter', 'tooMany', 'uniqueness', 'mutability', 'invalidSyntax', 'invalidPath', 'noTarget', 'invalidValue', 'invalidVers', 'sensitive'],
      }),
      detail: str('What went wrong with this request.'),
    },
    ['schemas', 'status'],
    'A SCIM error (RFC 7644 §3.12), the body of every error under /scim/v2.',
  ),
  ScimUser: obj(
    {
      ...identity('individual', 'person'),
      userName: str('The sign-in name: unique across every site, case-insensitive (409 uniqueness otherwise).', { example: 'ada.lovelace@example.com' }),
      name: obj({
        formatted: str('"givenName familyName" (read-only).', { readOnly: true }),
        givenName: str('At most 50 characters.', { example: 'Ada' }),
        familyName: str('At most 50 characters.', { example: 'Lovelace' }),
      }),
      displayName: str('"givenName familyName" (read-only).', { readOnly: true }),
      emails: list(
        obj({ value: str(undefined, { example: 'ada.lovelace@example.com' }), type: str(undefined, { example: 'work' }), primary: { type: 'boolean' } }),
        'One address is kept: the primary (else work, else first) one.',
      ),
      title: str('The title in the primary organization.'),
      active: { type: 'boolean', description: 'false: the person cannot sign in and every token they hold is refused; true restores sign-in.' },
      [SCIM_SCHEMA.enterpriseUser]: obj({ manager: obj({ value: str('The id of a User of the site.'), $ref: str(undefined, { readOnly: true }) }) }),
    },
    ['userName'],
    'A person of the site (RFC 7643 §4.1): an individual with its login account. Attributes the service does not keep are accepted and ignored.',
  ),
  ScimGroup: obj(
    {
      ...identity('security group', 'group'),
      displayName: str('The group’s name (at most 255 characters).', { example: 'Engineering' }),
      members: list(
        obj(
          {
            value: str('The id of a User of the site.'),
            display: str(undefined, { readOnly: true }),
            $ref: str(undefined, { readOnly: true }),
            type: str(undefined, { readOnly: true }),
          },
          ['value'],
        ),
      ),
    },
    ['displayName'],
    'A security group of the site (RFC 7643 §4.2).',
  ),
  ScimListResponse: obj(
    {
      schemas: list(str(undefined, { enum: [SCIM_SCHEMA.listResponse] })),
      totalResults: { type: 'integer', minimum: 0 },
      itemsPerPage: { type: 'integer', minimum: 0 },
      startIndex: { type: 'integer', minimum: 1 },
      Resources: list({ type: 'object' }, 'Users, Groups, ResourceTypes or Schemas, by the path.'),
    },
    ['schemas', 'totalResults', 'itemsPerPage', 'startIndex', 'Resources'],
    'A page of resources (RFC 7644 §3.4.2).',
  ),
  ScimPatchOp: obj(
    {
      schemas: list(str(undefined, { enum: [SCIM_SCHEMA.patchOp] })),
      Operations: list(
        obj(
          {
            op: str('add, replace or remove (any case).', { example: 'replace' }),
            path: str('An attribute path, e.g. active, name.givenName, emails[type eq "work"].value, members[value eq "…"].'),
            value: { description: 'The new value; without a path an object of attributes.' },
          },
          ['op'],
        ),
      ),
    },
    ['Operations'],
    'A SCIM PATCH (RFC 7644 §3.5.2).',
  ),
  ScimDocument: obj({ schemas: list(str()) }, ['schemas'], 'A SCIM discovery document: ServiceProviderConfig, a ResourceType or a Schema (RFC 7643 §5–7).'),
};

const EXAMPLES: Record<string, unknown> = {
  ScimUser: {
    schemas: [SCIM_SCHEMA.user, SCIM_SCHEMA.enterpriseUser],
    userName: 'ada.lovelace@example.com',
    externalId: '00u1ab2cd3EF4gh5i6j7',
    name: { givenName: 'Ada', familyName: 'Lovelace' },
    emails: [{ value: 'ada.lovelace@example.com', type: 'work', primary: true }],
    title: 'Analyst',
    active: true,
  },
  ScimGroup: { schemas: [SCIM_SCHEMA.group], displayName: 'Engineering', externalId: 'eng', members: [] },
  'ScimPatchOp:ScimUser': { schemas: [SCIM_SCHEMA.patchOp], Operations: [{ op: 'replace', value: { active: false } }] },
  'ScimPatchOp:ScimGroup': { schemas: [SCIM_SCHEMA.patchOp], Operations: [{ op: 'replace', path: 'displayName', value: 'Engineering' }] },
};

const QUERY = (name: string, description: string, schema: SchemaObject = { type: 'string' }): ParameterObject => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
const PROJECTION = [
  QUERY('attributes', 'Comma-separated attributes to answer (id, schemas and meta always come).'),
  QUERY('excludedAttributes', 'Comma-separated attributes to leave out (e.g. members of a large group).'),
];
const PAGING = [
  QUERY('filter', 'A SCIM filter, e.g. userName eq "ada@example.com" (400 invalidFilter when it cannot be answered).'),
  QUERY('startIndex', '1-based index of the first result (default 1).', { type: 'integer', minimum: 1 }),
  QUERY('count', 'Results per page (default 100, at most 1000; 0 answers only totalResults).', { type: 'integer', minimum: 0 }),
];

const content = (schema: string) => ({ [SCIM_MEDIA_TYPE]: { schema: ref('schemas', schema) } });
const errorResponse = (description: string): ResponseObject => ({
  description,
  headers: { 'X-Request-Id': ref('headers', 'X-Request-Id') },
  content: content('ScimError'),
});

/** The resource a SCIM path is about: Users, Groups, or a discovery document. */
function resourceOf(path: string): 'ScimUser' | 'ScimGroup' | null {
  if (/\/Users(\/|$)/.test(path)) return 'ScimUser';
  if (/\/Groups(\/|$)/.test(path)) return 'ScimGroup';
  return null;
}

/** The SCIM operations of the document: media type, schemas and error bodies (found by the document builder). */
@Injectable()
@ContributesToDocument()
export class ScimDocument implements DocumentContribution {
  claims(path: string): boolean {
    return path === SCIM_BASE || path.startsWith(`${SCIM_BASE}/`);
  }

  refineOperations(document: OpenAPIObject, routes: DocumentRoute[]): void {
    refineScimOperations(document, routes);
  }
}

/** Completes the operations of the SCIM routes (every route under /scim/v2). */
function refineScimOperations(document: OpenAPIObject, routes: DocumentRoute[]): void {
  const components = (document.components ??= {});
  components.schemas = { ...components.schemas, ...SCHEMAS };
  for (const route of routes) {
    const op = document.paths[route.path]?.[route.method] as OperationObject | undefined;
    if (!op) continue;
    const resource = resourceOf(route.path);
    const single = /\{[^/]+\}$/.test(route.path);
    const collection = !single && route.method === 'get' && !route.path.endsWith('/ServiceProviderConfig');
    const params = (op.parameters ?? []).filter((p) => 'in' in p && p.in === 'path');
    if (route.method === 'get' && resource) params.push(...(collection ? PAGING : []), ...PROJECTION);
    if (resource === 'ScimGroup' && route.method !== 'get' && route.method !== 'delete') params.push(...PROJECTION);
    const conditional = resource && single && route.method !== 'get';
    if (conditional) params.push(ref('parameters', 'If-Match') as unknown as ParameterObject);
    op.parameters = params;

    const body = route.method === 'post' || route.method === 'put' || route.method === 'patch';
    if (body && resource) {
      const schema = route.method === 'patch' ? 'ScimPatchOp' : resource;
      const media = { schema: ref('schemas', schema), example: EXAMPLES[schema] ?? EXAMPLES[`${schema}:${resource}`] };
      op.requestBody = { required: true, content: { [SCIM_MEDIA_TYPE]: media, 'application/json': media } };
    }

    const okSchema = collection ? 'ScimListResponse' : (resource ?? 'ScimDocument');
    const responses: Record<string, ResponseObject> = {};
    const headers: Record<string, ReferenceObject | { description: string; schema: SchemaObject }> = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
    if (resource && !collection) headers.ETag = { description: 'The weak entity tag, W/"<version>-<hash>"; send it in If-Match.', schema: { type: 'string' } };
    if (route.method === 'post') {
      headers.Location = { description: 'The new resource’s path.', schema: { type: 'string' } };
      responses['201'] = { description: 'Created', headers, content: content(okSchema) };
    } else if (route.method === 'delete') {
      responses['204'] = { description: 'Deleted (no body)', headers: { 'X-Request-Id': ref('headers', 'X-Request-Id') } };
    } else {
      responses['200'] = { description: collection ? 'A ListResponse' : 'The resource', headers, content: content(okSchema) };
      if (route.method === 'get' && resource && single) responses['304'] = { description: 'Not Modified: If-None-Match names the current ETag.', headers };
    }
    const errors: [number, string][] = [
      [400, 'Invalid input (scimType invalidFilter, invalidValue, invalidSyntax, invalidPath, noTarget, mutability).'],
      [401, 'No bearer token, or an invalid, expired or revoked one.'],
      [403, 'Not an API token with the scope scim (a person’s token, or a token without the scope).'],
    ];
    if (single) errors.push([404, 'No such resource in the token’s site: an unknown id and another site’s id answer the same.']);
    if (body) errors.push([409, 'userName already taken (scimType uniqueness).']);
    if (conditional) errors.push([412, 'If-Match names another version of the resource: read it again.']);
    if (body) {
      errors.push([413, 'The body is larger than 1 MiB.']);
      errors.push([415, `The body is not ${SCIM_MEDIA_TYPE} or application/json.`]);
    }
    errors.push([503, 'The database is unavailable: retry after Retry-After seconds.']);
    for (const [status, description] of errors) responses[String(status)] = errorResponse(description);
    op.responses = responses;
  }
}
