import { In } from 'typeorm';
import type { RequestContext } from '../../common/context/request-context.js';
import { fullName } from '../../common/names.js';
import { dashboardAggregates, dashboardPeople, ROW_TYPE, type AggregateRow, type DashboardBatchKind, type DashboardWindow } from './dashboards.statements.js';
import type { TenantDb } from '../../database/tenant-db.js';
import { ColorEntity } from '../../database/entities/color.entity.js';
import { DEFAULT_COLOR_BANDS } from '../colors/colors.service.js';
import { OrganizationEntity } from '../../database/entities/organization.entity.js';
import type { PeriodEntity } from '../../database/entities/period.entity.js';
import { computeFigures, type ColorBandNamed, type Figures } from './dashboard-figures.js';
import { FIGURE_FORMULAS, type FigureName } from './dashboard-formulas.js';
import { DashboardSettingsEntity, DEFAULT_THRESHOLDS } from '../../database/entities/dashboard-settings.entity.js';
import { DashboardDto } from './dto/dashboard.dto.js';
import { DashboardSettings, DashboardSettingsDto } from './dto/dashboard-settings.dto.js';

/**
 * Computing dashboards (docs/dashboards.md), shared by the HTTP service and the archive writer of
 * a period's close: no Nest dependencies, everything through `TenantDb` with the caller's
 * context (inside a transaction when there is one). A batch of rows costs a fixed number of
 * statements: the rows (one or two), the settings, the colors, and one aggregate statement per
 * kind of row (two for individuals: their own figures and their departments' project figures).
 */

export type RowType = 4 | 56 | 39;

/** A row a dashboard is computed for. */
export interface DashboardRow {
  rowType: RowType;
  id: string;
  name: string;
  /** An individual's primary unit when it is a department (their Dept… figures), else null. */
  departmentId: string | null;
  /** A unit's manager (who may read it whatever else is denied: DashboardAccess); undefined for an individual. */
  managerId?: string | null;
}

/** What every dashboard of one request (or one close) shares. */
export interface DashboardBasis {
  period: PeriodEntity;
  settings: DashboardSettingsDto;
  colors: ColorBandNamed[];
  now: Date;
}

/** Rows per aggregate statement: keeps the IN lists and the statement's work bounded. */
export const BATCH = 500;

const KIND_OF: Record<RowType, DashboardBatchKind> = { 4: 'organization', 56: 'department', 39: 'individual' };

/** The site's settings, or the defaults (70/90/110, every switch on) when it has stored none. */
export async function loadSettings(db: TenantDb, ctx: RequestContext): Promise<DashboardSettingsDto> {
  const row = await db.repo(ctx, DashboardSettingsEntity, 'DashboardSettings').findOne({});
  return row ? DashboardSettings.toWire(row) : defaultSettings(ctx.siteId);
}

export function defaultSettings(siteId: string): DashboardSettingsDto {
  return Object.assign(new DashboardSettings.Response(), {
    SiteID: siteId,
    Threshold1: DEFAULT_THRESHOLDS[0],
    Threshold2: DEFAULT_THRESHOLDS[1],
    Threshold3: DEFAULT_THRESHOLDS[2],
    ShowMetrics: true,
    ShowDialogs: true,
    ShowFollowUps: true,
    ShowProjectLoad: true,
    ShowEvaluationCriteria: true,
    ShowLeaderAssessment: true,
    ShowTeamAssessment: true,
    ShowGoals: true,
    ShowOrgCommitments: true,
    ShowDeptCommitments: true,
    ShowIndCommitments: true,
    Show8020Metrics: true,
  });
}

/** The color bands in effect: the site's own, or the defaults (as GET /colors). */
export async function loadColors(db: TenantDb, ctx: RequestContext): Promise<ColorBandNamed[]> {
  const rows = await db.repo(ctx, ColorEntity, 'Color').find({ order: { rank: 'ASC', minPercent: 'ASC', id: 'ASC' } });
  if (!rows.length) return DEFAULT_COLOR_BANDS.map((c) => ({ ...c }));
  return rows.map((r) => ({
    ID: r.id,
    Name: r.name,
    ColorValue: r.colorValue,
    MinPercent: Number(r.minPercent),
    MaxPercent: Number(r.maxPercent),
    Rank: r.rank,
  }));
}

/**
 * Two reads at once on the pool; one after the other inside a transaction, whose single
 * connection runs one statement at a time anyway.
 */
async function both<A, B>(db: TenantDb, ctx: RequestContext, a: () => Promise<A>, b: () => Promise<B>): Promise<[A, B]> {
  if (db.inTransaction(ctx)) return [await a(), await b()];
  return Promise.all([a(), b()]);
}

export async function loadBasis(db: TenantDb, ctx: RequestContext, period: PeriodEntity): Promise<DashboardBasis> {
  const [settings, colors] = await both(
    db,
    ctx,
    () => loadSettings(db, ctx),
    () => loadColors(db, ctx),
  );
  return { period, settings, colors, now: new Date() };
}

/**
 * The rows of the given ids and type, in the order asked (ids that are not such a row of the site
 * are left out). One statement.
 */
