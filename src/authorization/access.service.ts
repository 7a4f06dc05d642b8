import { Injectable } from '@nestjs/common';
import { In, Not, type EntityTarget, type FindOperator, type ObjectLiteral } from 'typeorm';
import { RequestContext, type Caller, type Grant } from '../common/context/request-context.js';
import { ForbiddenError, NotFoundError } from '../common/errors/errors.js';
import { projectIdsOfUnits, unitChain, unitsBelow } from './grants.statements.js';
import { CallerCache } from '../database/caches/caller-cache.js';
import { isInReportingChain, subordinateIds } from '../database/queries/trees.js';
import { TenantDb } from '../database/tenant-db.js';
import type { TenantEntity } from '../database/entities/base.entity.js';
import type { RecordKind } from '../database/entities/dialog.entity.js';
import { DialogEntity } from '../database/entities/dialog.entity.js';
import { IndividualEntity } from '../database/entities/individual.entity.js';
import { OrganizationEntity, ROW_TYPE_ORGANIZATION } from '../database/entities/organization.entity.js';
import { MetricEntity } from '../database/entities/metric.entity.js';
import { ProjectEntity } from '../database/entities/project.entity.js';
import { ALLOW, CHILD_TYPE_COVERS, DENY, ROW_TYPE, type RowType } from '../database/entities/permission.entity.js';

/** The five operations a Permission record sets, in the order of its states. */
export const OPERATIONS = ['create', 'read', 'update', 'delete', 'delegate'] as const;
export type Operation = (typeof OPERATIONS)[number];
const OP_INDEX: Record<Operation, number> = { create: 0, read: 1, update: 2, delete: 3, delegate: 4 };

/**
 * What is asked about: the secured row itself (`row`), or the records it owns (`records`: an
 * individual's goals, list items, basic roles, assessments, tasks and archives; a unit's
 * commitments; a project's scopes; a dialog's tasks and ratings; a metric's values). Permission
 * records apply to both alike; the defaults differ (docs/authorization.md).
 */
export type Part = 'row' | 'records';

/** A secured row with the facts the defaults need. Build one with `Row.*`. */
export type RowFacts =
  | { type: 39; id: string }
  | { type: 4 | 56; id: string; managerId: string | null }
  | { type: 15; id: string; ownerId: string; organizationId: string | null }
  | { type: 9; id: string; kind: RecordKind; ancestorId: string; leaderId: string }
  | { type: 7; id: string; kind: RecordKind; ancestorId: string };

/** Builders of RowFacts from the entities services already hold. */
export const Row = {
  individual: (id: string): RowFacts => ({ type: 39, id }),
  unit: (o: Pick<OrganizationEntity, 'id' | 'rowType' | 'managerId'>): RowFacts => ({
    type: o.rowType === ROW_TYPE_ORGANIZATION ? 4 : 56,
    id: o.id,
    managerId: o.managerId,
  }),
  project: (p: Pick<ProjectEntity, 'id' | 'ownerId' | 'organizationId'>): RowFacts => ({
    type: 15,
    id: p.id,
    ownerId: p.ownerId,
    organizationId: p.organizationId,
  }),
  dialog: (d: Pick<DialogEntity, 'id' | 'kind' | 'ancestorId' | 'leaderId'>): RowFacts => ({
    type: 9,
    id: d.id,
    kind: d.kind,
    ancestorId: d.ancestorId,
    leaderId: d.leaderId,
  }),
  metric: (m: Pick<MetricEntity, 'id' | 'kind' | 'ancestorId'>): RowFacts => ({ type: 7, id: m.id, kind: m.kind, ancestorId: m.ancestorId }),
};

/** Who a decision is for: the caller, or (for the effective-rights view) another principal. */
export interface Subject {
  /** The login account (a user principal); null for a security group. */
  userId: string | null;
  individualId: string | null;
  isAdmin: boolean;
  grants: readonly Grant[];
}

/** Why a decision came out as it did (GET /permissions/effective). */
export type Rule =
  | { kind: 'administrator' }
  | {
      kind: 'permission';
      state: 'Allow' | 'Deny';
      permissionId: string;
      principalId: string;
      viaGroup: boolean;
      throughAncestor: string | null;
      childType: number | null;
    }
  | { kind: 'default'; text: string };

