import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { BoolCol, IntCol, StrCol, TextCol, GuidRef } from '../columns.js';
import { LIMITS } from '../../common/limits.js';
import { IndividualEntity } from './individual.entity.js';

/**
 * A basic role of an individual (the recurring responsibilities their dialogs review). Owned by
 * the individual: deleting the individual takes their roles down by reference.
 */
@Entity('basic_roles')
@Index('ix_basic_roles_site_individual', ['siteId', 'individualId', 'deleted', 'rank', 'name'])
@Index('ix_basic_roles_site_individual_name', ['siteId', 'individualId', 'deleted', 'name'])
export class BasicRoleEntity extends GuidTenantEntity {
  @GuidRef(() => IndividualEntity, 'fk_basic_roles_individual', 'individual_id')
  individualId: string;

  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @TextCol('description')
  description: string | null;

  @IntCol('rank', { default: 0 })
  rank: number;

  @IntCol('dialogs_per_period', { default: 1 })
  dialogsPerPeriod: number;

  @BoolCol('deleted', false)
  deleted: boolean;

  @BoolCol('deleted_by_ref', false)
  deletedByRef: boolean;
}
