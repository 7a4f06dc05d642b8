import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { BoolCol, IntCol, StrCol, TextCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/** A core value of a site (assessments rate individuals against them, so deletion is soft). */
@Entity('core_values')
@Index('ix_core_values_site_rank', ['siteId', 'deleted', 'rank', 'name'])
// Behind the fields lists may be filtered and sorted on (docs/queries.md; migration 1732000002620).
@Index('ix_core_values_site_name', ['siteId', 'deleted', 'name'])
export class CoreValueEntity extends GuidTenantEntity {
  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @TextCol('description')
  description: string | null;

  @IntCol('rank', { default: 0 })
  rank: number;

  @BoolCol('deleted', false)
  deleted: boolean;

  @BoolCol('deleted_by_ref', false)
  deletedByRef: boolean;
}