export interface Decision {
  allowed: boolean;
  rule: Rule;
}

/** The caller's rights on one individual (Individual.CanRead/CanUpdate/CanDelete/CanDelegate). */
export interface Rights {
  read: boolean;
  update: boolean;
  delete: boolean;
  delegate: boolean;
}

/** Rows of one type the caller may not read because a Deny applies (for list filters). */
export interface Hidden {
  /** The rows themselves. */
  ids: string[];
  /** For dialogs and metrics: rows whose AncestorID is one of these are hidden too. */
  ancestors: string[];
}

const NONE: Hidden = Object.freeze({ ids: [], ancestors: [] }) as Hidden;

interface Memo {
  manages: Map<string, Promise<boolean>>;
  chains: Map<string, Promise<{ id: string; managerId: string | null }[]>>;
  ancestors: Map<string, Promise<string[]>>;
  hidden: Map<number, Promise<Hidden>>;
}

/**
 * The one authorization engine (docs/authorization.md): "may this subject do operation O on row
 * R?". In order: administrators of the site may do everything; else a Deny that applies (to the
 * user or one of their security groups, on the row or, through its ChildType, on a row above it)
 * denies; else an Allow that applies allows; else the defaults. Services ask it through
 * `assert`/`can`, lists through `hidden`, and Individual.Can* come from `rightsOverlay`.
 *
 * The caller's Permission records arrive with the caller (one statement per caller, cached with
 * it), so a request without any records in play costs nothing more; everything else this engine
 * reads is memoized per request.
 */
@Injectable()
export class AccessService {
  private readonly memos = new WeakMap<RequestContext, Memo>();

  constructor(
    private readonly db: TenantDb,
    private readonly callers: CallerCache,
  ) {}

  /** The caller as a Subject. */
  subjectOf(ctx: RequestContext): Subject {
    const u = ctx.user;
    return { userId: u.userId, individualId: u.individualId, isAdmin: u.isAdmin, grants: u.grants ?? [] };
  }

  // ------------------------------------------------------------------ decisions

  async decide(ctx: RequestContext, op: Operation, row: RowFacts, part: Part = 'row', subject: Subject = this.subjectOf(ctx)): Promise<Decision> {
    if (subject.isAdmin) return { allowed: true, rule: { kind: 'administrator' } };
    const explicit = await this.explicit(ctx, subject, op, row);
    if (explicit) return explicit;
    return this.byDefault(ctx, subject, op, row, part);
  }

  async can(ctx: RequestContext, op: Operation, row: RowFacts, part: Part = 'row'): Promise<boolean> {
    return (await this.decide(ctx, op, row, part)).allowed;
  }

  /**
   * 403 (with `message`) unless allowed. A read refused by a Deny — or any operation on a row a
   * Deny hides — is 404 instead: a row hidden from someone is, for them, not there. `notFound`
   * names what the 404 says is missing (default: the row).
   */
  async assert(ctx: RequestContext, op: Operation, row: RowFacts, part: Part, message: string, notFound?: [label: string, id: string | number]): Promise<void> {
    const d = await this.decide(ctx, op, row, part);
    if (d.allowed) return;
    if (d.rule.kind === 'permission' && (op === 'read' || (await this.hiddenByDeny(ctx, row)))) {
      throw notFound ? new NotFoundError(notFound[0], notFound[1]) : new NotFoundError(LABEL[row.type], row.id);
    }
    throw new ForbiddenError(message);
  }

  /** 404 when a Deny hides the row from the caller (reads whose defaults are open to everyone). */
  async assertVisible(ctx: RequestContext, row: RowFacts, notFound?: [label: string, id: string | number]): Promise<void> {
    if (await this.hiddenByDeny(ctx, row)) throw notFound ? new NotFoundError(notFound[0], notFound[1]) : new NotFoundError(LABEL[row.type], row.id);
  }

  /** 403 with `message` when a Deny on `op` applies to the caller (rules of a record's own on top of the row's). */
  async assertNotDenied(ctx: RequestContext, op: Operation, row: RowFacts, message: string): Promise<void> {
    const s = this.subjectOf(ctx);
    if (s.isAdmin || s.grants.length === 0) return;
    const d = await this.explicit(ctx, s, op, row);
    if (d && !d.allowed) throw new ForbiddenError(message);
  }

