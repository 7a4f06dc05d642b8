import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { StrCol, TextCol, GuidRef } from '../columns.js';
import { LIMITS } from '../../common/limits.js';
import { IndividualEntity } from './individual.entity.js';

/** A named set of individuals that Permission records can name as their principal (docs/authorization.md). */
@Entity('security_groups')
@Index('ix_security_groups_site_name', ['siteId', 'name'])
@Index('ix_security_groups_site_external_id', ['siteId', 'externalId'])
export class SecurityGroupEntity extends GuidTenantEntity {
  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @TextCol('description')
  description: string | null;

  /** The provisioning client's own id of the group (SCIM `externalId`, docs/identity.md); never read from a /v4 body. */
  @StrCol('external_id', LIMITS.name)
  externalId: string | null;
}

/** One individual's membership of a security group; one row per pair (unique index). */
@Entity('security_group_members')
@Index('ux_security_group_members_pair', ['siteId', 'groupId', 'individualId'], { unique: true })
@Index('ix_security_group_members_individual', ['siteId', 'individualId'])
export class SecurityGroupMemberEntity extends GuidTenantEntity {
  @GuidRef(() => SecurityGroupEntity, 'fk_security_group_members_group', 'group_id')
  groupId: string;

  @GuidRef(() => IndividualEntity, 'fk_security_group_members_individual', 'individual_id')
  individualId: string;
}
