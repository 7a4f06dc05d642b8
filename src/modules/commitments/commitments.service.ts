import { Injectable } from '@nestjs/common';
import { FindOptionsWhere, In } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import { FieldError, ForbiddenError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { assertIfMatch } from '../../common/http/etag.js';
import { Page, pageOf } from '../../common/pagination/pagination.js';
import { assertBodyId } from '../../common/validation/ids.js';
import { TenantDb } from '../../database/tenant-db.js';
import { IndividualEntity } from '../individuals/individual.entity.js';
import { OrganizationEntity, ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION } from '../organizations/organization.entity.js';
import { PeriodEntity } from '../periods/period.entity.js';
import { PeriodsService } from '../periods/periods.service.js';
import { AccessService } from '../permissions/access.service.js';
import { COMMITMENT_TYPES, CommitmentEntity, CommitmentType } from './commitment.entity.js';
import { CommitmentDto, CommitmentQuery, CreateCommitmentDto, UpdateCommitmentDto } from './dto/commitment.dto.js';

const ROW_TYPE_OF: Record<Exclude<CommitmentType, 'individual'>, number> = { organization: ROW_TYPE_ORGANIZATION, department: ROW_TYPE_DEPARTMENT };

/** A unit of the organization tree as the scope queries read it. */
interface UnitRow {
  id: string;
  row_type: number;
}

/**
 * Commitments of organizations, departments and individuals (DESIGN §5, §6). Every member of a
 * PM site reads them (they feed the dashboards). An individual's commitments are written by whoever
 * may manage that individual; an organization's or department's by administrators and by that unit's
 * manager (Organization.ManagerID). Commitments are hard-deleted.
 */
@Injectable()
export class CommitmentsService {
  constructor(
    private readonly db: TenantDb,
    private readonly periods: PeriodsService,
    private readonly access: AccessService,
  ) {}

  private repo(ctx: RequestContext) {
    return this.db.repo(ctx, CommitmentEntity, 'Commitment');
  }

  /** `GET /{individuals|organizations|departments}/{id}/commitments`: the row's own commitments. */
  async listFor(ctx: RequestContext, type: CommitmentType, id: string, q: CommitmentQuery): Promise<Page<CommitmentDto>> {
    if (type === 'individual') await this.db.repo(ctx, IndividualEntity, 'Individual').get(id);
    else {
      const label = type === 'organization' ? 'Organization' : 'Department';
      const unit = await this.db.repo(ctx, OrganizationEntity, label).findOne({ id, rowType: ROW_TYPE_OF[type] });
      if (!unit) throw new NotFoundError(label, id);
    }
    return this.page(ctx, type, [id], q);
  }

  /**
   * `GET /dashboards/{ancestorId}/commitments/{type}`: the commitments a dashboard counts at one
   * level (DESIGN §6). For an individual: their own, their primary department's, and the
   * organization above it. For a department or organization: the commitments of the unit and its
   * live sub-units of that level, of their live members (individual), or, for the organization level
   * of a department, of the nearest organization above it.
   */
  async forDashboard(ctx: RequestContext, ancestorId: string, type: string, q: CommitmentQuery): Promise<Page<CommitmentDto>> {
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
    return this.nearestOrganization(ctx, primary);
  }

  private async levelOfUnit(ctx: RequestContext, unit: OrganizationEntity, level: CommitmentType): Promise<string[]> {
    if (level === 'organization' && unit.rowType === ROW_TYPE_DEPARTMENT) return this.nearestOrganization(ctx, unit.id);
    const units = await this.subtree(ctx, unit.id);
    if (level === 'individual')
      return this.membersOf(
        ctx,
        units.map((u) => u.id),
      );
    return units.filter((u) => Number(u.row_type) === ROW_TYPE_OF[level]).map((u) => u.id);
  }

  /** The unit and its live descendants, in one recursive query. */
  private async subtree(ctx: RequestContext, unitId: string): Promise<UnitRow[]> {
    return this.db.dataSource.query(
      `WITH RECURSIVE tree(id, row_type) AS (
         SELECT id, row_type FROM organizations WHERE site_id = ? AND id = ?
         UNION
         SELECT o.id, o.row_type FROM organizations o JOIN tree ON o.parent_id = tree.id WHERE o.site_id = ? AND o.deleted = 0
       ) SELECT id, row_type FROM tree`,
      [ctx.siteId, unitId, ctx.siteId],
    );
  }

  /** The nearest organization (RowType 4) at or above a unit, walking up the parents (bounded). */
  private async nearestOrganization(ctx: RequestContext, unitId: string): Promise<string[]> {
    const rows: { id: string }[] = await this.db.dataSource.query(
      `WITH RECURSIVE up(id, parent_id, row_type, depth) AS (
         SELECT id, parent_id, row_type, 0 FROM organizations WHERE site_id = ? AND id = ?
         UNION
         SELECT o.id, o.parent_id, o.row_type, up.depth + 1 FROM organizations o JOIN up ON o.id = up.parent_id
         WHERE o.site_id = ? AND up.depth < 256
       ) SELECT id FROM up WHERE row_type = ? ORDER BY depth LIMIT 1`,
      [ctx.siteId, unitId, ctx.siteId, ROW_TYPE_ORGANIZATION],
    );
    return rows.map((r) => r.id);
  }

  /** The live individuals with a membership in any of these units (one query). */
  private async membersOf(ctx: RequestContext, unitIds: string[]): Promise<string[]> {
    if (unitIds.length === 0) return [];
    const rows: { id: string }[] = await this.db.dataSource.query(
      `SELECT DISTINCT i.id AS id FROM organization_members m JOIN individuals i ON i.id = m.individual_id AND i.site_id = m.site_id
       WHERE m.site_id = ? AND m.organization_id IN (${unitIds.map(() => '?').join(', ')}) AND i.deleted = 0`,
      [ctx.siteId, ...unitIds],
    );
    return rows.map((r) => r.id);
  }

  private async page(ctx: RequestContext, type: CommitmentType, ancestorIds: string[], q: CommitmentQuery): Promise<Page<CommitmentDto>> {
    const period = await this.periods.resolve(ctx, q.period);
    if (ancestorIds.length === 0) return Page.of([], 0, q);
    const where: FindOptionsWhere<CommitmentEntity> = { type, ancestorId: In(ancestorIds) };
    if (period) where.periodId = period.id;
    const { take, skip } = pageOf(q);
    const [rows, total] = await this.repo(ctx).findAndCount({ where, order: { rank: 'ASC', name: 'ASC', id: 'ASC' }, take, skip });
    return Page.of(rows.map(CommitmentDto.from), total, q);
  }

  async create(ctx: RequestContext, dto: CreateCommitmentDto): Promise<CommitmentDto> {
    const errors: FieldError[] = [];
    if (!(await this.ancestorExists(ctx, dto.Type, dto.AncestorID))) {
      errors.push({ field: 'AncestorID', message: `AncestorID ${dto.AncestorID} is not a live ${dto.Type} of this site` });
    }
    errors.push(...(await this.checkPeriod(ctx, dto.PeriodID)));
    if (errors.length) throw new ValidationError(errors);
    await this.assertCanWrite(ctx, dto.Type, dto.AncestorID);
    const completed = dto.Completed ?? false;
    const row = await this.repo(ctx).insert({
      type: dto.Type,
      ancestorId: dto.AncestorID,
      periodId: dto.PeriodID,
      name: dto.Name.trim(),
      description: dto.Description ?? null,
      dueDate: dto.DueDate ?? null,
      completed,
      completedDate: completed ? (dto.CompletedDate ?? new Date()) : null,
      rank: dto.Rank ?? 0,
    });
    return CommitmentDto.from(row);
  }

  async update(ctx: RequestContext, id: number, dto: UpdateCommitmentDto): Promise<CommitmentDto> {
    assertBodyId(id, dto.ID);
    const repo = this.repo(ctx);
    const current = await repo.get(id);
    await this.assertCanWrite(ctx, current.type, current.ancestorId);
    assertIfMatch(ctx, CommitmentDto.from(current));
    const errors = await this.checkPeriod(ctx, dto.PeriodID);
    if (errors.length) throw new ValidationError(errors);
    const completed = dto.Completed ?? current.completed;
    // CompletedDate lives only while Completed is true; a completed commitment always has one.
    const completedDate = completed ? (dto.CompletedDate ?? current.completedDate ?? new Date()) : null;
    const row = await repo.update(current, {
      periodId: dto.PeriodID,
      name: dto.Name.trim(),
      description: dto.Description,
      dueDate: dto.DueDate,
      completed,
      completedDate,
      rank: dto.Rank === undefined ? undefined : (dto.Rank ?? 0),
    });
    return CommitmentDto.from(row);
  }

  async remove(ctx: RequestContext, id: number): Promise<Record<string, never>> {
    const repo = this.repo(ctx);
    const current = await repo.get(id);
    await this.assertCanWrite(ctx, current.type, current.ancestorId);
    assertIfMatch(ctx, CommitmentDto.from(current));
    await repo.deleteWhere({ id: current.id });
    return {};
  }

  private async ancestorExists(ctx: RequestContext, type: CommitmentType, ancestorId: string): Promise<boolean> {
    if (type === 'individual') return this.db.repo(ctx, IndividualEntity, 'Individual').exists({ id: ancestorId, deleted: false });
    return this.db.repo(ctx, OrganizationEntity, 'Organization').exists({ id: ancestorId, rowType: ROW_TYPE_OF[type], deleted: false });
  }

  private async assertCanWrite(ctx: RequestContext, type: CommitmentType, ancestorId: string): Promise<void> {
    if (type === 'individual') return this.access.assertCanManageIndividual(ctx, ancestorId);
    if (ctx.user.isAdmin) return;
    const unit = await this.db.repo(ctx, OrganizationEntity, 'Organization').findById(ancestorId);
    if (unit && ctx.user.individualId && unit.managerId === ctx.user.individualId) return;
    throw new ForbiddenError(`Only an administrator or the ${type}'s manager may change its commitments`);
  }

  private async checkPeriod(ctx: RequestContext, periodId: number): Promise<FieldError[]> {
    if (await this.db.repo(ctx, PeriodEntity, 'Period').exists({ id: periodId })) return [];
    return [{ field: 'PeriodID', message: `PeriodID ${periodId} is not a period of this site` }];
  }
}
