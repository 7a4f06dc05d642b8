import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchRecord } from '../../database/patch-record.js';
import { PreconditionFailedError, ValidationError } from '../../common/errors/errors.js';
import { Page, pageOf, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { queryInMemory } from '../../http/wire/list-query-memory.js';
import { isUniqueViolation } from '../../common/errors/db-errors.js';
import { dashboardRecords, ROW_TYPE, type ExplainRow } from './dashboards.statements.js';
import { TenantDb } from '../../database/tenant-db.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { OrganizationMemberEntity } from '../../database/entities/organization-member.entity.js';
import { OrganizationEntity, ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION } from '../../database/entities/organization.entity.js';
import { PeriodEntity } from '../../database/entities/period.entity.js';
import { PeriodsService } from '../periods/periods.service.js';
import { DashboardAccess, type DashboardCandidate } from './dashboard-access.js';
import { DashboardBasisCache, noPeriodError } from './dashboard-basis.js';
import type { SiteSequence } from './dashboard-summaries.statements.js';
import {
  BATCH,
  computeBatch,
  loadBasis,
  loadRows,
  loadSettings,
  toDashboard,
  windowOf,
  type DashboardBasis,
  type DashboardRow,
  type RowType,
} from './dashboard-engine.js';
import { computeFigures } from './dashboard-figures.js';
import { WithHeaders } from '../../http/wire/answer-headers.js';
import { freshFigures, freshnessHeaders, type Freshness } from './summary-reader.js';
import { FIGURE_FORMULAS, recordTypeOf, type FigureName } from './dashboard-formulas.js';
import { SAMPLE_NAME, sampleAggregates } from './dashboard-sample.js';
import { DashboardSettingsEntity } from '../../database/entities/dashboard-settings.entity.js';
import { Dashboard, DashboardDto, DashboardListQuery, DashboardQuery, DashboardSampleQuery } from './dto/dashboard.dto.js';
import { DashboardExplanationDto, DashboardFigureDto, DashboardRecordDto } from './dto/dashboard-explanation.dto.js';
import { DashboardSettings, DashboardSettingsDto, UpdateDashboardSettingsDto } from './dto/dashboard-settings.dto.js';

const ZERO_GUID = '00000000-0000-0000-0000-000000000000';
const KIND = { 4: 'organization', 56: 'department', 39: 'individual' } as const;

/**
 * The dashboards (docs/dashboards.md): one row's Dashboard, the caller's list, the explain view,
 * the sample and the site's settings. Who sees which dashboard is DashboardAccess's to say; the
 * figures come from dashboard-engine.ts (a fixed number of statements per batch of rows).
 */
@Injectable()
export class DashboardsService {
  constructor(
    private readonly db: TenantDb,
    private readonly periods: PeriodsService,
    private readonly access: DashboardAccess,
    private readonly bases: DashboardBasisCache,
    private readonly queries: ListQueries,
  ) {}

  /** The period asked for, or the default one; 404 when the site has none at all. */
  private async period(ctx: RequestContext, periodId?: number | null): Promise<PeriodEntity> {
    const period = await this.periods.resolve(ctx, periodId);
    if (!period) throw noPeriodError();
    return period;
  }

  /**
   * `GET /{organizations|departments|individuals}/{id}/dashboards`: from the summaries when they
   * are caught up within 1 s of the last committed write, else from the records; the answer says
   * which and as of when (Dashboard-Source, Dashboard-As-Of).
   */
  async get(ctx: RequestContext, rowType: RowType, id: string, q: DashboardQuery): Promise<WithHeaders<DashboardDto>> {
    // The row is read once: for its 404 and 403, and for the answer.
    const rows = await loadRows(this.db, ctx, rowType, [id]);
    await this.access.assertCanRead(ctx, rowType, id, rows[0]);
    const { basis, seq } = await this.bases.basis(ctx, q.period);
    const freshness: Freshness[] = [];
    const [answer] = await this.dashboards(ctx, rowType, rows, basis, seq, freshness);
    return new WithHeaders(answer, freshnessHeaders(freshness[0] ?? { source: 'records', asOf: basis.now }));
  }

  /**
   * `GET /dashboards`: the caller's own dashboard, their direct reports', and those of the
   * organizations and departments they belong to or manage — every live organization and
   * department for an administrator — in that order (people by last and first name, units
   * organizations first, by name), paged. The page is computed in batches per kind of row, each
   * from the summaries or the records (the answer's Dashboard-Source is `records` when any was).
   */
  async list(ctx: RequestContext, q: DashboardListQuery): Promise<WithHeaders<Page<DashboardDto>>> {
    const { basis, seq } = await this.bases.basis(ctx, q.period);
    const candidates = await this.access.readableRows(ctx, await this.candidates(ctx));
    const { take, skip } = pageOf(q);
    if (asksQuery(q)) return this.queried(ctx, q, candidates, basis, seq);
    const page = candidates.slice(skip, skip + take);
    return this.answer(ctx, page, candidates.length, q, basis, seq);
  }

  /**
   * The list queried (docs/queries.md, "Lists not stored"): the caller's dashboards are no rows of
   * one table but a list worked out per caller, so the query runs in memory over their rows' own
   * fields (ID, RowType, Name: read with one statement per row type, no figure computed), after the
   * access rules; then the figures of the page's rows only are computed, as the plain list's.
   * Without sort= in ID order (the plain order mixes the kinds of row).
   */
  private async queried(
    ctx: RequestContext,
    q: DashboardListQuery,
    candidates: readonly DashboardCandidate[],
    basis: DashboardBasis,
    seq: SiteSequence,
  ): Promise<WithHeaders<Page<DashboardDto>>> {
    const query = this.queries.read(ctx, Dashboard, q);
    const { take, skip } = pageOf(q);
    const shells: { ID: string; RowType: number; Name: string }[] = [];
    for (const rowType of [39, 4, 56] as const) {
      const rows = await loadRows(
        this.db,
        ctx,
        rowType,
        candidates.filter((c) => c.rowType === rowType).map((c) => c.id),
      );
      for (const r of rows) shells.push({ ID: r.id, RowType: rowType, Name: r.name });
    }
    const page = queryInMemory(shells, Dashboard.queryable, Dashboard.queryable.get('id')!, query, [], take, skip);
    const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
    const answered = await this.answer(
      ctx,
      page.rows.map((r) => ({ rowType: r.RowType as RowType, id: r.ID })),
      page.total,
      q,
      basis,
      seq,
    );
    const p = answered.value;
    return new WithHeaders(new QueriedPage(p.items, page.total, take, skip, query.fields, next), answered.headers);
  }

  /** The dashboards of a page of candidates, in their order, with the freshness headers. */
  private async answer(
    ctx: RequestContext,
    page: readonly DashboardCandidate[],
    total: number,
    q: DashboardListQuery,
    basis: DashboardBasis,
    seq: SiteSequence,
  ): Promise<WithHeaders<Page<DashboardDto>>> {
    const answers = new Map<string, DashboardDto>();
    const freshness: Freshness[] = [];
    for (const rowType of [39, 4, 56] as const) {
      const ids = page.filter((c) => c.rowType === rowType).map((c) => c.id);
      const rows = await loadRows(this.db, ctx, rowType, ids);
      for (const d of await this.dashboards(ctx, rowType, rows, basis, seq, freshness)) answers.set(`${rowType}:${d.ID}`, d);
    }
    const items = page.map((c) => answers.get(`${c.rowType}:${c.id}`)).filter((d): d is DashboardDto => !!d);
    const source = freshness.some((f) => f.source === 'records') ? 'records' : 'summaries';
    const asOf = new Date(Math.min(basis.now.getTime(), ...freshness.map((f) => f.asOf.getTime())));
    return new WithHeaders(Page.of(items, total, q), freshnessHeaders({ source, asOf }));
  }

  /** The dashboards of rows of one type, in batches of BATCH rows, each batch's freshness added to `freshness`. */
  private async dashboards(
    ctx: RequestContext,
    rowType: RowType,
    rows: readonly DashboardRow[],
    basis: DashboardBasis,
    seq: SiteSequence,
    freshness: Freshness[],
  ): Promise<DashboardDto[]> {
    const out: DashboardDto[] = [];
    for (let i = 0; i < rows.length; i += BATCH) {
      const chunk = rows.slice(i, i + BATCH);
      const { figures, freshness: f } = await freshFigures(this.db, ctx, rowType, chunk, basis, seq);
      freshness.push(f);
      for (const r of chunk) out.push(toDashboard(ctx.siteId, r, basis, figures.get(r.id)!));
    }
    return out;
  }

  private async candidates(ctx: RequestContext): Promise<DashboardCandidate[]> {
    const me = ctx.user.individualId;
    const people = this.db.repo(ctx, IndividualEntity, 'Individual');
    const units = this.db.repo(ctx, OrganizationEntity, 'Organization');
    const out: DashboardCandidate[] = [];
    if (me) {
      const self = await people.findOne({ id: me, deleted: false });
      if (self) out.push({ rowType: 39, id: me });
      const reports = await people.find({
        where: { primaryReportsTo: me, deleted: false },
        select: { id: true },
        order: { lastName: 'ASC', firstName: 'ASC', id: 'ASC' },
      });
      for (const r of reports) if (r.id !== me) out.push({ rowType: 39, id: r.id });
    }
    const order = { rowType: 'ASC', name: 'ASC', id: 'ASC' } as const;
    const select = { id: true, rowType: true } as const;
    const live = { deleted: false, rowType: In([ROW_TYPE_ORGANIZATION, ROW_TYPE_DEPARTMENT]) };
    let mine: Pick<OrganizationEntity, 'id' | 'rowType'>[] = [];
    if (ctx.user.isAdmin) mine = await units.find({ where: live, select, order });
    else if (me) {
      const memberships = await this.db
        .repo(ctx, OrganizationMemberEntity, 'OrganizationMember')
        .find({ where: { individualId: me }, select: { organizationId: true } });
      mine = await units.find({
        where: [
          { ...live, managerId: me },
          { ...live, id: In(memberships.map((m) => m.organizationId)) },
        ],
        select,
        order,
      });
    }
    for (const u of mine) out.push({ rowType: u.rowType as 4 | 56, id: u.id });
    return out;
  }

  /** `GET /{kind}/{id}/dashboards/explain`: every computed figure with its formula and records. */
  async explain(ctx: RequestContext, rowType: RowType, id: string, q: DashboardQuery): Promise<DashboardExplanationDto> {
    const [row] = await loadRows(this.db, ctx, rowType, [id]);
    await this.access.assertCanRead(ctx, rowType, id, row);
    const period = await this.period(ctx, q.period);
    const basis = await loadBasis(this.db, ctx, period);
    const figures = (await computeBatch(this.db, ctx, rowType, [row], basis)).get(id)!;
    const records = await dashboardRecords(this.db, ctx, KIND[rowType], id, windowOf(basis));
    const byFigure = new Map<string, ExplainRow[]>();
    for (const r of records) {
      const list = byFigure.get(r.fig);
      if (list) list.push(r);
      else byFigure.set(r.fig, [r]);
    }
    const list: DashboardFigureDto[] = (Object.keys(FIGURE_FORMULAS) as FigureName[]).map((name) => {
      const f = figures[name];
      const rows = byFigure.get(name) ?? [];
      const type = recordTypeOf(name);
      return Object.assign(new DashboardFigureDto(), {
        Name: name,
        Value: f.value,
        Formula: FIGURE_FORMULAS[name],
        Calculation:
          name.startsWith('DeptProjects') && rowType === ROW_TYPE.individual
            ? `${f.calculation}; its records: GET /v4/departments/{id}/dashboards/explain`
            : f.calculation,
        Numerator: f.numerator,
        Denominator: f.denominator,
        RecordType: type,
        RecordCount: type === null ? 0 : (rows[0]?.total ?? 0),
        Records: rows.map((r) => Object.assign(new DashboardRecordDto(), { ID: r.rid, Value: r.val })),
      });
    });
    return Object.assign(new DashboardExplanationDto(), {
      ID: row.id,
      SiteID: ctx.siteId,
      RowType: rowType,
      Name: row.name,
      PeriodID: period.id,
      FromDate: period.startDate,
      ToDate: period.endDate,
      Figures: list,
    });
  }

  /**
   * `GET /dashboards/sample`: the fixed sample (dashboard-sample.ts) computed with the site's
   * thresholds, switches and colors over the period's dates (the current calendar year when the
   * site has no period).
   */
  async sample(ctx: RequestContext, q: DashboardSampleQuery): Promise<DashboardDto> {
    const found = await this.periods.resolve(ctx, q.period);
    const year = new Date().getUTCFullYear();
    const period =
      found ??
      Object.assign(new PeriodEntity(), {
        id: 0,
        name: String(year),
        startDate: new Date(Date.UTC(year, 0, 1)),
        endDate: new Date(Date.UTC(year, 11, 31, 23, 59, 59, 999)),
        closed: false,
      });
    const basis: DashboardBasis = await loadBasis(this.db, ctx, period);
    const { own, dept } = sampleAggregates(basis.settings);
    const row: DashboardRow = { rowType: 39, id: q.id ?? ZERO_GUID, name: SAMPLE_NAME, departmentId: null };
    return toDashboard(ctx.siteId, row, basis, computeFigures('individual', own, dept, basis.settings, basis.colors));
  }

  /** `GET /dashboards/settings`: the site's settings, or the defaults. */
  getSettings(ctx: RequestContext): Promise<DashboardSettingsDto> {
    return loadSettings(this.db, ctx);
  }

  /**
   * `PATCH /dashboards/settings` (Admin): the site's settings (or the defaults while it has none),
   * merged with the patch, then `putSettings`. The site's row is locked first (as `putSettings`
   * locks it before the first write), then the settings row, so no concurrent write is merged
   * over stale values (src/database/patch-record.ts).
   */
  patchSettings(ctx: RequestContext, patch: MergePatch): Promise<DashboardSettingsDto> {
    return patchRecord(this.db, ctx, patch, {
      current: async () => {
        await this.db.lockSite(ctx);
        const repo = this.db.repo(ctx, DashboardSettingsEntity, 'DashboardSettings');
        const existing = await repo.findOne({});
        if (existing) await repo.lockMany([existing.id]);
        return loadSettings(this.db, ctx);
      },
      input: UpdateDashboardSettingsDto,
      update: (dto) => this.putSettings(ctx, dto),
    });
  }

  /**
   * `PUT /dashboards/settings` (Admin): every field required; Threshold1 ≤ Threshold2 ≤
   * Threshold3 (else 400). The site's one row is updated, or written by the first PUT (a
   * concurrent first PUT that loses the insert race updates the winner's row). If-Match is
   * honoured; a tag sent while the site has no row yet is 412.
   */
  async putSettings(ctx: RequestContext, dto: UpdateDashboardSettingsDto): Promise<DashboardSettingsDto> {
    const errors = [];
    if (dto.Threshold1 > dto.Threshold2) errors.push({ field: 'Threshold2', message: 'Threshold2 must not be below Threshold1' });
    if (dto.Threshold2 > dto.Threshold3) errors.push({ field: 'Threshold3', message: 'Threshold3 must not be below Threshold2' });
    if (errors.length) throw new ValidationError(errors);
    const columns = DashboardSettings.toColumns(dto, 'update');
    return this.db.transaction(ctx, async (tx) => {
      const repo = tx.repo(DashboardSettingsEntity, 'DashboardSettings');
      // No row yet: the site's row is locked before the insert, as PATCH locks it before its read.
      let existing = await repo.findOne({});
      if (!existing) {
        await this.db.lockSite(ctx);
        existing = await repo.findOne({});
      }
      if (existing) return DashboardSettings.toWire(await repo.update(existing.id, columns, { ifMatch: true }));
      if (ctx.ifMatchVersions !== null) throw new PreconditionFailedError();
      try {
        return DashboardSettings.toWire(await repo.insert(columns));
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
        const winner = await repo.findOne({});
        if (!winner) throw e;
        return DashboardSettings.toWire(await repo.update(winner.id, columns));
      }
    });
  }
}
