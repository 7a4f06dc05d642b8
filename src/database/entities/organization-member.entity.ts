import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { BoolCol, StrCol, GuidRef } from '../columns.js';
import { IndividualEntity } from './individual.entity.js';
import { OrganizationEntity } from './organization.entity.js';
import { LIMITS } from '../../common/limits.js';

/** Department membership (OrganizationMember, docs/organizations.md). IsPrimary is derived from the individual. */
@Entity('organization_members')
@Index('ux_members_site_individual_org', ['siteId', 'individualId', 'organizationId'], { unique: true })
@Index('ix_members_site_org', ['siteId', 'organizationId'])
@Index('ix_members_site_org_title', ['siteId', 'organizationId', 'deletedByRef', 'title'])
@Index('ix_members_site_individual_title', ['siteId', 'individualId', 'deletedByRef', 'title'])
export class OrganizationMemberEntity extends GuidTenantEntity {
  @GuidRef(() => IndividualEntity, 'fk_members_individual', 'individual_id')
  individualId: string;

  @GuidRef(() => OrganizationEntity, 'fk_members_organization', 'organization_id')
  organizationId: string;

  @StrCol('title', LIMITS.name)
  title: string | null;

  @BoolCol('deleted_by_ref', false)
  deletedByRef: boolean;
}
