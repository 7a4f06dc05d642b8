import { Injectable } from '@nestjs/common';
import { FindOptionsWhere, In } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { FieldError, ForbiddenError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { Page, pageOf, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { type ListScope, readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { liveMemberIds, nearestAncestorOfType, organizationSubtree } from '../../database/queries/trees.js';
import { type Anchor, TenantDb } from '../../database/tenant-db.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { OrganizationEntity, ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION } from '../../database/entities/organization.entity.js';
import { PeriodsService } from '../periods/periods.service.js';
import { AccessService, Row, type Operation } from '../../authorization/access.service.js';
import { COMMITMENT_TYPES, CommitmentEntity, CommitmentType } from '../../database/entities/commitment.entity.js';
import { Commitment, CommitmentDto, CreateCommitmentDto, UpdateCommitmentDto } from './dto/commitment.dto.js';
import { periodErrors, periodGone } from '../../database/queries/period-reference.js';
import { QueriedPeriodQuery } from '../../http/wire/period-query.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

const ROW_TYPE_OF: Record<Exclude<CommitmentType, 'individual'>, number> = { organization: ROW_TYPE_ORGANIZATION, department: ROW_TYPE_DEPARTMENT };
const LABEL_OF: Record<Exclude<CommitmentType, 'individual'>, string> = { organization: 'Organization', department: 'Department' };
/** Every list of commitments: by Rank, then Name, then ID. */
const LIST_ORDER = { rank: 'ASC', name: 'ASC', id: 'ASC' } as const;
/** The same order for a queried list: Rank, then Name (the field's `then`), then ID. */
const BY_RANK = [{ field: Commitment.queryable.get('rank')!, desc: false }] as const;

/**
 * Commitments of organizations, departments and individuals (docs/goals-colors-values-commitments.md). Every member of a
 * PM site reads them (they feed the dashboards). An individual's commitments are written by whoever
 * may manage that individual; an organization's or department's by administrators and by that unit's
 * manager (Organization.ManagerID). Commitments are hard-deleted.
 */
@Injectable()
@DeclaresRecordKind<CommitmentsService>({ path: 'commitments', kind: 'commitment', intId: true, access: 'pm', read: (s, ctx, id) => s.get(ctx, Number(id)) })
export class CommitmentsService {
  constructor(
    private readonly db: TenantDb,
    private readonly periods: PeriodsService,
    private readonly access: AccessService,
    private readonly queries: ListQueries,
  ) {}

  private readonly repo = this.db.scoped(CommitmentEntity, 'Commitment');

  /**
   * One commitment, for whoever may see what it belongs to (its lists' rule); there is no GET route
   * of one commitment: delta sync, history and webhook payloads read commitments through it.
   */
  async get(ctx: RequestContext, id: number): Promise<CommitmentDto> {
    const row = await this.repo(ctx).get(id);
    if (row.type === 'individual') await this.access.assertVisible(ctx, Row.individual(row.ancestorId));
    else {
      const unit = await this.db.repo(ctx, OrganizationEntity, 'Organization').get(row.ancestorId);
      await this.access.assertVisible(ctx, Row.unit(unit));
    }
    return Commitment.toWire(row);
  }

  /**
   * `GET /{individuals|organizations|departments}/{id}/commitments`: the row's own commitments, in
   * one statement with the row (its 404; ScopedRepository.findAndCountUnder), then its 403.
   */
  async listFor(ctx: RequestContext, type: CommitmentType, id: string, q: QueriedPeriodQuery): Promise<Page<CommitmentDto>> {
    // An unknown period is answered only to a caller who may see the row.
    const period = await this.periods.resolve(ctx, q.period).catch(async (e: unknown) => {
      await this.assertRowVisible(ctx, type, id);
      throw e;
    });
    const anchor: Anchor =
      type === 'individual'
        ? { target: IndividualEntity, label: 'Individual', id }
        : { target: OrganizationEntity, label: LABEL_OF[type], id, where: { rowType: ROW_TYPE_OF[type] }, columns: ['manager_id'] };
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the record exists and the caller may see it, then its commitments of the period.
      await this.assertRowVisible(ctx, type, id);
      return this.queried(ctx, q, { equal: { type, ancestorId: id, ...(period ? { periodId: period.id } : {}) } });
    }
    const where: FindOptionsWhere<CommitmentEntity> = { type, ancestorId: id, ...(period ? { periodId: period.id } : {}) };
    const page = await this.repo(ctx).findAndCountUnder(anchor, { where, order: LIST_ORDER, ...pageOf(q) });
    const managerId = (page.anchor.manager_id ?? null) as string | null;
    await this.access.assertVisible(ctx, type === 'individual' ? Row.individual(id) : Row.unit({ id, rowType: ROW_TYPE_OF[type], managerId }));
    return Page.of(this.repo(ctx).answers(page.rows, Commitment), page.total, q);
  }

  /** The row a list of commitments is under: 404 when not one of the site (of that type), 403 when the caller may not see it. */
  private async assertRowVisible(ctx: RequestContext, type: CommitmentType, id: string): Promise<void> {
    if (type === 'individual') {
      await this.db.repo(ctx, IndividualEntity, 'Individual').get(id);
      await this.access.assertVisible(ctx, Row.individual(id));
    } else {
      const unit = await this.db.repo(ctx, OrganizationEntity, LABEL_OF[type]).findOne({ id, rowType: ROW_TYPE_OF[type] });
      if (!unit) throw new NotFoundError(LABEL_OF[type], id);
      await this.access.assertVisible(ctx, Row.unit(unit));
    }
  }

  /**
   * `GET /dashboards/{ancestorId}/commitments/{type}`: the commitments a dashboard counts at one
   * level (docs/goals-colors-values-commitments.md). For an individual: their own, their primary department's, and the
   * organization above it. For a department or organization: the commitments of the unit and its
   * live sub-units of that level, of their live members (individual), or, for the organization level
   * of a department, of the nearest organization above it.
   */
  async forDashboard(ctx: RequestContext, ancestorId: string, type: string, q: QueriedPeriodQuery): Promise<Page<CommitmentDto>> {
    if (!(COMMITMENT_TYPES as readonly string[]).includes(type)) {
      throw new ValidationError([{ field: 'type', message: `type must be one of ${COMMITMENT_TYPES.join(', ')}` }]);
    }
    const level = type as CommitmentType;
    const individual = await this.db.repo(ctx, IndividualEntity, 'Individual').findById(ancestorId);
    let ids: string[];
    if (individual) {
      ids = await this.levelOfIndividual(ctx, individual, level);
    } else {
      const unit = await this.db
        .repo(ctx, OrganizationEntity, 'Organization')
        .findOne({ id: ancestorId, rowType: In([ROW_TYPE_ORGANIZATION, ROW_TYPE_DEPARTMENT]) });
      if (!unit) throw new NotFoundError('Dashboard row (organization, department or individual)', ancestorId);
      ids = await this.levelOfUnit(ctx, unit, level);
    }
    return this.page(ctx, level, ids, q);
  }

  private async levelOfIndividual(ctx: RequestContext, individual: IndividualEntity, level: CommitmentType): Promise<string[]> {
    if (level === 'individual') return [individual.id];
    const primary = individual.primaryOrganizationId;
    if (!primary) return [];
    if (level === 'department') {
      const unit = await this.db.repo(ctx, OrganizationEntity, 'Department').findOne({ id: primary, rowType: ROW_TYPE_DEPARTMENT });
      return unit ? [unit.id] : [];
    }
    const org = await nearestAncestorOfType(this.db, ctx, primary, ROW_TYPE_ORGANIZATION);
    return org ? [org] : [];
  }

  private async levelOfUnit(ctx: RequestContext, unit: OrganizationEntity, level: CommitmentType): Promise<string[]> {
    if (level === 'organization' && unit.rowType === ROW_TYPE_DEPARTMENT) {
      const org = await nearestAncestorOfType(this.db, ctx, unit.id, ROW_TYPE_ORGANIZATION);
      return org ? [org] : [];
    }
    const units = await organizationSubtree(this.db, ctx, unit.id);
    if (level === 'individual')
      return liveMemberIds(
        this.db,
        ctx,
        units.map((u) => u.id),
      );
    return units.filter((u) => u.rowType === ROW_TYPE_OF[level]).map((u) => u.id);
  }

  private async page(ctx: RequestContext, type: CommitmentType, ancestorIds: string[], q: QueriedPeriodQuery): Promise<Page<CommitmentDto>> {
    const period = await this.periods.resolve(ctx, q.period);
    if (asksQuery(q))
      return this.queried(ctx, q, { equal: { type, ...(period ? { periodId: period.id } : {}) }, in: { property: 'ancestorId', values: ancestorIds } });
    if (ancestorIds.length === 0) return Page.of([], 0, q);
    const where: FindOptionsWhere<CommitmentEntity> = { type, ancestorId: In(ancestorIds) };
    if (period) where.periodId = period.id;
    const [rows, total] = await this.repo(ctx).findAndCount({ where, order: LIST_ORDER, ...pageOf(q) });
    return Page.of(this.repo(ctx).answers(rows, Commitment), total, q);
  }

  /** A queried page (docs/queries.md) of the commitments `scope` selects; without sort= by Rank, then Name, as the plain list. */
  private async queried(ctx: RequestContext, q: QueriedPeriodQuery, scope: ListScope): Promise<Page<CommitmentDto>> {
    const query = this.queries.read(ctx, Commitment, q);
    const { take, skip } = pageOf(q);
    const page = await readQueriedRows(this.db, ctx, CommitmentEntity, scope, query, BY_RANK, take, skip);
    const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
    return new QueriedPage(this.repo(ctx).answers(page.rows, Commitment), page.total, take, skip, query.fields, next);
  }

  async create(ctx: RequestContext, dto: CreateCommitmentDto): Promise<CommitmentDto> {
    return this.db.transaction(ctx, async () => {
      const errors: FieldError[] = [];
      if (!(await this.ancestorExists(ctx, dto.Type, dto.AncestorID))) {
        errors.push({ field: 'AncestorID', message: `AncestorID ${dto.AncestorID} is not a live ${dto.Type} of this site` });
      }
      errors.push(...(await periodErrors(this.db, ctx, dto.PeriodID)));
      if (errors.length) throw new ValidationError(errors);
      await this.assertCanWrite(ctx, dto.Type, dto.AncestorID, 'create');
      const completed = dto.Completed ?? false;
      const row = await this.repo(ctx)
        .insert({ ...Commitment.toColumns(dto, 'create'), completed, completedDate: completed ? (dto.CompletedDate ?? new Date()) : null })
        .catch(periodGone(dto.PeriodID));
      return Commitment.toWire(row);
    });
  }

  async update(ctx: RequestContext, id: number, dto: UpdateCommitmentDto): Promise<CommitmentDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async () => {
      const repo = this.repo(ctx);
      const current = await repo.lock(id);
      await this.assertCanWrite(ctx, current.type, current.ancestorId, 'update');
      const errors = await periodErrors(this.db, ctx, dto.PeriodID, current.periodId);
      if (errors.length) throw new ValidationError(errors);
      const completed = dto.Completed ?? current.completed;
      // CompletedDate lives only while Completed is true; a completed commitment always has one.
      const completedDate = completed ? (dto.CompletedDate ?? current.completedDate ?? new Date()) : null;
      const row = await repo
        .update(id, { ...Commitment.toColumns(dto, 'update'), completed, completedDate }, { ifMatch: true })
        .catch(periodGone(dto.PeriodID));
      return Commitment.toWire(row);
    });
  }

  /** PATCH: the commitment, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: number, patch: MergePatch): Promise<CommitmentDto> {
    return patchResource(this.db, ctx, patch, Commitment, this.repo(ctx), id, (dto) => this.update(ctx, id, dto));
  }

  async remove(ctx: RequestContext, id: number): Promise<Record<string, never>> {
    await this.db.transaction(ctx, async () => {
      const repo = this.repo(ctx);
      const current = await repo.lock(id);
      await this.assertCanWrite(ctx, current.type, current.ancestorId, 'delete');
      await repo.remove(id, { ifMatch: true });
    });
    return {};
  }

  private async ancestorExists(ctx: RequestContext, type: CommitmentType, ancestorId: string): Promise<boolean> {
    if (type === 'individual') return this.db.repo(ctx, IndividualEntity, 'Individual').exists({ id: ancestorId, deleted: false });
    return this.db.repo(ctx, OrganizationEntity, 'Organization').exists({ id: ancestorId, rowType: ROW_TYPE_OF[type], deleted: false });
  }

  /** The engine on the row the commitment belongs to (docs/authorization.md). */
  private async assertCanWrite(ctx: RequestContext, type: CommitmentType, ancestorId: string, op: Operation): Promise<void> {
    if (type === 'individual') return this.access.assertCanManageIndividual(ctx, ancestorId, op);
    if (ctx.user.isAdmin) return;
    const unit = await this.db.repo(ctx, OrganizationEntity, 'Organization').findById(ancestorId);
    const message = `Only an administrator, the ${type}'s manager (or a manager above it), or whoever a Permission record allows may change its commitments`;
    if (!unit) throw new ForbiddenError(message);
    await this.access.assert(ctx, op, Row.unit(unit), 'records', message);
  }
}