export async function loadRows(db: TenantDb, ctx: RequestContext, rowType: RowType, ids: readonly string[]): Promise<DashboardRow[]> {
  if (ids.length === 0) return [];
  const byId = new Map<string, DashboardRow>();
  if (rowType === ROW_TYPE.individual) {
    for (const p of await dashboardPeople(db, ctx, ids))
      byId.set(p.id, { rowType, id: p.id, name: fullName(p.first_name, p.last_name), departmentId: p.department_id ?? null });
  } else {
    const units = await db
      .repo(ctx, OrganizationEntity, 'Organization')
      .find({ where: { id: In([...ids]), rowType }, select: { id: true, name: true, managerId: true } });
    for (const u of units) byId.set(u.id, { rowType, id: u.id, name: u.name, departmentId: null, managerId: u.managerId });
  }
  return ids.map((id) => byId.get(id)).filter((r): r is DashboardRow => !!r);
}

export function windowOf(basis: DashboardBasis): DashboardWindow {
  const s = basis.settings;
  return {
    periodId: basis.period.id,
    from: basis.period.startDate,
    to: basis.period.endDate,
    now: basis.now,
    thresholds: [s.Threshold1, s.Threshold2, s.Threshold3],
  };
}

function groupByRoot(rows: readonly AggregateRow[]): Map<string, AggregateRow[]> {
  const out = new Map<string, AggregateRow[]>();
  for (const r of rows) {
    const list = out.get(r.root);
    if (list) list.push(r);
    else out.set(r.root, [r]);
  }
  return out;
}

/**
 * The figures of a batch of rows of one type: one aggregate statement for the rows, and for
 * individuals one more for the project figures of their primary departments (each department
 * once, however many of the batch belong to it).
 */
export async function computeBatch(
  db: TenantDb,
  ctx: RequestContext,
  rowType: RowType,
  rows: readonly DashboardRow[],
  basis: DashboardBasis,
): Promise<Map<string, Figures>> {
  const out = new Map<string, Figures>();
  if (rows.length === 0) return out;
  const w = windowOf(basis);
  const ids = rows.map((r) => r.id);
  const departments = rowType === ROW_TYPE.individual ? [...new Set(rows.map((r) => r.departmentId).filter((x): x is string => !!x))] : [];
  const [own, dept] = await both(
    db,
    ctx,
    () => dashboardAggregates(db, ctx, KIND_OF[rowType], ids, w),
    () => dashboardAggregates(db, ctx, 'department', departments, w, ['projects', 'changes']),
  );
  const ownByRoot = groupByRoot(own);
  const deptByRoot = groupByRoot(dept);
  for (const r of rows) {
    const deptRows = rowType !== ROW_TYPE.individual ? undefined : r.departmentId ? (deptByRoot.get(r.departmentId) ?? []) : null;
    out.set(r.id, computeFigures(KIND_OF[rowType], ownByRoot.get(r.id) ?? [], deptRows, basis.settings, basis.colors));
  }
  return out;
}

/** The dashboards of many rows of one type, in batches of BATCH rows. */
export async function computeMany(
  db: TenantDb,
  ctx: RequestContext,
  rowType: RowType,
  rows: readonly DashboardRow[],
  basis: DashboardBasis,
): Promise<DashboardDto[]> {
  const out: DashboardDto[] = [];
  for (let i = 0; i < rows.length; i += BATCH) {
    const chunk = rows.slice(i, i + BATCH);
    const figures = await computeBatch(db, ctx, rowType, chunk, basis);
    for (const r of chunk) out.push(toDashboard(ctx.siteId, r, basis, figures.get(r.id)!));
  }
  return out;
}

/** The Dashboard of a row from its figures, the period and the settings. */
export function toDashboard(siteId: string, row: DashboardRow, basis: DashboardBasis, figures: Figures): DashboardDto {
  const s = basis.settings;
  const values: Record<string, unknown> = {
    ID: row.id,
    SiteID: siteId,
    RowType: row.rowType,
    Name: row.name,
    FromDate: basis.period.startDate,
    ToDate: basis.period.endDate,
  };
  for (const name of Object.keys(FIGURE_FORMULAS) as FigureName[]) values[name] = figures[name].value;
  Object.assign(values, {
    Threshold1: s.Threshold1,
    Threshold2: s.Threshold2,
    Threshold3: s.Threshold3,
    ShowMetrics: s.ShowMetrics,
    ShowDialogs: s.ShowDialogs,
    ShowFollowUps: s.ShowFollowUps,
    ShowProjectLoad: s.ShowProjectLoad,
    ShowEvaluationCriteria: s.ShowEvaluationCriteria,
    ShowLeaderAssessment: s.ShowLeaderAssessment,
    ShowTeamAssessment: s.ShowTeamAssessment,
    ShowGoals: s.ShowGoals,
    ShowOrgCommitments: s.ShowOrgCommitments,
    ShowDeptCommitments: s.ShowDeptCommitments,
    ShowIndCommitments: s.ShowIndCommitments,
    Show8020Metrics: s.Show8020Metrics,
  });
  return Object.assign(new DashboardDto(), values) as DashboardDto;
}
