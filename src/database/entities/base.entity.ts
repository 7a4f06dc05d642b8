import { GuidCol, DateCol, GuidPk, IntPk, VersionCol } from '../columns.js';

/** Who created and last changed a row and when, and its version: every tenant table, and the sites. */
export abstract class AuditedEntity {
  @DateCol('created', { nullable: false })
  created: Date;

  @GuidCol('created_by', { nullable: true })
  createdBy: string | null;

  @DateCol('updated', { nullable: false })
  updated: Date;

  @GuidCol('updated_by', { nullable: true })
  updatedBy: string | null;

  /** Optimistic-concurrency counter: every UPDATE adds one; ETags and If-Match derive from it. */
  @VersionCol()
  version: number;
}

/** Every tenant table: `site_id` first, set by the scoped data access path, never by input. */
export abstract class TenantEntity extends AuditedEntity {
  @GuidCol('site_id')
  siteId: string;
}

/** A tenant record with a guid id. */
export abstract class GuidTenantEntity extends TenantEntity {
  @GuidPk()
  id: string;
}

/** A tenant record with an integer id (Goal, Color, Commitment, Period). */
export abstract class IntTenantEntity extends TenantEntity {
  @IntPk()
  id: number;
}
