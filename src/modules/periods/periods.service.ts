import { Injectable } from '@nestjs/common';
import { FindOptionsWhere, LessThanOrEqual, MoreThanOrEqual, ObjectLiteral } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { ConflictError, ValidationError } from '../../common/errors/errors.js';
import { Page, pageOf, QueriedPage, QueriedPageQuery } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import type { TenantEntity } from '../../database/entities/base.entity.js';
import { ArchiveWriters } from '../../database/archive-writers.js';
import { isForeignKeyViolation } from '../../common/errors/db-errors.js';
import { TenantDb } from '../../database/tenant-db.js';
import { CreatePeriodDto, Period, PeriodDto, UpdatePeriodDto } from './dto/period.dto.js';
import { PeriodEntity } from '../../database/entities/period.entity.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

/**
 * The default period among a site's periods, by the rule `PeriodsService.resolve` applies in SQL:
 * the one containing `now` that started last (then the higher id), else the one that ended last
 * (then the higher id); null when there is none. For callers that hold the site's periods already.
 */
export function pickPeriod(periods: readonly PeriodEntity[], now: Date): PeriodEntity | null {
  const t = now.getTime();
  let current: PeriodEntity | null = null;
  let latest: PeriodEntity | null = null;
  for (const p of periods) {
    const start = p.startDate.getTime();
    const end = p.endDate.getTime();
    if (start <= t && end >= t && (!current || start > current.startDate.getTime() || (start === current.startDate.getTime() && p.id > current.id)))
      current = p;
    if (!latest || end > latest.endDate.getTime() || (end === latest.endDate.getTime() && p.id > latest.id)) latest = p;
  }
  return current ?? latest;
}

/** The most periods of a site kept for `resolve` (a handful a year is usual); a site with more reads its period by statement. */
const MAX_KEPT_PERIODS = 100;

/** The column every period-scoped table uses for its period (goals, commitments, dialogs, …). */
const PERIOD_REF_COLUMN = 'period_id';

/** The order of the list without `sort=`: StartDate, then ID, as the plain list's. */
const BY_START = [{ field: Period.queryable.get('startdate')!, desc: false }] as const;

/**
 * Periods (docs/periods-projects.md) and the `period` rule every resource uses (docs/http-and-xml.md): a given id must name
 * a period of the site (404 otherwise); without one, the period containing now, else the latest
 * one. A site with no periods at all resolves to null, and period-filtered lists then are not
 * filtered by period.
 *
 * Overlapping periods are allowed (an annual period and its quarters); the default resolves to
 * the containing period that started last. A closed period is frozen: updating or deleting it is
 * 409 `closed`. A period still referenced by any period-scoped record cannot be deleted (409
 * `in-use`).
 */
@Injectable()
@DeclaresRecordKind<PeriodsService>({ path: 'periods', kind: 'period', intId: true, access: 'authenticated', read: (s, ctx, id) => s.get(ctx, Number(id)) })
export class PeriodsService {
  constructor(
    private readonly db: TenantDb,
    private readonly archiveWriters: ArchiveWriters,
    private readonly queries: ListQueries,
  ) {}

  private readonly periods = this.db.scoped(PeriodEntity, 'Period');

  /** Every period of the site (a handful per year), unordered. */
  all(ctx: RequestContext): Promise<PeriodEntity[]> {
    return this.db.repo(ctx, PeriodEntity, 'Period').find({});
  }

