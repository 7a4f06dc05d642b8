import { Entity, Index } from 'typeorm';
import { IntTenantEntity } from './base.entity.js';
import { BoolCol, DateCol, StrCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/** A performance period; every `period` query parameter names one (default: the current one). */
@Entity('periods')
@Index('ix_periods_site_dates', ['siteId', 'startDate', 'endDate'])
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
