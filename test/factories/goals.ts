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
