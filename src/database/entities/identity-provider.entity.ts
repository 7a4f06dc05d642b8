import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { BoolCol, GuidCol, StrCol, TextCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/**
 * A site's OpenID Connect identity provider (docs/identity.md, "Single sign-on"). Tokens are matched
 * to a configuration by their issuer (`ix_identity_providers_issuer`, read before any site is known)
 * and audience.
 */
@Entity('identity_providers')
@Index('ix_identity_providers_site_name', ['siteId', 'name'])
@Index('ix_identity_providers_issuer', ['issuer'])
@Index('ix_identity_providers_site_issuer', ['siteId', 'issuer'])
@Index('ix_identity_providers_site_client', ['siteId', 'clientId'])
@Index('ix_identity_providers_site_enabled', ['siteId', 'enabled', 'name'])
export class IdentityProviderEntity extends GuidTenantEntity {
  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @StrCol('issuer', 500, { nullable: false })
  issuer: string;

  @StrCol('client_id', LIMITS.name, { nullable: false })
  clientId: string;

  /** Space-separated audiences accepted besides the client id. */
  @StrCol('audiences', 1000, { nullable: true })
  audiences: string | null;

  /** The claim whose value is the account's user name or e-mail (`email`, `preferred_username`, `upn`…). */
  @StrCol('user_claim', 100, { nullable: false })
  userClaim: string;

  /** Create an account and individual at the first sign-in of someone unknown. */
  @BoolCol('jit_provisioning', false)
  jitProvisioning: boolean;

  /** The organization just-in-time individuals join (null: the site's first top-level organization). */
  @GuidCol('jit_organization_id', { nullable: true })
  jitOrganizationId: string | null;

  /** The claim listing the person's groups at the provider (e.g. `groups`); null: no mapping. */
  @StrCol('groups_claim', 100, { nullable: true })
  groupsClaim: string | null;

  /** JSON list of `{ "Claim": value, "SecurityGroupID": id }` (read with `groupMappingsOf`). */
  @TextCol('group_mappings', { nullable: true })
  groupMappings: string | null;

  @BoolCol('enabled', true)
  enabled: boolean;
}

/** One entry of `IdentityProviderEntity.groupMappings`: a value of the groups claim and the security group it maps to. */
export interface GroupMapping {
  Claim: string;
  SecurityGroupID: string;
}

/** The group mappings a provider row holds; an empty or unreadable column is none. */
export function groupMappingsOf(row: Pick<IdentityProviderEntity, 'groupMappings'>): GroupMapping[] {
  if (!row.groupMappings) return [];
  try {
    const v = JSON.parse(row.groupMappings) as unknown;
    return Array.isArray(v) ? (v as GroupMapping[]) : [];
  } catch {
    return [];
  }
}
