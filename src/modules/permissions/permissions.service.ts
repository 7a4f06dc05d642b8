import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchRecord } from '../../database/patch-record.js';
import { ConflictError, FieldError, ForbiddenError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { fullName } from '../../common/names.js';
import { Page, pageOf, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { type ListScope, readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { isUniqueViolation } from '../../common/errors/db-errors.js';
import { grantsOfPrincipal, grantsOfUser, groupIdsOf, rowTypeOf } from '../../authorization/grants.statements.js';
import { TenantDb } from '../../database/tenant-db.js';
import { DialogEntity } from '../../database/entities/dialog.entity.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { OrganizationEntity } from '../../database/entities/organization.entity.js';
import { MetricEntity } from '../../database/entities/metric.entity.js';
import { ProjectEntity } from '../../database/entities/project.entity.js';
import { SecurityGroupEntity } from '../../database/entities/security-group.entity.js';
import { AccessService, OPERATIONS, type Decision, type RowFacts, type Subject } from '../../authorization/access.service.js';
import {
  CreatePermissionDto,
  EffectivePermissions,
  EffectivePermissionsDto,
  EffectiveQuery,
  Permission,
  PermissionDto,
  PermissionQuery,
  UpdatePermissionDto,
  childTypeOf,
  type DecisionRow,
} from './dto/permission.dto.js';
import { PermissionEntity, PRINCIPAL_GROUP, PRINCIPAL_USER, ROW_TYPE, type RowType } from '../../database/entities/permission.entity.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';
import { DeclaresBulkWrites } from '../../database/registries/bulk-writers.js';
import { answerBulk, applyBulk, type BulkOptions, type BulkPlan, type BulkRun } from '../../database/bulk-write.js';
import type { BulkItemInput, BulkQuery, BulkRequest, BulkResultsDto } from '../../http/wire/bulk.js';

const LABEL = 'Permission';
const ORDER = { rowType: 'ASC', rowId: 'ASC', principalType: 'ASC', principalId: 'ASC', childType: 'ASC', id: 'ASC' } as const;
/** The same order for a queried list: RowType, then what its declaration's `then` names, then ID. */
const BY_ROW = [{ field: Permission.queryable.get('rowtype')!, desc: false }] as const;
const KIND_ROW_TYPES: Record<string, readonly RowType[]> = {
  individuals: [ROW_TYPE.individual],
  organizations: [ROW_TYPE.organization],
  departments: [ROW_TYPE.department],
  projects: [ROW_TYPE.project],
  dialogs: [ROW_TYPE.dialog],
  metrics: [ROW_TYPE.metric],
};
const OP_TITLE = ['Create', 'Read', 'Update', 'Delete', 'Delegate'] as const;

interface Principal {
  id: string;
  type: number;
  /** For a user: their individual in this site. */
  individual: IndividualEntity | null;
}

/**
 * Permission records (docs/authorization.md): who holds which state of Create, Read, Update, Delete
 * and Delegate on a row. Administrators manage them all; anyone else needs Delegate on the row.
 * Reading them: administrators, Delegate holders of the row, and the principal itself.
 */
@Injectable()
@DeclaresRecordKind<PermissionsService>({ path: 'permissions', kind: 'permission', access: 'authenticated', read: (s, ctx, id) => s.get(ctx, id) })
@DeclaresBulkWrites<PermissionsService>({
  path: 'permissions',
  records: [CreatePermissionDto, UpdatePermissionDto, PermissionDto],
  apply: (s, ctx, items, opts) => s.applyBatch(ctx, items, opts),
})
export class PermissionsService {
  constructor(
    private readonly db: TenantDb,
    private readonly access: AccessService,
    private readonly queries: ListQueries,
  ) {}

  private readonly repo = this.db.scoped(PermissionEntity, LABEL);

  // ------------------------------------------------------------------ reads

  /**
   * `GET /permissions?rowid=&principalid=`. An administrator sees every record of the site; anyone
   * else the records naming them or one of their security groups, and — with `rowid` — every record
   * of a row they hold Delegate on.
   */
  async list(ctx: RequestContext, q: PermissionQuery): Promise<Page<PermissionDto>> {
    const base = { ...(q.rowid ? { rowId: q.rowid } : {}), ...(q.principalid ? { principalId: q.principalid } : {}) };
    let where: object | object[] = base;
    if (!ctx.user.isAdmin) {
      const delegated = q.rowid ? await this.mayDelegateOn(ctx, q.rowid) : false;
      if (!delegated) {
        const mine = [ctx.user.userId, ...(ctx.user.individualId ? await groupIdsOf(this.db, ctx, ctx.user.individualId) : [])];
        const allowed = q.principalid ? mine.filter((p) => p === q.principalid) : mine;
        if (allowed.length === 0) return asksQuery(q) ? this.queried(ctx, q, { in: { property: 'principalId', values: [] } }) : Page.of([], 0, q);
        where = { ...base, principalId: In(allowed) };
        if (asksQuery(q)) return this.queried(ctx, q, { equal: base, in: { property: 'principalId', values: allowed } });
      }
    }
    if (asksQuery(q)) return this.queried(ctx, q, { equal: base });
    const [rows, total] = await this.repo(ctx).findAndCount({ where, order: ORDER, ...pageOf(q) });
    return Page.of(await this.toDtos(ctx, rows), total, q);
  }

  /** `GET /{kind}/{rowid}/permissions`: the records of one row (404 when it is not a row of that kind). */
  async listForRow(ctx: RequestContext, kind: string, rowId: string, q: PermissionQuery): Promise<Page<PermissionDto>> {
    const row = await this.row(ctx, rowId, KIND_ROW_TYPES[kind]);
    if (!row) throw new NotFoundError(kind === 'individuals' ? 'Individual' : kind.slice(0, 1).toUpperCase() + kind.slice(1, -1), rowId);
    await this.assertMayDelegate(ctx, row);
    if (asksQuery(q)) return this.queried(ctx, q, { equal: { rowType: row.type, rowId, ...(q.principalid ? { principalId: q.principalid } : {}) } });
    const [rows, total] = await this.repo(ctx).findAndCount({
      where: { rowId, ...(q.principalid ? { principalId: q.principalid } : {}) },
      order: ORDER,
      ...pageOf(q),
    });
    return Page.of(await this.toDtos(ctx, rows), total, q);
  }

  /**
   * A queried page (docs/queries.md) of the records `scope` selects — the caller's right applied
   * there (the records naming them or their groups, or a row they may delegate on) — before the filter;
   * without sort= in the plain list's order (RowType, then the row, the principal, the ChildType).
   */
  private async queried(ctx: RequestContext, q: PermissionQuery, scope: ListScope): Promise<Page<PermissionDto>> {
    const query = this.queries.read(ctx, Permission, q);
    const { take, skip } = pageOf(q);
    const page = await readQueriedRows(this.db, ctx, PermissionEntity, scope, query, BY_ROW, take, skip);
    const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
    return new QueriedPage(await this.toDtos(ctx, page.rows), page.total, take, skip, query.fields, next);
  }

  async get(ctx: RequestContext, id: string): Promise<PermissionDto> {
    const p = await this.repo(ctx).get(id);
    await this.assertMayRead(ctx, p);
    return (await this.toDtos(ctx, [p]))[0];
  }

  /**
   * `GET /permissions/effective`: for each operation, whether the principal may do it on the row
   * and the rule that decided (administrator, which Permission record — through which group or
   * row above — or which default).
   */
  async effective(ctx: RequestContext, q: EffectiveQuery): Promise<EffectivePermissionsDto> {
    const row = await this.row(ctx, q.rowid);
    if (!row)
      throw new ValidationError([
        { field: 'rowid', message: `rowid ${q.rowid} is no individual, organization, department, project, dialog or metric of this site` },
      ]);
    await this.assertMayDelegate(ctx, row);
    const principal = q.principalid
      ? await this.principal(ctx, q.principalid)
      : { id: ctx.user.userId, type: PRINCIPAL_USER, individual: ctx.user.individualId ? await this.individuals(ctx).findById(ctx.user.individualId) : null };
    if (!principal) throw new ValidationError([{ field: 'principalid', message: `principalid ${q.principalid} is no user or security group of this site` }]);
    const subject = await this.subjectOf(ctx, principal);
    const decisions: DecisionRow[] = [];
    for (const op of OPERATIONS)
      decisions.push(this.explain(OP_TITLE[OPERATIONS.indexOf(op)], await this.access.decide(ctx, op, row, 'row', subject), subject));
    const [principalNames, rowNames] = await Promise.all([
      this.principalNames(ctx, [principal.id]),
      this.rowNames(ctx, [{ rowId: row.id, rowType: row.type }]),
    ]);
    return EffectivePermissions.toWire({
      rowId: row.id,
      rowType: row.type,
      rowName: rowNames.get(row.id) ?? null,
      principalId: principal.id,
      principalType: principal.type,
      principalName: principalNames.get(principal.id) ?? null,
      decisions,
    });
  }

  // ------------------------------------------------------------------ writes

  async create(ctx: RequestContext, dto: CreatePermissionDto): Promise<PermissionDto> {
    return this.db.transaction(ctx, async () => {
      const errors: FieldError[] = [];
      const row = await this.row(ctx, dto.RowID);
      if (!row)
        errors.push({ field: 'RowID', message: `RowID ${dto.RowID} is no individual, organization, department, project, dialog or metric of this site` });
      const principal = await this.principal(ctx, dto.PrincipalID);
      if (!principal) errors.push({ field: 'PrincipalID', message: `PrincipalID ${dto.PrincipalID} is no user (UserID) or security group of this site` });
      if (errors.length || !row || !principal) throw new ValidationError(errors);
      await this.assertMayDelegate(ctx, row);
      const columns = Permission.toColumns(dto, 'create');
      try {
        const saved = await this.repo(ctx).insert({ ...columns, rowType: row.type, principalType: principal.type });
        return (await this.toDtos(ctx, [saved]))[0];
      } catch (e) {
        if (isUniqueViolation(e)) {
          throw new ConflictError(
            `A permission of principal ${dto.PrincipalID} on row ${dto.RowID} with this ChildType already exists; change it with PUT /permissions/{id}`,
            'duplicate-permission',
          );
        }
        throw e;
      }
    });
  }

  /** Changes the five states (RowID, PrincipalID and ChildType are ignored: a permission does not move). */
  async update(ctx: RequestContext, id: string, dto: UpdatePermissionDto): Promise<PermissionDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async () => {
      const current = await this.repo(ctx).lock(id);
      await this.assertMayDelegateOnRecord(ctx, current);
      const saved = await this.repo(ctx).update(id, Permission.toColumns(dto, 'update'), { ifMatch: true });
      return (await this.toDtos(ctx, [saved]))[0];
    });
  }

  /**
   * A batch of creates, updates and upserts of permissions (docs/bulk.md), each through `create` or
   * `update`: what `POST /permissions/bulk` and a file import run. An item names its permission by
   * ID, or by RowID, PrincipalID and ChildType (unique together): an upsert of a grant that does not
   * exist yet creates it, else changes its five states.
   */
  applyBatch(ctx: RequestContext, items: readonly BulkItemInput[], opts: BulkOptions): Promise<BulkRun> {
    return applyBulk(this.db, ctx, items, (c) => this.bulkPlan(c), opts);
  }

  /** `POST /permissions/bulk`. */
  bulk(ctx: RequestContext, body: BulkRequest, q: BulkQuery): Promise<BulkResultsDto> {
    return answerBulk(this.db, ctx, body, q, (c) => this.bulkPlan(c));
  }

  private bulkPlan(ctx: RequestContext): BulkPlan<CreatePermissionDto, UpdatePermissionDto> {
    return {
      label: LABEL,
      entity: PermissionEntity,
      externalIds: false,
      create: CreatePermissionDto,
      update: UpdatePermissionDto,
      // POST /permissions admits any member; `create` then holds the caller to Delegate on the row.
      createRule: 'authenticated',
      refs: {},
      match: {
        fields: ['RowID', 'PrincipalID'],
        find: async (record) => {
          // ChildType as the create stores it (absent or null: the row itself; an unknown number: null); not a number: nothing is matched.
          const sent = record.ChildType;
          const n =
            sent === undefined || sent === null
              ? null
              : typeof sent === 'number' || (typeof sent === 'string' && /^-?\d+$/.test(sent.trim()))
                ? Number(sent)
                : NaN;
          if (Number.isNaN(n)) return null;
          const found = await this.repo(ctx).findOne({
            rowId: String(record.RowID).trim().toLowerCase(),
            principalId: String(record.PrincipalID).trim().toLowerCase(),
            childType: childTypeOf(n),
          });
          return found?.id ?? null;
        },
      },
      createOne: (dto) => this.create(ctx, dto),
      updateOne: (id, dto) => this.update(ctx, id, dto),
      read: (id) => this.get(ctx, id),
    };
  }

  /** PATCH: the permission, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<PermissionDto> {
    return patchRecord(this.db, ctx, patch, {
      current: async () => (await this.toDtos(ctx, [await this.repo(ctx).lock(id)]))[0],
      input: UpdatePermissionDto,
      update: (dto) => this.update(ctx, id, dto),
    });
  }

  async remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    await this.db.transaction(ctx, async () => {
      const current = await this.repo(ctx).lock(id);
      await this.assertMayDelegateOnRecord(ctx, current);
      await this.repo(ctx).remove(id, { ifMatch: true });
    });
    return {};
  }

  // ------------------------------------------------------------------ access

  private async mayDelegateOn(ctx: RequestContext, rowId: string): Promise<boolean> {
    const row = await this.row(ctx, rowId);
    return !!row && (await this.access.can(ctx, 'delegate', row));
  }

  private assertMayDelegate(ctx: RequestContext, row: RowFacts): Promise<void> {
    return this.access.assert(ctx, 'delegate', row, 'row', 'Only an administrator or a holder of Delegate on the row may see or change its permissions');
  }

  private async assertMayDelegateOnRecord(ctx: RequestContext, p: PermissionEntity): Promise<void> {
    if (ctx.user.isAdmin) return;
    const row = await this.access.rowFacts(ctx, p.rowType, p.rowId);
    if (!row) throw new ForbiddenError('Only an administrator may change the permissions of a row that no longer exists');
    await this.access.assert(ctx, 'delegate', row, 'row', 'Only an administrator or a holder of Delegate on the row may change its permissions', [LABEL, p.id]);
  }

  private async assertMayRead(ctx: RequestContext, p: PermissionEntity): Promise<void> {
    if (ctx.user.isAdmin || p.principalId === ctx.user.userId) return;
    if (ctx.user.individualId && (await groupIdsOf(this.db, ctx, ctx.user.individualId)).includes(p.principalId)) return;
    const row = await this.access.rowFacts(ctx, p.rowType, p.rowId);
    if (row && (await this.access.can(ctx, 'delegate', row))) return;
    // Someone who may not see a permission is not told it exists.
    throw new NotFoundError(LABEL, p.id);
  }

  // ------------------------------------------------------------------ helpers

  private readonly individuals = this.db.scoped(IndividualEntity, 'Individual');

  /** The secured row `id` names (optionally only of these types), with its facts; null when none. */
  private async row(ctx: RequestContext, id: string, types?: readonly RowType[]): Promise<RowFacts | null> {
    const type = await rowTypeOf(this.db, ctx, id);
    if (type === null || (types && !types.includes(type as RowType))) return null;
    return this.access.rowFacts(ctx, type as RowType, id);
  }

  /** A user of the site (an individual's UserID) or a security group of the site; null when neither. */
  private async principal(ctx: RequestContext, id: string): Promise<Principal | null> {
    const individual = await this.individuals(ctx).findOne({ userId: id });
    if (individual) return { id, type: PRINCIPAL_USER, individual };
    if (await this.db.repo(ctx, SecurityGroupEntity, 'SecurityGroup').exists({ id })) return { id, type: PRINCIPAL_GROUP, individual: null };
    return null;
  }

  private async subjectOf(ctx: RequestContext, p: Principal): Promise<Subject> {
    if (p.type === PRINCIPAL_GROUP) return { userId: null, individualId: null, isAdmin: false, grants: await grantsOfPrincipal(this.db, ctx, p.id) };
    const isAdmin = !!p.individual?.isAdmin;
    return {
      userId: p.id,
      individualId: p.individual?.id ?? null,
      isAdmin,
      grants: isAdmin ? [] : await grantsOfUser(this.db, ctx, p.id, p.individual?.id ?? null),
    };
  }

  private explain(operation: string, d: Decision, s: Subject): DecisionRow {
    const base = { operation, allowed: d.allowed, state: null, permissionId: null, viaGroupId: null, throughRowId: null, childType: null };
    switch (d.rule.kind) {
      case 'administrator':
        return { ...base, rule: 'administrator', explanation: 'Administrators of the site may do everything in it.' };
      case 'default':
        return { ...base, rule: 'default', explanation: `No Permission record applies; by default ${d.rule.text}.` };
      case 'permission': {
        const r = d.rule;
        const via = r.viaGroup && s.userId !== null ? r.principalId : null;
        const where = r.throughAncestor ? ` on row ${r.throughAncestor} above this one (ChildType ${r.childType})` : ' on this row';
        const who = via ? ` to security group ${via}, of which the principal is a member,` : '';
        const why = r.state === 'Deny' ? 'a Deny wins over every Allow' : 'no Deny applies';
        return {
          ...base,
          rule: 'permission',
          state: r.state,
          permissionId: r.permissionId,
          viaGroupId: via,
          throughRowId: r.throughAncestor,
          childType: r.childType,
          explanation: `Permission ${r.permissionId} grants ${r.state}${who}${where}; ${why}.`,
        };
      }
    }
  }

  /** Wire records with PrincipalName and RowName: a fixed number of statements for any page. */
  private async toDtos(ctx: RequestContext, rows: PermissionEntity[]): Promise<PermissionDto[]> {
    if (rows.length === 0) return [];
    const [principalNames, rowNames] = await Promise.all([
      this.principalNames(
        ctx,
        rows.map((r) => r.principalId),
      ),
      this.rowNames(ctx, rows),
    ]);
    return rows.map((r) => Permission.toWire(r, { principalNames, rowNames }));
  }

  private async principalNames(ctx: RequestContext, ids: readonly string[]): Promise<Map<string, string>> {
    const unique = [...new Set(ids)];
    const [people, groups] = await Promise.all([
      this.individuals(ctx).find({ where: { userId: In(unique) } }),
      this.db.repo(ctx, SecurityGroupEntity, 'SecurityGroup').findByIds(unique),
    ]);
    const out = new Map<string, string>();
    for (const p of people) if (p.userId) out.set(p.userId, fullName(p.firstName, p.lastName));
    for (const g of groups) out.set(g.id, g.name);
    return out;
  }

  private async rowNames(ctx: RequestContext, rows: readonly { rowId: string; rowType: number }[]): Promise<Map<string, string>> {
    const of = (types: number[]) => [...new Set(rows.filter((r) => types.includes(r.rowType)).map((r) => r.rowId))];
    const [people, units, projects, dialogs, metrics] = await Promise.all([
      this.individuals(ctx).findByIds(of([ROW_TYPE.individual])),
      this.db.repo(ctx, OrganizationEntity, 'Organization').findByIds(of([ROW_TYPE.organization, ROW_TYPE.department])),
      this.db.repo(ctx, ProjectEntity, 'Project').findByIds(of([ROW_TYPE.project])),
      this.db.repo(ctx, DialogEntity, 'Dialog').findByIds(of([ROW_TYPE.dialog])),
      this.db.repo(ctx, MetricEntity, 'Metric').findByIds(of([ROW_TYPE.metric])),
    ]);
    const out = new Map<string, string>();
    for (const p of people) out.set(p.id, fullName(p.firstName, p.lastName));
    for (const u of [...units, ...projects, ...metrics]) out.set(u.id, u.name);
    for (const d of dialogs) out.set(d.id, `Dialog (${d.kind}) of ${d.scheduledDate.toISOString().slice(0, 10)}`);
    return out;
  }
}
