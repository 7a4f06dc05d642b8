import { SCIM_BASE, SCIM_SCHEMA } from './scim-protocol.js';
import { LIMITS } from '../../common/limits.js';
import { MAX_COUNT } from './scim-wire.js';

/**
 * What a provisioning client reads to learn this service (RFC 7643 §5–7): what it supports, its
 * two resource types and the attributes it keeps. Static documents; docs/identity.md says the same.
 */
type Json = Record<string, unknown>;

const meta = (resourceType: string, path: string) => ({ resourceType, location: `${SCIM_BASE}/${path}` });

export const SERVICE_PROVIDER_CONFIG: Json = {
  schemas: [SCIM_SCHEMA.serviceProviderConfig],
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_COUNT },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: true },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'API token',
      description: 'An API token of the site with the scope scim (POST /v4/apitokens), sent as Authorization: Bearer pms_…',
      primary: true,
    },
  ],
  meta: meta('ServiceProviderConfig', 'ServiceProviderConfig'),
};

/** One attribute definition of a schema (RFC 7643 §7), with the defaults most attributes share. */
function attr(name: string, opts: Partial<Record<string, unknown>> & { subAttributes?: Json[] } = {}): Json {
  return {
    name,
    type: 'string',
    multiValued: false,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...opts,
  };
}

/** A Schema document (RFC 7643 §7) of the attributes kept. */
const schema = (id: string, name: string, description: string, attributes: Json[]): Json => ({
  schemas: [SCIM_SCHEMA.schema],
  id,
  name,
  description,
  attributes,
  meta: meta('Schema', `Schemas/${id}`),
});

const USER_SCHEMA = schema(
  SCIM_SCHEMA.user,
  'User',
  `A person of the site: an individual with its login account. Names of at most ${LIMITS.personName} characters, other texts at most ${LIMITS.name}.`,
  [
    attr('userName', { required: true, uniqueness: 'server', description: 'The sign-in name; unique across every site, case-insensitive.' }),
    attr('name', {
      type: 'complex',
      subAttributes: [attr('formatted', { mutability: 'readOnly' }), attr('familyName'), attr('givenName')],
    }),
    attr('displayName', { mutability: 'readOnly', description: '"givenName familyName".' }),
    attr('title', { description: 'The title in the primary organization.' }),
    attr('active', { type: 'boolean', description: 'false: the person cannot sign in and their tokens are refused.' }),
    attr('emails', {
      multiValued: true,
      type: 'complex',
      description: 'One address is kept: the primary one (else work, else the first); answered as the primary work address.',
      subAttributes: [attr('value'), attr('type'), attr('primary', { type: 'boolean' })],
    }),
    attr('externalId', { caseExact: true, description: 'The provisioning client’s id of the person.' }),
  ],
);

const ENTERPRISE_USER_SCHEMA = schema(SCIM_SCHEMA.enterpriseUser, 'EnterpriseUser', 'The enterprise extension: only manager is kept.', [
  attr('manager', {
    type: 'complex',
    description: 'Whom the person reports to: the id of a User of the site.',
    subAttributes: [attr('value', { caseExact: true }), attr('$ref', { type: 'reference', referenceTypes: ['User'] })],
  }),
]);

const GROUP_SCHEMA = schema(SCIM_SCHEMA.group, 'Group', 'A security group of the site; Permission records naming it apply to its members.', [
  attr('displayName', { required: true }),
  attr('externalId', { caseExact: true }),
  attr('members', {
    multiValued: true,
    type: 'complex',
    subAttributes: [
      attr('value', { caseExact: true, mutability: 'immutable' }),
      attr('display', { mutability: 'readOnly' }),
      attr('type', { mutability: 'readOnly' }),
    ],
  }),
]);

export const SCHEMAS: readonly Json[] = [USER_SCHEMA, ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA];

/** A ResourceType document (RFC 7643 §6). */
const resourceType = (name: 'User' | 'Group', description: string, schema: string, schemaExtensions: Json[]): Json => ({
  schemas: [SCIM_SCHEMA.resourceType],
  id: name,
  name,
  endpoint: `/${name}s`,
  description,
  schema,
  schemaExtensions,
  meta: meta('ResourceType', `ResourceTypes/${name}`),
});

export const RESOURCE_TYPES: readonly Json[] = [
  resourceType('User', 'People of the site', SCIM_SCHEMA.user, [{ schema: SCIM_SCHEMA.enterpriseUser, required: false }]),
  resourceType('Group', 'Security groups of the site', SCIM_SCHEMA.group, []),
];
