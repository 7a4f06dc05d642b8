import { Injectable } from '@nestjs/common';
import { LessThanOrEqual, MoreThanOrEqual } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import { TenantDb } from '../../database/tenant-db.js';
import { PeriodEntity } from './period.entity.js';

/**
 * The `period` rule every resource uses (DESIGN §2): a given id must name a period of the site
 * (404 otherwise); without one, the period containing now, else the latest one. A site with no
 * periods at all resolves to null, and period-filtered lists then are not filtered by period.
 */
@Injectable()
export class PeriodsService {
  constructor(private readonly db: TenantDb) {}

  async resolve(ctx: RequestContext, periodId?: number | null): Promise<PeriodEntity | null> {
    const periods = this.db.repo(ctx, PeriodEntity, 'Period');
    if (periodId !== undefined && periodId !== null) return periods.get(periodId);
    const now = new Date();
    const [current] = await periods.find({
      where: { startDate: LessThanOrEqual(now), endDate: MoreThanOrEqual(now) },
      order: { startDate: 'DESC', id: 'DESC' },
      take: 1,
    });
    if (current) return current;
    const [latest] = await periods.find({ order: { endDate: 'DESC', id: 'DESC' }, take: 1 });
    return latest ?? null;
  }
}
