import { Entity } from 'typeorm';
import { BoolCol, DateCol, GuidCol, GuidPk, IntCol, StrCol, VersionCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/** A tenant. Not itself a tenant table: its id is the `site_id` of everything else. */
@Entity('sites')
export class SiteEntity {
  @GuidPk()
  id: string;

  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @BoolCol('performance_management', true)
  performanceManagement: boolean;

  @DateCol('created', { nullable: false })
  created: Date;

  @GuidCol('created_by', { nullable: true })
  createdBy: string | null;

  @DateCol('updated', { nullable: false })
  updated: Date;

  @GuidCol('updated_by', { nullable: true })
  updatedBy: string | null;

  @VersionCol()
  version: number;

  /**
   * Moved on by `TenantDb.lockSite` so that the site lock is a certified write on Galera
   * (migration 1732000001800); never read, never part of an answer.
   */
  @IntCol('lock_seq', { default: 0, select: false })
  lockSeq?: number;
}
