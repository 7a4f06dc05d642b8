import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { BoolCol, GuidCol, IntCol, StrCol, TextCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/** Row types (docs/organizations.md): organization 4, department 56. */
export const ROW_TYPE_ORGANIZATION = 4;
export const ROW_TYPE_DEPARTMENT = 56;

/** Organizations and departments share this table (the Organization resource, docs/organizations.md). */
@Entity('organizations')
@Index('ix_organizations_site_type', ['siteId', 'rowType', 'deleted', 'name'])
// Behind the fields lists may be filtered and sorted on (docs/queries.md; migration 1732000002610).
@Index('ix_organizations_site_rank', ['siteId', 'rowType', 'deleted', 'rank', 'name'])
@Index('ix_organizations_site_updated', ['siteId', 'rowType', 'deleted', 'updated'])
@Index('ix_organizations_site_parent', ['siteId', 'parentId'])
@Index('ux_organizations_site_external_id', ['siteId', 'externalId'], { unique: true })
export class OrganizationEntity extends GuidTenantEntity {
  @GuidCol('parent_id', { nullable: true })
  parentId: string | null;

  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @TextCol('description')
  description: string | null;

  @IntCol('row_type', { default: ROW_TYPE_DEPARTMENT })
  rowType: number;

  @GuidCol('manager_id', { nullable: true })
  managerId: string | null;

  @IntCol('rank', { default: 0 })
  rank: number;

  /** The HR system's key of the unit (Organization.ExternalID; docs/bulk.md): unique per site. */
  @StrCol('external_id', LIMITS.name)
  externalId: string | null;

  @BoolCol('deleted', false)
  deleted: boolean;

  @BoolCol('deleted_by_ref', false)
  deletedByRef: boolean;
}
