import { LIMITS, field, resource, trim } from '../../../http/wire/resource.js';
import { InputField } from '../../../http/wire/wire.js';
import { QueriedPageQuery } from '../../../http/wire/pagination.js';
import type { IdentityProviderEntity } from '../../../database/entities/identity-provider.entity.js';
import { declareExamples } from '../../../http/wire/examples.js';

export const GROUP_MAPPINGS_MAX = 200;

export interface GroupMappingRow {
  Claim: string;
  SecurityGroupID: string;
}

/** One entry of `IdentityProvider.GroupMappings`; XML element `GroupMapping`. */
export const GroupMapping = resource<GroupMappingRow>()('GroupMapping', {
  createName: 'GroupMappingInput',
  fields: {
    Claim: field.string('Req', {
      max: LIMITS.name,
      min: 1,
      column: 'Claim',
      description: 'A value of the groups claim, e.g. a group name or object id at the provider.',
    }),
    SecurityGroupID: field.guid('Req', {
      column: 'SecurityGroupID',
      description: 'The security group of the site whose member the person is while the claim lists the value.',
    }),
  },
});
export const GroupMappingDto = GroupMapping.Response;
export const GroupMappingInput = GroupMapping.Create;
export type GroupMappingInput = InstanceType<typeof GroupMappingInput>;

const mappingsInput = (description: string) =>
  InputField('array', { nested: () => GroupMappingInput, description: `${description} At most ${GROUP_MAPPINGS_MAX} mappings.` });

const bool = (description: string, createDefault: boolean) =>
  field.bool('-', {
    description,
    createDefault,
    nullIsAbsent: true,
    create: { description: `${description} Default ${createDefault}.` },
    update: { description: `${description} Absent keeps the value.` },
  });

/**
 * A site's OpenID Connect identity provider (docs/identity.md, "Single sign-on"): which tokens the
 * service accepts as a person of the site, and how it finds (or creates) their account.
 */
export const IdentityProvider = resource<IdentityProviderEntity, { mappings: GroupMappingRow[] }>()('IdentityProvider', {
  audit: 'audit',
  // Lists may filter on these and sort by Name, their own order (docs/queries.md).
  fields: {
    ID: { ...field.id(), query: { filter: true } },
    Name: field.string('Req', { query: { filter: true, sort: true }, max: LIMITS.name, min: 1, write: trim, description: 'A label, e.g. "Okta".' }),
    Issuer: field.string('Req', {
      query: { filter: true },
      max: 500,
      min: 1,
      write: trim,
      description:
        'The provider’s issuer URL exactly as its tokens’ `iss` claim says it (e.g. `https://login.microsoftonline.com/<tenant>/v2.0`); its `/.well-known/openid-configuration` is read from it.',
    }),
    ClientID: field.string('Req', {
      query: { filter: true },
      max: LIMITS.name,
      min: 1,
      write: trim,
      description: 'The client (application) id registered at the provider; always an accepted audience. One issuer and client id belong to one site.',
    }),
    Audiences: field.string('-', {
      nullable: true,
      max: 1000,
      description: 'Space-separated further accepted `aud` values (e.g. an access token’s API audience such as `api://pms`).',
    }),
    UserClaim: field.string('-', {
      max: 100,
      min: 1,
      createDefault: 'email',
      nullIsAbsent: true,
      description: 'The claim naming the account: its value is matched to a user name of the site, or else to an account e-mail.',
      create: { description: 'Default `email`; `preferred_username` (Keycloak, Entra) or `upn` are common.' },
      update: { description: 'Absent keeps the value.' },
    }),
    JitProvisioning: bool('Create an account and individual at the first sign-in of someone without one.', false),
    JitOrganizationID: field.guid('-', {
      nullable: true,
      description: 'The organization just-in-time people join; null: the site’s first top-level organization.',
    }),
    GroupsClaim: field.string('-', {
      nullable: true,
      max: 100,
      description: 'The claim listing the person’s groups (e.g. `groups`); null: groups are not mapped.',
    }),
    GroupMappings: field.array('-', {
      nested: () => GroupMappingDto,
      column: null,
      description: 'Groups claim values → security groups, applied at each sign-in. In XML one GroupMapping element each.',
      from: (_p: IdentityProviderEntity, x: { mappings: GroupMappingRow[] }) => x.mappings.map((m) => GroupMapping.toWire(m)),
      create: { decorator: mappingsInput('Absent or null: none.') },
      update: { decorator: mappingsInput('Absent keeps the mappings; a list (also an empty one) replaces them; null clears them.') },
    }),
    Enabled: { ...bool('Tokens of this provider are accepted.', true), query: { filter: true } },
    SiteID: field.guid('RO'),
  },
});

export const { Response: IdentityProviderDto } = IdentityProvider;
export type IdentityProviderDto = InstanceType<typeof IdentityProviderDto>;
export const CreateIdentityProviderDto = IdentityProvider.Create;
export type CreateIdentityProviderDto = InstanceType<typeof CreateIdentityProviderDto> & { GroupMappings?: GroupMappingInput[] | null };
export const UpdateIdentityProviderDto = IdentityProvider.Update;
export type UpdateIdentityProviderDto = InstanceType<typeof UpdateIdentityProviderDto> & { GroupMappings?: GroupMappingInput[] | null };

export class IdentityProviderQuery extends QueriedPageQuery {}

/** `GET /identityproviders/collisions` (global administrators): `issuer`, and the queries of every list (docs/queries.md). */
export class CollisionQuery extends QueriedPageQuery {
  @InputField('string', {
    max: 500,
    min: 1,
    description: 'Instead of the colliding providers, every provider of every site with exactly this Issuer (who holds a pair a registration was refused for).',
  })
  issuer?: string;
}

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchIdentityProviderDto: { body: { Enabled: false } },
  CreateIdentityProviderDto: {
    body: {
      Name: 'Okta',
      Issuer: 'https://example.okta.com/oauth2/default',
      ClientID: '0oa1b2c3d4e5f6g7h8i9',
      Audiences: 'api://pms',
      UserClaim: 'email',
      GroupsClaim: 'groups',
    },
  },
  UpdateIdentityProviderDto: {
    body: {
      ID: 'PATH_ID',
      Name: 'Okta (production)',
      Issuer: 'https://example.okta.com/oauth2/default',
      ClientID: '0oa1b2c3d4e5f6g7h8i9',
      JitProvisioning: true,
    },
  },
});
