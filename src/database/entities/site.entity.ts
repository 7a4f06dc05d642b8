import { Entity, Index } from 'typeorm';
import { BoolCol, GuidPk, IntCol, StrCol } from '../columns.js';
import { AuditedEntity } from './base.entity.js';
import { LIMITS } from '../../common/limits.js';

/** A tenant. Not itself a tenant table: its id is the `site_id` of everything else; audited like one. */
@Entity('sites')
// Not a tenant table, so its indexes do not start with site_id: the global administrator's list by Name (docs/queries.md).
@Index('ix_sites_name', ['name'])
export class SiteEntity extends AuditedEntity {
  @GuidPk()
  id: string;

  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @BoolCol('performance_management', true)
  performanceManagement: boolean;

  /**
   * Moved on by `TenantDb.lockSite` so that the site lock is a certified write on Galera
   * (migration 1732000001800); never read, never part of an answer.
   */
  @IntCol('lock_seq', { default: 0, select: false })
  lockSeq?: number;
}