  /** Whether an Allow (and no Deny) applies to the caller for `op` on the row. */
  async allowedExplicitly(ctx: RequestContext, op: Operation, row: RowFacts): Promise<boolean> {
    const s = this.subjectOf(ctx);
    if (s.isAdmin || s.grants.length === 0) return false;
    return (await this.explicit(ctx, s, op, row))?.allowed === true;
  }

  private async hiddenByDeny(ctx: RequestContext, row: RowFacts): Promise<boolean> {
    const s = this.subjectOf(ctx);
    if (s.isAdmin || s.grants.length === 0) return false;
    const d = await this.explicit(ctx, s, 'read', row);
    return !!d && !d.allowed;
  }

  /** The applicable Permission record that decides, Deny before Allow; null when none does. */
  private async explicit(ctx: RequestContext, s: Subject, op: Operation, row: RowFacts): Promise<Decision | null> {
    if (s.grants.length === 0) return null;
    const i = OP_INDEX[op];
    const direct = s.grants.filter((g) => g.rowId === row.id && g.childType === 0 && g.states[i] !== 0);
    const scoped = s.grants.filter((g) => g.childType !== 0 && CHILD_TYPE_COVERS[g.childType] === row.type && g.states[i] !== 0);
    let inherited: { g: Grant; through: string }[] = [];
    if (scoped.length) {
      const above = new Set(await this.ancestorsOf(ctx, row));
      inherited = scoped.filter((g) => above.has(g.rowId)).map((g) => ({ g, through: g.rowId }));
    }
    const all = [...direct.map((g) => ({ g, through: null as string | null })), ...inherited];
    const pick = all.find((x) => x.g.states[i] === DENY) ?? all.find((x) => x.g.states[i] === ALLOW);
    if (!pick) return null;
    const allowed = pick.g.states[i] === ALLOW;
    return {
      allowed,
      rule: {
        kind: 'permission',
        state: allowed ? 'Allow' : 'Deny',
        permissionId: pick.g.id,
        principalId: pick.g.principalId,
        viaGroup: pick.g.principalId !== s.userId,
        throughAncestor: pick.through,
        childType: pick.g.childType === 0 ? null : pick.g.childType,
      },
    };
  }

  /**
   * The rows above `row` that a ChildType-scoped record on them reaches it through: a unit's
   * parents; a project's unit and that unit's parents; a dialog's or metric's AncestorID (and,
   * for a unit or a project, what is above that).
   */
  private ancestorsOf(ctx: RequestContext, row: RowFacts): Promise<string[]> {
    const memo = this.memo(ctx);
    const key = `${row.type}:${row.id}`;
    let hit = memo.ancestors.get(key);
    if (!hit) {
      hit = this.loadAncestors(ctx, row);
      memo.ancestors.set(key, hit);
    }
    return hit;
  }

  private async loadAncestors(ctx: RequestContext, row: RowFacts): Promise<string[]> {
    const unitAndAbove = async (unitId: string | null) => (unitId ? (await this.chain(ctx, unitId)).map((u) => u.id) : []);
    switch (row.type) {
      case 39:
        return [];
      case 4:
      case 56:
        return (await this.chain(ctx, row.id)).slice(1).map((u) => u.id);
      case 15:
        return unitAndAbove(row.organizationId);
      case 9:
      case 7: {
        if (row.kind === 'individual') return [row.ancestorId];
        if (row.kind === 'project') {
          const p = await this.db.repo(ctx, ProjectEntity, 'Project').findById(row.ancestorId);
          return [row.ancestorId, ...(await unitAndAbove(p?.organizationId ?? null))];
        }
        return unitAndAbove(row.ancestorId);
      }
    }
  }

  // ------------------------------------------------------------------ defaults

