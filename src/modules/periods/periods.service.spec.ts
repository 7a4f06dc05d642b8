import { RequestContext } from '../../common/context/request-context.js';
import { ListQueries } from '../../http/wire/list-query.js';
import { ConflictError } from '../../common/errors/errors.js';
import { ArchiveWriters } from '../../database/archive-writers.js';
import { TenantDb } from '../../database/tenant-db.js';
import { PeriodEntity } from '../../database/entities/period.entity.js';
import { pickPeriod, PeriodsService } from './periods.service.js';

/** Entity metadata as the in-use check reads it: a target, a table and its columns. */
const meta = (target: unknown, tableName: string, columns: [string, string][]) => ({
  target,
  targetName: tableName,
  tableName,
  columns: columns.map(([databaseName, propertyName]) => ({ databaseName, propertyName })),
});

class GoalRow {}
class CommitmentRow {}
class GlobalThing {}

describe('PeriodsService.remove (in-use check)', () => {
  const ctx = RequestContext.system('5d1e7c3a-0000-4000-8000-000000000001');
  const period = Object.assign(new PeriodEntity(), { id: 7, siteId: ctx.siteId, name: 'P', closed: false, startDate: new Date(0), endDate: new Date(1) });

  function build(usedBy: Set<unknown>) {
    const asked: { target: unknown; where: unknown }[] = [];
    const deleted: unknown[] = [];
    const dataSource = {
      entityMetadatas: [
        meta(PeriodEntity, 'periods', [['site_id', 'siteId']]),
        meta(GoalRow, 'goals', [
          ['site_id', 'siteId'],
          ['period_id', 'periodId'],
        ]),
        meta(CommitmentRow, 'commitments', [
          ['site_id', 'siteId'],
          ['period_id', 'periodRef'],
        ]),
        meta(GlobalThing, 'global_things', [['period_id', 'periodId']]),
      ],
    };
    const db = {
      scoped(target: unknown) {
        return (c: RequestContext) => this.repo(c, target);
      },
      // The real metadata walk, over the fake metadata above.
      tenantTablesWithColumn: (column: string) => TenantDb.prototype.tenantTablesWithColumn.call({ dataSource } as unknown as TenantDb, column),
      transaction: (c: RequestContext, fn: (tx: unknown) => Promise<unknown>) => fn({ ctx: c }),
      repo: (_ctx: RequestContext, target: unknown) => ({
        lock: async () => period,
        exists: async (where: unknown) => {
          asked.push({ target, where });
          return usedBy.has(target);
        },
        remove: async (id: unknown) => {
          deleted.push({ id });
        },
      }),
    };
    return { sut: new PeriodsService(db as unknown as TenantDb, new ArchiveWriters(), new ListQueries('test')), asked, deleted };
  }

  it('asks every tenant table with a period_id column, by its property name, and deletes an unused period', async () => {
    const { sut, asked, deleted } = build(new Set());
    await expect(sut.remove(ctx, 7)).resolves.toEqual({});
    expect(asked).toEqual([
      { target: GoalRow, where: { periodId: 7 } },
      { target: CommitmentRow, where: { periodRef: 7 } },
    ]);
    expect(deleted).toEqual([{ id: 7 }]);
  });

  it('answers 409 in-use naming the tables that still reference the period, and deletes nothing', async () => {
    const { sut, deleted } = build(new Set([CommitmentRow]));
    const err = await sut.remove(ctx, 7).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(err).toMatchObject({ code: 'in-use', status: 409 });
    expect((err as ConflictError).detail).toContain('commitments');
    expect((err as ConflictError).detail).not.toContain('goals');
    expect(deleted).toEqual([]);
  });
});

describe('pickPeriod (the default period, as PeriodsService.resolve picks it)', () => {
  const day = 86_400_000;
  const now = new Date('2026-06-15T12:00:00Z');
  const at = (offsetDays: number) => new Date(now.getTime() + offsetDays * day);
  const period = (id: number, from: number, to: number) => Object.assign(new PeriodEntity(), { id, name: `P${id}`, startDate: at(from), endDate: at(to) });
  const sut = pickPeriod;

  it('takes the period containing now that started last, the higher id on a tie', () => {
    const year = period(1, -165, 200);
    const quarter = period(2, -75, 15);
    const sameStart = period(3, -75, 10);
    expect(sut([year, quarter], now)).toBe(quarter);
    expect(sut([sameStart, year, quarter], now)).toBe(sameStart);
  });

  it('takes the period that ended last when none contains now, the higher id on a tie, and null when there is none', () => {
    const old = period(4, -400, -200);
    const recent = period(5, -100, -10);
    const tie = period(6, -50, -10);
    const future = period(7, 30, 60);
    expect(sut([old, recent], now)).toBe(recent);
    expect(sut([recent, tie, old], now)).toBe(tie);
    expect(sut([old, future], now)).toBe(future);
    expect(sut([], now)).toBeNull();
  });

  it('counts both ends of a period as inside it', () => {
    expect(sut([period(8, 0, 1)], now)?.id).toBe(8);
    expect(sut([period(9, -1, 0), period(10, -300, -200)], now)?.id).toBe(9);
  });
});