  /**
   * The period a period-scoped list or dashboard is for: `periodId`'s (404 when it is not a period
   * of the site), else the default one (see pickPeriod). Picked from the site's periods as kept by
   * TenantDb.siteValue (docs/performance.md, "The site's periods") when the site has at most
   * MAX_KEPT_PERIODS of them; otherwise, and for an id not among them, read by statements.
   */
  async resolve(ctx: RequestContext, periodId?: number | null): Promise<PeriodEntity | null> {
    const kept = await this.db.siteValue(ctx, 'periods', () => this.keptPeriods(ctx));
    const asked = periodId !== undefined && periodId !== null;
    if (kept) {
      if (!asked) return pickPeriod(kept, new Date());
      const found = kept.find((p) => p.id === periodId);
      if (found) return found;
    }
    const periods = this.db.repo(ctx, PeriodEntity, 'Period');
    if (asked) return periods.get(periodId);
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

  /** The site's periods, frozen (they are shared by every request), or null when there are more than MAX_KEPT_PERIODS. */
  private async keptPeriods(ctx: RequestContext): Promise<readonly PeriodEntity[] | null> {
    const rows = await this.db.repo(ctx, PeriodEntity, 'Period').find({ take: MAX_KEPT_PERIODS + 1 });
    return rows.length > MAX_KEPT_PERIODS ? null : Object.freeze(rows.map((p) => Object.freeze(p)));
  }

  /** Every period of the site, ordered by StartDate (then id), paged. */
  async list(ctx: RequestContext, q: QueriedPageQuery): Promise<Page<PeriodDto>> {
    if (asksQuery(q)) {
      // Queried (docs/queries.md): every member reads the site's periods; the filter selects among them.
      const query = this.queries.read(ctx, Period, q);
      const { take, skip } = pageOf(q);
      const page = await readQueriedRows(this.db, ctx, PeriodEntity, {}, query, BY_START, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(this.periods(ctx).answers(page.rows, Period), page.total, take, skip, query.fields, next);
    }
    const [rows, total] = await this.periods(ctx).findAndCount({ order: { startDate: 'ASC', id: 'ASC' }, ...pageOf(q) });
    return Page.of(this.periods(ctx).answers(rows, Period), total, q);
  }

  async get(ctx: RequestContext, id: number): Promise<PeriodDto> {
    return Period.toWire(await this.periods(ctx).get(id));
  }

  async create(ctx: RequestContext, dto: CreatePeriodDto): Promise<PeriodDto> {
    assertDateOrder(dto.StartDate, dto.EndDate);
    return Period.toWire(await this.periods(ctx).insert(Period.toColumns(dto, 'create')));
  }

  async update(ctx: RequestContext, id: number, dto: UpdatePeriodDto): Promise<PeriodDto> {
    assertBodyId(id, dto.ID);
    assertDateOrder(dto.StartDate, dto.EndDate);
    return this.db.transaction(ctx, async () => {
      const periods = this.periods(ctx);
      const row = await periods.lock(id);
      if (row.closed) throw new ConflictError(`Period ${id} is closed and cannot be changed`, 'closed');
      return Period.toWire(await periods.update(id, Period.toColumns(dto, 'update'), { ifMatch: true }));
    });
  }

  /** PATCH: the period, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: number, patch: MergePatch): Promise<PeriodDto> {
    return patchResource(this.db, ctx, patch, Period, this.periods(ctx), id, (dto) => this.update(ctx, id, dto));
  }

  /** Hard delete (periods are not soft-deletable): refused for closed and referenced periods. */
  async remove(ctx: RequestContext, id: number): Promise<Record<string, never>> {
    // The check and the delete run in one transaction with the period locked; the foreign keys of
    // goals and commitments stop a record created in between from pointing at a deleted period.
    await this.db.transaction(ctx, async () => {
      const periods = this.periods(ctx);
      const row = await periods.lock(id);
      if (row.closed) throw new ConflictError(`Period ${id} is closed and cannot be deleted`, 'closed');
      const users = await this.referencingTables(ctx, id);
      if (users.length > 0) {
        throw new ConflictError(`Period ${id} is still used by records of: ${users.join(', ')}; move or delete them first`, 'in-use');
      }
      try {
        await periods.remove(id, { ifMatch: true });
      } catch (e) {
        if (isForeignKeyViolation(e)) throw new ConflictError(`Period ${id} is still used by other records; move or delete them first`, 'in-use');
        throw e;
      }
    });
    return {};
  }

  /**
   * Sets Closed and, in the same transaction, writes the period's archives (the writers
   * registered with src/database/archive-writers.ts). Idempotent: closing a closed period writes nothing.
   */
  async close(ctx: RequestContext, id: number): Promise<PeriodDto> {
    return this.db.transaction(ctx, async (tx) => {
      const periods = this.periods(ctx);
      const row = await periods.lock(id);
      if (row.closed) return Period.toWire(row);
      await this.archiveWriters.write(tx, row);
      return Period.toWire(await periods.update(id, { closed: true }, { ifMatch: true }));
    });
  }

  /**
   * The tables holding a record of this period: every tenant entity with a `period_id` column,
   * found from the entity metadata, so a period-scoped resource added later is covered without a
   * change here. One indexed existence query per such table.
   */
  async referencingTables(ctx: RequestContext, id: number): Promise<string[]> {
    const found: string[] = [];
    for (const t of this.db.tenantTablesWithColumn(PERIOD_REF_COLUMN)) {
      if (t.target === PeriodEntity) continue;
      const repo = this.db.repo<TenantEntity & ObjectLiteral>(ctx, t.target, t.table);
      if (await repo.exists({ [t.property]: id } as FindOptionsWhere<TenantEntity & ObjectLiteral>)) found.push(t.table);
    }
    return found;
  }
}

function assertDateOrder(start: Date, end: Date): void {
  if (start.getTime() > end.getTime()) throw new ValidationError([{ field: 'EndDate', message: 'EndDate must not be before StartDate' }]);
}
