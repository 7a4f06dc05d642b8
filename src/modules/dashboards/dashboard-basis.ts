import { Injectable } from '@nestjs/common';
import type { RequestContext } from '../../common/context/request-context.js';
import { NotFoundError } from '../../common/errors/errors.js';
import type { PeriodEntity } from '../../database/entities/period.entity.js';
import { siteSequence, type SiteSequence } from './dashboard-summaries.statements.js';
import { TenantDb } from '../../database/tenant-db.js';
import { actorOf } from '../../database/journal.js';
import { PeriodsService, pickPeriod } from '../periods/periods.service.js';
import { loadColors, loadSettings, type DashboardBasis } from './dashboard-engine.js';

/** The 404 of a dashboard asked for on a site without any period. */
export function noPeriodError(): NotFoundError {
  return new NotFoundError('A period for the dashboard (the site has no period yet; create one with POST /v4/periods)');
}

/** Sites whose basis is kept (the least recently stored leave first). */
const KEPT_SITES = 1000;

interface Kept {
  /** The site's change sequence number read before the basis was: the basis holds every change up to it. */
  seq: number;
  periods: PeriodEntity[];
  settings: DashboardBasis['settings'];
  colors: DashboardBasis['colors'];
}

/**
 * What every dashboard answer of a site starts from — its periods, dashboard settings and color
 * bands (docs/dashboards.md, "Cost") — kept per site for as long as the site's change sequence has
 * not moved. Each answer reads that number anyway (with the summaries' state, one statement), so a
 * kept basis is checked against the database on every use, on every replica: a write anywhere in
 * the site, committed before the answer began, makes it read again. Nothing can be stale but a
 * change made around the service in SQL, as for the summaries themselves. MySQL/MariaDB only.
 */
@Injectable()
export class DashboardBasisCache {
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly db: TenantDb,
    private readonly periods: PeriodsService,
  ) {}

  /**
   * The basis of an answer for the period asked (or the default one; 404 when the site has none
   * or not that one) and the site's sequence, read after the answer's `now`.
   */
  async basis(ctx: RequestContext, periodId: number | null | undefined): Promise<{ basis: DashboardBasis; seq: SiteSequence }> {
    const now = new Date();
    const seq = await siteSequence(this.db, ctx, actorOf(ctx).id);
    // SQLite's reads share one connection with a request's open transaction, so the number read may
    // be one that rolls back and is taken again by another write: nothing is kept there.
    let kept = this.db.isSqlite ? undefined : this.kept.get(ctx.siteId);
    if (!kept || kept.seq !== seq.currentSeq) {
      const [periods, settings, colors] = await Promise.all([this.periods.all(ctx), loadSettings(this.db, ctx), loadColors(this.db, ctx)]);
      kept = { seq: seq.currentSeq, periods, settings, colors };
      this.kept.delete(ctx.siteId);
      this.kept.set(ctx.siteId, kept);
      if (this.kept.size > KEPT_SITES) this.kept.delete(this.kept.keys().next().value!);
    }
    const period = periodId === undefined || periodId === null ? pickPeriod(kept.periods, now) : (kept.periods.find((p) => p.id === Number(periodId)) ?? null);
    if (!period) {
      if (periodId !== undefined && periodId !== null) throw new NotFoundError('Period', periodId);
      throw noPeriodError();
    }
    return { basis: { period, settings: kept.settings, colors: kept.colors, now }, seq };
  }
}
