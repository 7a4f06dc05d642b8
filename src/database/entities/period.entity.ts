import { Entity, Index } from 'typeorm';
import { IntTenantEntity } from './base.entity.js';
import { BoolCol, DateCol, StrCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/** A performance period; every `period` query parameter names one (default: the current one). */
@Entity('periods')
@Index('ix_periods_site_dates', ['siteId', 'startDate', 'endDate'])
// Behind the fields lists may be filtered and sorted on (docs/queries.md; migration 1732000002620).
// StartDate's own: the list's order is StartDate then ID, which ix_periods_site_dates (EndDate between) does not hold.
@Index('ix_periods_site_start', ['siteId', 'startDate'])
@Index('ix_periods_site_closed', ['siteId', 'closed', 'startDate'])
@Index('ix_periods_site_end', ['siteId', 'endDate'])
@Index('ix_periods_site_name', ['siteId', 'name'])
@Index('ix_periods_site_updated', ['siteId', 'updated'])
export class PeriodEntity extends IntTenantEntity {
  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @DateCol('start_date', { nullable: false })
  startDate: Date;

  @DateCol('end_date', { nullable: false })
  endDate: Date;

  @BoolCol('closed', false)
  closed: boolean;
}