  /** The defaults, for a subject no Permission record decides for (docs/authorization.md). */
  private async byDefault(ctx: RequestContext, s: Subject, op: Operation, row: RowFacts, part: Part): Promise<Decision> {
    const say = (allowed: boolean, text: string): Decision => ({ allowed, rule: { kind: 'default', text } });
    if (op === 'delegate') return say(false, 'only administrators manage Permission records unless a Delegate permission allows it');
    switch (row.type) {
      case 39: {
        if (part === 'row' && op === 'read') return say(true, 'every member of the site reads its individuals');
        if (part === 'row' && op === 'delete') return say(false, 'only administrators delete individuals');
        return say(await this.manages(ctx, s, row.id), 'an individual and everyone above them in the PrimaryReportsTo chain read and change their records');
      }
      case 4:
      case 56: {
        if (op === 'read') return say(true, 'every member of the site reads its organizations and departments');
        if (part === 'row' && op === 'delete') return say(false, 'only administrators delete organizations and departments');
        return say(
          await this.managesUnit(ctx, s, row.id, row.managerId),
          'the manager of the unit or of a unit above it, and anyone above those managers in the reporting chain, change it and its records',
        );
      }
      case 15: {
        if (op === 'read') return say(true, 'every member of the site reads its projects and their scopes');
        return say(
          await this.manages(ctx, s, row.ownerId),
          'the project’s owner and anyone above them in the reporting chain change the project and its records',
        );
      }
      case 9:
        return say(
          (await this.manages(ctx, s, row.leaderId)) || (await this.managesSubject(ctx, s, row.kind, row.ancestorId)),
          'the dialog’s leader, whoever manages what it is about (the individual, the unit’s managers, the project’s owner), and anyone above them in the reporting chain',
        );
      case 7: {
        if (op === 'read' && row.kind !== 'individual') return say(true, 'every member of the site reads the metrics of projects');
        return say(
          await this.managesSubject(ctx, s, row.kind, row.ancestorId),
          'whoever manages what the metric is about (the individual or the project’s owner) and anyone above them in the reporting chain',
        );
      }
    }
  }

  /** Is the subject this individual or above them in the PrimaryReportsTo chain? */
  private manages(ctx: RequestContext, s: Subject, individualId: string | null): Promise<boolean> {
    const me = s.individualId;
    if (!me || !individualId) return Promise.resolve(false);
    if (me === individualId) return Promise.resolve(true);
    const memo = this.memo(ctx).manages;
    const key = `${me}>${individualId}`;
    let hit = memo.get(key);
    if (!hit) {
      hit = isInReportingChain(this.db, ctx, individualId, me);
      memo.set(key, hit);
    }
    return hit;
  }

  /** Does the subject manage the unit (its manager, a manager of a unit above it, or above one of them)? */
  private async managesUnit(ctx: RequestContext, s: Subject, unitId: string, managerId?: string | null): Promise<boolean> {
    if (!s.individualId) return false;
    if (managerId && (await this.manages(ctx, s, managerId))) return true;
    for (const u of await this.chain(ctx, unitId)) {
      if (u.managerId && u.managerId !== managerId && (await this.manages(ctx, s, u.managerId))) return true;
    }
    return false;
  }

  private async managesSubject(ctx: RequestContext, s: Subject, kind: RecordKind, id: string): Promise<boolean> {
    if (!s.individualId) return false;
    if (kind === 'individual') return this.manages(ctx, s, id);
    if (kind === 'project') {
      const p = await this.db.repo(ctx, ProjectEntity, 'Project').findById(id);
      return !!p && (await this.manages(ctx, s, p.ownerId));
    }
    return this.managesUnit(ctx, s, id);
  }

  private chain(ctx: RequestContext, unitId: string) {
    const memo = this.memo(ctx).chains;
    let hit = memo.get(unitId);
    if (!hit) {
      hit = unitChain(this.db, ctx, unitId);
      memo.set(unitId, hit);
    }
    return hit;
  }

  // ------------------------------------------------------------------ loading rows

  /** The facts of a secured row of the caller's site by id and type (null when not there). */
  async rowFacts(ctx: RequestContext, type: RowType, id: string): Promise<RowFacts | null> {
    // The row of the entity, read by id in the caller's site, and its facts.
    const read = async <T extends TenantEntity & ObjectLiteral>(entity: EntityTarget<T>, label: string, facts: (row: T) => RowFacts) => {
      const row = await this.db.repo(ctx, entity, label).findById(id);
      return row ? facts(row) : null;
    };
    switch (type) {
      case ROW_TYPE.individual:
        return (await this.db.repo(ctx, IndividualEntity, 'Individual').exists({ id })) ? Row.individual(id) : null;
      case ROW_TYPE.organization:
      case ROW_TYPE.department:
        return read(OrganizationEntity, 'Organization', Row.unit);
      case ROW_TYPE.project:
        return read(ProjectEntity, 'Project', Row.project);
      case ROW_TYPE.dialog:
        return read(DialogEntity, 'Dialog', Row.dialog);
      case ROW_TYPE.metric:
        return read(MetricEntity, 'Metric', Row.metric);
    }
    return null;
  }

