import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { decodeChanges } from '../../database/journal.js';
import { changesAfter } from '../../database/queries/audit.js';
import {
  claimSummarySites,
  committedSequence,
  currentStates,
  dialogRolePeople,
  dropOtherPeriods,
  fallenDue,
  liveRows,
  membershipsOf,
  moveSummaryCursor,
  nextTimeEvent,
  primaryMembers,
  releaseSummarySite,
  sitePeriods,
  siteUnits,
  type SummaryState,
  writeSummaries,
  type SummaryWrite,
} from './dashboard-summaries.statements.js';
import { dashboardAggregates, ROW_TYPE, type AggregateRow, type DashboardBatchKind, type DashboardWindow } from './dashboards.statements.js';
import { TenantDb } from '../../database/tenant-db.js';
import { Coalescer } from './coalescer.js';
import { BATCH, loadSettings } from './dashboard-engine.js';
import { toSums } from './summary-store.js';
import {
  bornAmong,
  childrenOf,
  classify,
  expand,
  subtreeOf,
  SUMMARY_KINDS,
  targetsOfChange,
  targetsOfState,
  alikeGroups,
  primariesOf,
  type DirtyRows,
  type Target,
  type TrailChange,
} from './summary-targets.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** The shortest time between two builds woken by commits: the commits within it share one build. */
export const SUMMARY_WAKE_GAP_MS = 100;
/** How often a replica looks for work it was not woken for (other replicas' commits, time passing). */
export const SUMMARY_POLL_MS = 500;
/** A site's lease; every batch written renews it. */
const LEASE_MS = 60_000;
/** Trail rows read per statement. */
const PAGE = 1000;
/** More changes than this since the last build: the whole site is built again (cheaper than mapping each). */
const WHOLE_SITE_AFTER = 20_000;
/** Summaries written per transaction during a long build. */
const WRITE_BATCH = 1000;

/**
 * Keeps the dashboard summaries (docs/dashboards.md, "Summaries"): woken right after every commit
 * (coalesced over SUMMARY_WAKE_GAP_MS) and every SUMMARY_POLL_MS, it claims the sites whose
 * summaries are behind their change sequence, not built yet, or past the instant time alone
 * changes a figure (a lease: two replicas never build one site), reads each one's trail past its
 * cursor, maps the changes to the dashboard rows they reach (summary-targets.ts), computes those
 * rows from the records with the aggregate statement every dashboard uses, and writes them with
 * the new cursor. A site with no summaries yet, or whose changes reach all of it (a unit moved, a
 * period's dates, the thresholds), is built whole, in batches, with its progress logged.
 */
