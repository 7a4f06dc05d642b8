import { RequestContext } from '../../src/common/context/request-context.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { OrganizationEntity, ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION } from '../../src/database/entities/organization.entity.js';
import { PeriodEntity } from '../../src/database/entities/period.entity.js';
import type { TestApp } from '../e2e/harness.js';

const DAY = 24 * 3600 * 1000;

/** A period of the site straight through the data layer (the /periods endpoints are another module's). */
export async function createPeriod(t: TestApp, siteId: string, opts: { name?: string; start: Date; end: Date; closed?: boolean }): Promise<PeriodEntity> {
  return t.app
    .get(TenantDb)
    .repo(RequestContext.system(siteId), PeriodEntity)
    .insert({ name: opts.name ?? `Period ${opts.start.toISOString().slice(0, 10)}`, startDate: opts.start, endDate: opts.end, closed: opts.closed ?? false });
}

/** A period around today, and one that ended a year ago. */
export async function createPeriods(t: TestApp, siteId: string): Promise<{ current: PeriodEntity; past: PeriodEntity }> {
  const now = Date.now();
  const past = await createPeriod(t, siteId, { name: 'Past', start: new Date(now - 400 * DAY), end: new Date(now - 200 * DAY) });
  const current = await createPeriod(t, siteId, { name: 'Current', start: new Date(now - 100 * DAY), end: new Date(now + 100 * DAY) });
  return { current, past };
}

/** An organization (RowType 4) or department (RowType 56) of the site. */
export async function createUnit(
  t: TestApp,
  siteId: string,
  opts: { name?: string; department?: boolean; parentId?: string | null; managerId?: string | null; deleted?: boolean } = {},
): Promise<OrganizationEntity> {
  return t.app
    .get(TenantDb)
    .repo(RequestContext.system(siteId), OrganizationEntity)
    .insert({
      name: opts.name ?? (opts.department ? 'Dept' : 'Org'),
      rowType: opts.department ? ROW_TYPE_DEPARTMENT : ROW_TYPE_ORGANIZATION,
      parentId: opts.parentId ?? null,
      managerId: opts.managerId ?? null,
      rank: 0,
      deleted: opts.deleted ?? false,
      deletedByRef: false,
    });
}

export { DAY };

/** A date as the wire writes one at midnight UTC. */
const wireDate = (iso: string) => `${iso}T00:00:00.000+00:00`;

/**
 * A whole goal body as POST /v4/goals and the goal bulk items take it (every member given, one
 * measure set), for `individualId` (left out when undefined) in the period; `over` replaces members.
 */
export function goalBody(individualId: string | undefined, periodId: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...(individualId === undefined ? {} : { IndividualID: individualId }),
    Name: 'Grow revenue',
    Completed: false,
    Comment: 'On track',
    Why: 'Because we must',
    DueDate: wireDate('2026-12-31'),
    PeriodID: periodId,
    Measure1: 'Sign 3 customers',
    Measure2: '',
    Measure3: '',
    Measure4: '',
    Measure5: '',
    Measure1Completed: false,
    Measure3Completed: false,
    Measure4Completed: false,
    Measure5Completed: false,
    Measure1StartDate: wireDate('2026-01-01'),
    Measure1EndDate: wireDate('2026-03-31'),
    Measure2StartDate: wireDate('2026-01-01'),
    Measure2EndDate: wireDate('2026-12-31'),
    Measure3StartDate: wireDate('2026-02-01'),
    Measure3EndDate: null,
    Measure4StartDate: wireDate('2026-01-01'),
    Measure4EndDate: wireDate('2026-12-31'),
    Measure5StartDate: wireDate('2026-01-01'),
    Measure5EndDate: wireDate('2026-12-31'),
    ...over,
  };
}