  /** The row a record of `kind` (a dialog's, task's or metric's Kind) names. */
  async subjectRow(ctx: RequestContext, kind: RecordKind, id: string): Promise<RowFacts | null> {
    if (kind === 'individual') return this.rowFacts(ctx, ROW_TYPE.individual, id);
    if (kind === 'project') return this.rowFacts(ctx, ROW_TYPE.project, id);
    const row = await this.rowFacts(ctx, kind === 'organization' ? ROW_TYPE.organization : ROW_TYPE.department, id);
    return row && row.type === (kind === 'organization' ? 4 : 56) ? row : null;
  }

  // ------------------------------------------------------------------ batches (lists, Can*)

  /**
   * The rows of `type` a Deny hides from the caller, for a list to leave out in its SQL: nothing
   * (no statement at all) for administrators and callers without Permission records; else at
   * most two statements per request and type, however long the list.
   */
  hidden(ctx: RequestContext, type: RowType): Promise<Hidden> {
    const s = this.subjectOf(ctx);
    const denies = s.isAdmin ? [] : s.grants.filter((g) => g.states[1] === DENY);
    if (denies.length === 0) return Promise.resolve(NONE);
    const memo = this.memo(ctx).hidden;
    let hit = memo.get(type);
    if (!hit) {
      hit = this.loadHidden(ctx, type, denies);
      memo.set(type, hit);
    }
    return hit;
  }

  /** The organizations and departments a Deny hides from the caller (both row types at once). */
  async hiddenUnits(ctx: RequestContext): Promise<string[]> {
    const [orgs, depts] = await Promise.all([this.hidden(ctx, ROW_TYPE.organization), this.hidden(ctx, ROW_TYPE.department)]);
    return [...orgs.ids, ...depts.ids];
  }

  private async loadHidden(ctx: RequestContext, type: RowType, denies: readonly Grant[]): Promise<Hidden> {
    const ids = denies.filter((g) => g.childType === 0 && (g.rowType === type || (isUnit(type) && isUnit(g.rowType)))).map((g) => g.rowId);
    const scoped = denies.filter((g) => g.childType !== 0 && CHILD_TYPE_COVERS[g.childType] === type);
    if (scoped.length === 0) return { ids, ancestors: [] };
    const unitRoots = scoped.filter((g) => isUnit(g.rowType)).map((g) => g.rowId);
    const below = await unitsBelow(this.db, ctx, unitRoots);
    if (isUnit(type)) {
      for (const u of below) if (u.id !== u.root && u.rowType === type) ids.push(u.id);
      return { ids, ancestors: [] };
    }
    const units = [...new Set(below.map((u) => u.id))];
    if (type === ROW_TYPE.project) {
      ids.push(...(await projectIdsOfUnits(this.db, ctx, units)));
      return { ids, ancestors: [] };
    }
    // dialogs and metrics: those about a covered unit, a project of one, or the row the record is on
    const owners = scoped.filter((g) => !isUnit(g.rowType)).map((g) => g.rowId);
    return { ids, ancestors: [...units, ...(await projectIdsOfUnits(this.db, ctx, units)), ...owners] };
  }

  // ------------------------------------------------------------------ compatibility helpers

  /** May the caller change records owned by this individual (goals, items…)? */
  canManageIndividual(ctx: RequestContext, individualId: string, op: Operation = 'update'): Promise<boolean> {
    return this.can(ctx, op, Row.individual(individualId), 'records');
  }

  /** 403 unless the caller may do `op` on records owned by this individual (404 when a Deny hides them). */
  assertCanManageIndividual(
    ctx: RequestContext,
    individualId: string,
    op: Operation = 'update',
    message = 'Only the individual, someone they report to, or an administrator may change this',
    notFound?: [label: string, id: string | number],
  ): Promise<void> {
    return this.assert(ctx, op, Row.individual(individualId), 'records', message, notFound);
  }