@Injectable()
export class SummaryBuilder implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DashboardSummaries');
  readonly owner = `replica-${randomUUID()}`;
  private readonly coalescer = new Coalescer(
    SUMMARY_WAKE_GAP_MS,
    () => this.round(),
    (e) => this.logger.warn(`building dashboard summaries failed, tried again shortly: ${e.message}`),
  );
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly db: TenantDb,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.dashboardSummaries) return;
    this.unsubscribe = this.db.onCommit(() => this.coalescer.afterCommit());
    this.timer = setInterval(() => this.coalescer.wake(), SUMMARY_POLL_MS);
    this.timer.unref();
    this.coalescer.wake();
  }

  async onApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await Promise.race([this.coalescer.stop(), sleep(5000, undefined, { ref: false })]);
  }

  /** Resolves when no build is in progress (tests). */
  idle(): Promise<void> {
    return this.coalescer.idle();
  }

  /** Claims and builds the sites that need it until none is left. */
  private async round(): Promise<void> {
    for (;;) {
      const sites = await claimSummarySites(this.db, this.owner, LEASE_MS, 8, this.db.isSqlite);
      if (!sites.length) return;
      for (const { siteId, state } of sites) {
        let released = false;
        try {
          released = await this.buildSite(siteId, state);
        } catch (e) {
          this.logger.warn(`dashboard summaries of site ${siteId}: ${(e as Error).message}`);
        } finally {
          if (!released) await releaseSummarySite(this.db, siteId, this.owner).catch(() => undefined);
        }
      }
    }
  }

  /**
   * Brings one site's summaries up to its change sequence and to now, from its state as claimed.
   * Answers true when it gave the lease back itself.
   */
  private async buildSite(siteId: string, state: SummaryState): Promise<boolean> {
    const ctx = RequestContext.system(siteId);
    const now = new Date();
    // On SQLite the claim's read may have seen a request transaction's uncommitted sequence number
    // (committedSequence explains); MySQL/MariaDB reads committed rows only.
    const upTo = this.db.isSqlite ? await committedSequence(this.db, siteId) : state.currentSeq;
    // Every dashboard row is of a period: a site without one has nothing to build, however much it
    // writes (a nightly feed into a site that keeps no periods). Its trail is not read; what its
    // summaries held (periods since deleted) goes, and the cursor moves on. A period created later
    // is a change past this cursor, which builds the whole site (summary-targets.ts).
    const periods = await sitePeriods(this.db, ctx);
    if (!periods.length) {
      await dropOtherPeriods(this.db, siteId, []);
      if (!(await moveSummaryCursor(this.db, siteId, this.owner, { builtSeq: upTo, timeAt: now, validUntil: null }))) throw new Error('lease lost');
      return true;
    }
    let dirty: DirtyRows | null = null;
    /** The primary unit of each person created among the changes, as they left it. */
    const primaryOf = new Map<string, string | null>();
    if (state.builtSeq >= 0) {
      const targets: Target[] = [];
      let whole = await this.mapChanges(ctx, state.builtSeq, upTo, targets, primaryOf);
      if (!whole && state.validUntil && now >= state.validUntil) {
        const due = await fallenDue(this.db, ctx, state.timeAt ?? now, now);
        if (due.periodEnded) whole = true;
        for (const t of due.tasks) targets.push(...targetsOfState('task', '', { Kind: t.kind, AncestorID: t.ancestorId }));
        for (const p of due.projects) targets.push({ t: 'project', id: p });
      }
      if (!whole) dirty = await this.rowsOf(ctx, targets);
      if (dirty && !dirty.individuals.size && !dirty.units.size && !(state.validUntil && now >= state.validUntil)) {
        // Nothing counted changed (a comment, a name): the cursor moves on, the rest stays as it is.
        if (!(await moveSummaryCursor(this.db, siteId, this.owner, { builtSeq: upTo, timeAt: state.timeAt ?? now, validUntil: state.validUntil })))
          throw new Error('lease lost');
        return true;
      }
    }
    const settings = await loadSettings(this.db, ctx);
    const thresholds = [settings.Threshold1, settings.Threshold2, settings.Threshold3] as const;
    if (dirty === null) await dropOtherPeriods(this.db, siteId, []);
    const individuals = await liveRows(this.db, ctx, 'individuals', dirty ? [...dirty.individuals] : null);
    const units = await liveRows(this.db, ctx, 'organizations', dirty ? [...dirty.units] : null);
    const live = new Set([...individuals, ...units].map((r) => r.id));
    // New people with nothing of their own and one primary unit have one row: one of them is computed (alikeGroups).
    const copies = new Map<string, string[]>();
    if (dirty)
      for (const group of alikeGroups(dirty.alone, primaryOf)) {
        const alive = group.filter((id) => live.has(id));
        if (alive.length > 1) copies.set(alive[0], alive.slice(1));
      }
    const copied = new Set([...copies.values()].flat());
    const groups: [DashboardBatchKind, number, string[]][] = [
      ['individual', ROW_TYPE.individual, individuals.map((r) => r.id).filter((id) => !copied.has(id))],
      ['department', ROW_TYPE.department, units.filter((u) => u.rowType === ROW_TYPE.department).map((u) => u.id)],
      ['organization', ROW_TYPE.organization, units.filter((u) => u.rowType === ROW_TYPE.organization).map((u) => u.id)],
    ];
    const total = periods.length * (individuals.length + units.length);
    const started = Date.now();
    let pending: SummaryWrite[] = [];
    let done = 0;
    const flush = async (final: { builtSeq: number; timeAt: Date; validUntil: Date | null } | null) => {
      if (!(await writeSummaries(this.db, siteId, this.owner, LEASE_MS, pending, final))) throw new Error('lease lost');
      pending = [];
    };
    for (const period of periods) {
      const w: DashboardWindow = { periodId: period.id, from: period.start, to: period.end, now, thresholds };
      // Rows asked for that are gone or deleted: their summaries go.
      if (dirty) {
        for (const id of dirty.individuals) if (!live.has(id)) pending.push({ periodId: period.id, rowType: ROW_TYPE.individual, rowId: id, sums: null });
        for (const id of dirty.units)
          if (!live.has(id)) {
            pending.push({ periodId: period.id, rowType: ROW_TYPE.department, rowId: id, sums: null });
            pending.push({ periodId: period.id, rowType: ROW_TYPE.organization, rowId: id, sums: null });
          }
      }
      for (const [kind, rowType, ids] of groups) {
        for (let i = 0; i < ids.length; i += BATCH) {
          const chunk = ids.slice(i, i + BATCH);
          const byRoot = new Map<string, AggregateRow[]>(chunk.map((id) => [id, []]));
          for (const r of await dashboardAggregates(this.db, ctx, kind, chunk, w)) byRoot.get(r.root)?.push(r);
          for (const [id, rows] of byRoot) {
            const sums = toSums(rows);
            pending.push({ periodId: period.id, rowType, rowId: id, sums });
            for (const other of (rowType === ROW_TYPE.individual && copies.get(id)) || []) pending.push({ periodId: period.id, rowType, rowId: other, sums });
          }
          done += chunk.length;
          if (pending.length >= WRITE_BATCH) {
            await flush(null);
            this.logger.log(`site ${siteId}: dashboard summaries ${done} of ${total} rows (${Math.round((Date.now() - started) / 1000)} s)`);
          }
        }
      }
    }
    await flush({ builtSeq: upTo, timeAt: now, validUntil: await nextTimeEvent(this.db, ctx, now) });
    if (total > WRITE_BATCH) this.logger.log(`site ${siteId}: dashboard summaries of ${total} rows built in ${Math.round((Date.now() - started) / 1000)} s`);
    return false;
  }

  /** Adds the targets of the changes in (after, upTo] to `targets`; answers true when they reach the whole site. */
  private async mapChanges(ctx: RequestContext, after: number, upTo: number, targets: Target[], primaryOf: Map<string, string | null>): Promise<boolean> {
    const current = new Map<string, Set<string>>();
    const states: { kind: string; rowId: string; before: Record<string, unknown> | null; after: Record<string, unknown> | null; current: boolean }[] = [];
    let cursor = after;
    let read = 0;
    while (cursor < upTo) {
      const rows = await changesAfter(this.db, ctx, SUMMARY_KINDS, cursor, PAGE);
      if (!rows.length) break;
      for (const row of rows) {
        if (Number(row.seq) > upTo) break;
        const change: TrailChange = {
          kind: row.kind,
          rowId: row.row_id,
          action: row.action,
          gone: !!Number(row.gone),
          fields: decodeChanges(row.changes),
        };
        const c = classify(change);
        if (c.as === 'site') return true;
        if (c.as === 'ignore') continue;
        states.push(c);
        if (c.current) (current.get(c.kind) ?? current.set(c.kind, new Set()).get(c.kind)!).add(c.rowId);
      }
      cursor = Number(rows[rows.length - 1].seq);
      read += rows.length;
      if (read > WHOLE_SITE_AFTER) return true;
      if (rows.length < PAGE) break;
    }
    const rows = new Map<string, Map<string, Record<string, unknown>>>();
    for (const [kind, ids] of current) rows.set(kind, await currentStates(this.db, ctx, kind, [...ids]));
    // People created among these changes reach their own rows alone (targetsOfChange).
    const born = bornAmong(states);
    for (const [id, unit] of primariesOf(states, born)) primaryOf.set(id, unit);
    for (const s of states) {
      const now = s.current ? rows.get(s.kind)?.get(s.rowId) : undefined;
      // An update carries only what changed: the rest of each state is the row as it is now.
      for (const part of [s.before, s.after]) if (part) targets.push(...targetsOfChange(s.kind, s.rowId, { ...now, ...part }, born));
      if (now) targets.push(...targetsOfChange(s.kind, s.rowId, now, born));
    }
    return false;
  }

  /** Resolves the targets that point through other records, loads the tree around them and expands them to rows. */
  private async rowsOf(ctx: RequestContext, targets: Target[]): Promise<DirtyRows> {
    if (!targets.length) return { individuals: new Set(), units: new Set(), alone: new Set() };
    const resolved: Target[] = [];
    let queue = targets;
    // Each round follows one step: a metric value to its metric, a metric to its project, a project to its owner and unit.
    for (let round = 0; queue.length && round < 4; round++) {
      const through = new Map<string, Set<string>>();
      const next: Target[] = [];
      for (const t of queue) {
        if (t.t === 'person' || t.t === 'own' || t.t === 'unit' || t.t === 'level') resolved.push(t);
        else (through.get(t.t) ?? through.set(t.t, new Set()).get(t.t)!).add(t.id);
      }
      for (const [t, ids] of through) {
        if (t === 'dialog-roles') {
          for (const id of await dialogRolePeople(this.db, ctx, [...ids])) next.push({ t: 'person', id });
          continue;
        }
        for (const [id, state] of await currentStates(this.db, ctx, t, [...ids])) next.push(...targetsOfState(t, id, state));
      }
      queue = next;
    }
    const people = [...new Set(resolved.filter((t) => t.t === 'person').map((t) => t.id))];
    const units = await siteUnits(this.db, ctx);
    const parentOf = new Map(units.map((u) => [u.id, u.parentId]));
    const children = childrenOf({ parentOf });
    const levelUnits = new Set<string>();
    for (const t of resolved) if (t.t === 'level') for (const u of t.level === 'organization' ? subtreeOf(children, t.id) : [t.id]) levelUnits.add(u);
    const membershipsOfPerson = new Map<string, string[]>();
    for (const m of await membershipsOf(this.db, ctx, people))
      (membershipsOfPerson.get(m.individualId) ?? membershipsOfPerson.set(m.individualId, []).get(m.individualId)!).push(m.unitId);
    const primaryMembersOf = new Map<string, string[]>();
    for (const m of await primaryMembers(this.db, ctx, [...levelUnits]))
      (primaryMembersOf.get(m.unitId) ?? primaryMembersOf.set(m.unitId, []).get(m.unitId)!).push(m.individualId);
    return expand(resolved, { parentOf, membershipsOf: membershipsOfPerson, primaryMembersOf });
  }
}
