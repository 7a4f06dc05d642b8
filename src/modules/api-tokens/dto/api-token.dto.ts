import { LIMITS, field, resource, trim } from '../../../http/wire/resource.js';
import { QueriedPageQuery } from '../../../http/wire/pagination.js';
import type { ApiTokenEntity } from '../../../database/entities/api-token.entity.js';
import { declareExamples } from '../../../http/wire/examples.js';
import { SCOPES_PATTERN } from '../../../auth/api-token.js';

/** What an API token's answer needs beyond its row: the secret, in the answer that creates it only. */
export interface ApiTokenExtras {
  secret: string | null;
}

/**
 * An API token (docs/identity.md, "API tokens"): a named, scoped credential acting as a service
 * principal of the site. The secret is answered once, by the POST that creates it.
 */
export const ApiToken = resource<ApiTokenEntity, ApiTokenExtras>()('ApiToken', {
  audit: 'audit',
  // Lists may filter and sort on Created, their own order (docs/queries.md). Neither the secret nor
  // its hash is a field that can be queried: the hash is no member, the secret has no column.
  auditQuery: { Created: { filter: true, sort: true } },
  fields: {
    ID: field.guid('RO', { query: { filter: true } }),
    Name: field.string('Req', {
      query: { filter: true, sort: true },
      max: LIMITS.name,
      min: 1,
      write: trim,
      description: 'What the token is for, e.g. "Payroll sync"; not blank.',
    }),
    Scopes: field.string('Req', {
      max: 1000,
      min: 1,
      pattern: SCOPES_PATTERN,
      example: 'individuals:read goals:write',
      description:
        'Space-separated scopes: `<kind>:read` or `<kind>:write` for a resource kind (the first path segment after /v4, e.g. `individuals:read`, `goals:write`; write includes read), ' +
        '`*:read` or `*:write` for every kind; `scim` for SCIM provisioning at /scim/v2 (only a token naming it exactly may provision). Delta sync (`/v4/sync/{kind}`) needs the read scope of its kind. ' +
        '`admin` lets the token also write IsAdmin, a Password and an administrator’s UserName or UserEmail — **it can make anyone an administrator or sign in as them: give it only to a system as trusted as an administrator** (docs/security.md). No scope admits to /v4/apitokens, /v4/identityproviders or /v4/auth.',
    }),
    Expires: field.date('-', {
      query: { filter: true, sort: true },
      nullable: true,
      description: 'When the token stops working.',
      create: { description: 'In the future, at most 2 years ahead; absent or null: 90 days from now.' },
    }),
    Secret: field.string('RO', {
      nullable: true,
      column: null,
      from: (_t: ApiTokenEntity, x: ApiTokenExtras) => x.secret,
      description: 'The bearer secret (`pms_…`): answered only by the POST that creates the token, null afterwards. Only its hash is stored.',
    }),
    Hint: field.string('RO', { description: 'The first characters of the secret, to recognise the token.' }),
    LastUsed: field.date('RO', {
      query: { filter: true, sort: true },
      nullable: true,
      description: 'When the token was last used (recorded at most once a minute).',
    }),
    Revoked: field.date('RO', { query: { filter: true }, nullable: true, description: 'When the token was revoked; a revoked token is refused.' }),
    SiteID: field.guid('RO'),
  },
});

export const { Response: ApiTokenDto, Create: CreateApiTokenDto } = ApiToken;
export type ApiTokenDto = InstanceType<typeof ApiTokenDto>;
export type CreateApiTokenDto = InstanceType<typeof CreateApiTokenDto>;

export class ApiTokenQuery extends QueriedPageQuery {}

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  CreateApiTokenDto: { body: { Name: 'Payroll sync', Scopes: 'individuals:read goals:write' } },
});