  /**
   * An individual a path names, before a list of their records: 404 when they are not of the
   * caller's site, then 403 unless the caller may read what they own — "Only the individual,
   * someone they report to, or an administrator may <action>".
   */
  async assertCanReadRecordsOf(ctx: RequestContext, individualId: string, action: string): Promise<void> {
    await this.db.repo(ctx, IndividualEntity, 'Individual').get(individualId);
    await this.assertCanManageIndividual(ctx, individualId, 'read', `Only the individual, someone they report to, or an administrator may ${action}`);
  }

  /** Whether `managerId` is above `individualId` in the reporting chain. */
  reportsTo(ctx: RequestContext, individualId: string, managerId: string): Promise<boolean> {
    return isInReportingChain(this.db, ctx, individualId, managerId);
  }

  /**
   * Everyone below the caller in the reporting chain, at any depth, kept for CALLER_CACHE_MS like
   * the caller (src/database/caches/caller-cache.ts), for reads that show the caller's rights on many
   * records. Null when reads must work the chain out themselves: for an administrator (who needs
   * no chain), a caller without an individual, inside a transaction (which may have just changed
   * the chain), with CALLER_CACHE_MS=0, or above more than MAX_KEPT_REPORTS people.
   */
  async keptReports(ctx: RequestContext): Promise<ReadonlySet<string> | null> {
    const me = ctx.user;
    if (me.isAdmin || !me.individualId || this.db.inTransaction(ctx)) return null;
    return this.callers.reportsOf(ctx.siteId, me.individualId, () => subordinateIds(this.db, ctx, me.individualId!));
  }

  private memo(ctx: RequestContext): Memo {
    let m = this.memos.get(ctx);
    if (!m) {
      m = { manages: new Map(), chains: new Map(), ancestors: new Map(), hidden: new Map() };
      this.memos.set(ctx, m);
    }
    return m;
  }
}

/**
 * Permission records laid over the defaults of one individual's rights (Individual.Can*), with no
 * statement at all: records on individuals have no ChildType scope, so each row needs only its own.
 */
export function overlayRights(caller: Caller, id: string, defaults: Rights): Rights {
  const grants = caller.isAdmin ? [] : (caller.grants ?? []);
  if (grants.length === 0) return defaults;
  const mine = grants.filter((g) => g.rowId === id && g.childType === 0);
  if (mine.length === 0) return defaults;
  const state = (i: number, dflt: boolean) => (mine.some((g) => g.states[i] === DENY) ? false : mine.some((g) => g.states[i] === ALLOW) ? true : dflt);
  return { read: state(1, defaults.read), update: state(2, defaults.update), delete: state(3, defaults.delete), delegate: state(4, defaults.delegate) };
}

/**
 * The individuals hidden from the caller: those a Deny on Read hides (no statement: individuals
 * have no ChildType scope) and those the caller never sees (Caller.unseen: global administrators,
 * for an API token).
 */
export function hiddenIndividuals(caller: Caller): string[] {
  const unseen = caller.unseen ?? [];
  if (caller.isAdmin || !caller.grants?.length) return unseen.length ? [...unseen] : [];
  return [...unseen, ...caller.grants.filter((g) => g.rowType === ROW_TYPE.individual && g.childType === 0 && g.states[1] === DENY).map((g) => g.rowId)];
}

/**
 * The find-options condition that leaves out what `hidden` names: `id` not among the hidden rows
 * and, for dialogs and metrics, `ancestorId` not among the hidden ancestors.
 */
export function notHidden(h: Hidden): { id?: FindOperator<string>; ancestorId?: FindOperator<string> } {
  const out: { id?: FindOperator<string>; ancestorId?: FindOperator<string> } = {};
  if (h.ids.length) out.id = Not(In(h.ids));
  if (h.ancestors.length) out.ancestorId = Not(In(h.ancestors));
  return out;
}

const LABEL: Record<number, string> = { 39: 'Individual', 4: 'Organization', 56: 'Department', 15: 'Project', 9: 'Dialog', 7: 'Metric' };

const isUnit = (t: number) => t === ROW_TYPE.organization || t === ROW_TYPE.department;
