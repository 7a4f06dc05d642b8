import type { RequestContext } from '../../common/context/request-context.js';
import { changesAfter, instantOf } from '../../database/queries/audit.js';
import { readSummaries, type SiteSequence } from './dashboard-summaries.statements.js';
import { ROW_TYPE, type AggregateRow } from './dashboards.statements.js';
import type { TenantDb } from '../../database/tenant-db.js';
import { computeBatch, type DashboardBasis, type DashboardRow, type RowType } from './dashboard-engine.js';
import { computeFigures, type Figures } from './dashboard-figures.js';
import { fromSums } from './summary-store.js';

/**
 * How far behind a committed write a dashboard answered from the summaries may be
 * (docs/dashboards.md, "How fresh"): beyond it, the answer is computed from the records.
 */
export const FRESHNESS_MS = 1000;

const KIND = { 4: 'organization', 56: 'department', 39: 'individual' } as const;

/** Where an answer's figures came from, and the instant up to which committed writes are reflected. */
export interface Freshness {
  source: 'summaries' | 'records';
  asOf: Date;
}

/** The two headers of every dashboard answer (docs/dashboards.md, "How fresh"). */
export const FRESHNESS_HEADERS = {
  'Dashboard-Source': {
    description:
      '`summaries`: the figures come from the stored summaries (docs/dashboards.md, "Summaries"); `records`: they were computed from the records for this answer (the summaries did not yet reflect a write of the caller\'s own, were not caught up within 1 s of another committed write, or were not built yet).',
    enum: ['summaries', 'records'],
  },
  'Dashboard-As-Of': {
    description:
      "ISO-8601 UTC instant (milliseconds): every write committed at or before it is reflected in the figures. The moment of the answer when it is fully caught up, else the millisecond before the first committed write it does not reflect (never 1 s or more before the answer). The caller's own committed writes are always reflected; another caller's write answered at T is reflected once Dashboard-As-Of ≥ T.",
    format: 'date-time',
  },
} as const;

export function freshnessHeaders(f: Freshness): Record<string, string> {
  return { 'Dashboard-Source': f.source, 'Dashboard-As-Of': f.asOf.toISOString() };
}

/**
 * The figures of some rows of one type from the summaries, or null when they cannot answer
 * within the freshness promise: none built yet for the site, time alone has changed a figure
 * since they were computed, the first committed write they do not reflect is more than
 * FRESHNESS_MS old, the caller made a change they do not reflect yet (a writer reads their own
 * writes), or a row (or an individual's department) has no summary yet (created since,
 * or deleted: a deleted row's dashboard is computed from its records). From the site's state as
 * `seq` holds it, one statement: the rows' summaries (a second, the first unreflected change, only
 * while the builder is behind).
 */
export async function summaryFigures(
  db: TenantDb,
  ctx: RequestContext,
  rowType: RowType,
  rows: readonly DashboardRow[],
  basis: DashboardBasis,
  seq: SiteSequence,
): Promise<{ figures: Map<string, Figures>; asOf: Date } | null> {
  // `seq` was read after `basis.now` was taken: every write committed by then is counted in it.
  const now = basis.now;
  const state = seq.state;
  if (!state || state.builtSeq < 0) return null;
  if (state.validUntil && now.getTime() >= state.validUntil.getTime()) return null;
  let asOf = now;
  // Read-your-writes: a caller's own change the summaries do not reflect yet is never hidden from them.
  if (seq.callerSeq > state.builtSeq) return null;
  if (state.builtSeq < state.currentSeq) {
    const [first] = await changesAfter(db, ctx, null, state.builtSeq, 1);
    if (!first) return null;
    // Inclusive: every change stamped before the first unreflected one is reflected (stamps follow
    // the commit order), so the last such millisecond is the one before it.
    asOf = new Date(instantOf(first.at).getTime() - 1);
    if (now.getTime() - asOf.getTime() >= FRESHNESS_MS) return null;
  }
  const departments = rowType === ROW_TYPE.individual ? [...new Set(rows.map((r) => r.departmentId).filter((x): x is string => !!x))] : [];
  const keys = new Map<number, string[]>([[rowType, rows.map((r) => r.id)]]);
  if (departments.length) keys.set(ROW_TYPE.department, [...(keys.get(ROW_TYPE.department) ?? []), ...departments]);
  const stored = await readSummaries(db, ctx, basis.period.id, keys);
  const byKey = new Map(stored.map((s) => [`${s.rowType}:${s.rowId}`, s]));
  const figures = new Map<string, Figures>();
  for (const r of rows) {
    const own = byKey.get(`${rowType}:${r.id}`);
    if (!own) return null;
    let dept: AggregateRow[] | null | undefined;
    if (rowType === ROW_TYPE.individual) {
      dept = null;
      if (r.departmentId) {
        const d = byKey.get(`${ROW_TYPE.department}:${r.departmentId}`);
        if (!d) return null;
        dept = fromSums(r.departmentId, d.sums).filter((x) => x.src === 'projects' || x.src === 'changes');
      }
    }
    figures.set(r.id, computeFigures(KIND[rowType], fromSums(r.id, own.sums), dept, basis.settings, basis.colors));
  }
  return { figures, asOf };
}

/** The figures of a batch of rows: from the summaries when they answer within the promise, else from the records. */
export async function freshFigures(
  db: TenantDb,
  ctx: RequestContext,
  rowType: RowType,
  rows: readonly DashboardRow[],
  basis: DashboardBasis,
  seq: SiteSequence,
): Promise<{ figures: Map<string, Figures>; freshness: Freshness }> {
  const stored = rows.length ? await summaryFigures(db, ctx, rowType, rows, basis, seq) : null;
  if (stored) return { figures: stored.figures, freshness: { source: 'summaries', asOf: stored.asOf } };
  return { figures: await computeBatch(db, ctx, rowType, rows, basis), freshness: { source: 'records', asOf: basis.now } };
}
