import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { FieldError, ValidationError } from '../../common/errors/errors.js';
import { deletedFilter, Page, pageOf, QueriedListQuery, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { assertLive, softDelete, softUndelete } from '../../database/soft-delete.js';
import { ByReference } from '../../database/by-reference.js';
import { TenantDb, TenantTx } from '../../database/tenant-db.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { OrganizationEntity } from '../../database/entities/organization.entity.js';
import { AccessService, notHidden, Row } from '../../authorization/access.service.js';
import { ROW_TYPE } from '../../database/entities/permission.entity.js';
import { CreateProjectDto, Project, ProjectDto, UpdateProjectDto } from './dto/project.dto.js';
import { assertCanGiveProjectTo, assertCanManageProject } from '../../authorization/project-access.js';
import { ProjectDueDateChangeEntity } from '../../database/entities/project-due-date-change.entity.js';
import { ProjectEntity } from '../../database/entities/project.entity.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

/** Lists are ordered by Name; the id keeps paging stable. */
const LIST_ORDER = { name: 'ASC', id: 'ASC' } as const;
/** The same order for a queried list. */
const BY_NAME = [{ field: Project.queryable.get('name')!, desc: false }] as const;

/**
 * Projects (docs/periods-projects.md). Every member of the site reads them; an administrator, the owner or anyone
 * the owner reports to changes them (assertCanManageProject). Each move of a set DueDate is kept
 * in project_due_date_changes with its time, and DueDateChanges is their count. Soft delete takes
 * the project's scopes and comments down by reference; undelete brings exactly those back.
 */
@Injectable()
@DeclaresRecordKind<ProjectsService>({ path: 'projects', kind: 'project', access: 'authenticated', read: (s, ctx, id) => s.get(ctx, id) })
export class ProjectsService {
  constructor(
    private readonly db: TenantDb,
    private readonly byReference: ByReference,
    private readonly access: AccessService,
    private readonly queries: ListQueries,
  ) {}

  private readonly projects = this.db.scoped(ProjectEntity, 'Project');

  private async page(ctx: RequestContext, q: QueriedListQuery, ownerId?: string): Promise<Page<ProjectDto>> {
    const hidden = await this.access.hidden(ctx, ROW_TYPE.project);
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the owner, `deleted` and the projects a Deny hides come first.
      const query = this.queries.read(ctx, Project, q);
      const { take, skip } = pageOf(q);
      const deleted = deletedFilter(q.deleted).deleted;
      const scope = {
        equal: { ...(ownerId ? { ownerId } : {}), ...(deleted === undefined ? {} : { deleted }) },
        notIn: [{ property: 'id', values: hidden.ids }],
      };
      const page = await readQueriedRows(this.db, ctx, ProjectEntity, scope, query, BY_NAME, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(this.projects(ctx).answers(page.rows, Project), page.total, take, skip, query.fields, next);
    }
    const [rows, total] = await this.projects(ctx).findAndCount({
      where: { ...(ownerId ? { ownerId } : {}), ...deletedFilter(q.deleted), ...notHidden(hidden) },
      order: LIST_ORDER,
      ...pageOf(q),
    });
    return Page.of(this.projects(ctx).answers(rows, Project), total, q);
  }

  async list(ctx: RequestContext, q: QueriedListQuery): Promise<Page<ProjectDto>> {
    return this.page(ctx, q);
  }

  /** The projects an individual owns (docs/periods-projects.md); 404 when the individual is not one of the site. */
  async listForIndividual(ctx: RequestContext, individualId: string, q: QueriedListQuery): Promise<Page<ProjectDto>> {
    await this.db.repo(ctx, IndividualEntity, 'Individual').get(individualId);
    await this.access.assertVisible(ctx, Row.individual(individualId));
    return this.page(ctx, q, individualId);
  }

  /** The projects the caller owns; none for a caller without an individual in this site. */
  listMine(ctx: RequestContext, q: QueriedListQuery): Promise<Page<ProjectDto>> {
    if (!ctx.user.individualId && asksQuery(q)) {
      const query = this.queries.read(ctx, Project, q);
      const { take, skip } = pageOf(q);
      return Promise.resolve(
        new QueriedPage<ProjectDto>([], query.cursor === null ? 0 : -1, take, skip, query.fields, query.cursor === null ? undefined : null),
      );
    }
    return Page.mine(ctx.user.individualId, q, (me) => this.page(ctx, q, me));
  }

  async get(ctx: RequestContext, id: string): Promise<ProjectDto> {
    const row = await this.projects(ctx).get(id);
    await this.access.assertVisible(ctx, Row.project(row));
    return Project.toWire(row);
  }

  async create(ctx: RequestContext, dto: CreateProjectDto): Promise<ProjectDto> {
    const errors = [
      ...(await this.ownerErrors(ctx, dto.OwnerID)),
      ...(dto.OrganizationID ? await this.organizationErrors(ctx, dto.OrganizationID) : []),
      ...dateErrors(dto.StartDate ?? null, dto.DueDate ?? null, dto.CompletedDate ?? null),
    ];
    if (errors.length) throw new ValidationError(errors);
    await assertCanGiveProjectTo(this.access, ctx, dto.OwnerID);
    return Project.toWire(await this.projects(ctx).insert(Project.toColumns(dto, 'create')));
  }

  async update(ctx: RequestContext, id: string, dto: UpdateProjectDto): Promise<ProjectDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, (tx) => this.updateLocked(ctx, tx, id, dto));
  }

  private async updateLocked(ctx: RequestContext, tx: TenantTx, id: string, dto: UpdateProjectDto): Promise<ProjectDto> {
    const row = await tx.repo(ProjectEntity, 'Project').lock(id);
    await assertCanManageProject(this.access, ctx, row);
    assertLive(row, 'Project');

    const patch = Project.toColumns(dto, 'update');
    // The project as this request leaves it (absent fields keep their value; null clears).
    const next = { ...row, ...patch };
    const ownerChanged = next.ownerId !== row.ownerId;
    // Unchanged references are not re-checked, so a client may PUT back what it read even when the
    // owner or organization has been deleted since.
    const errors: FieldError[] = [
      ...(next.ownerId === null
        ? [{ field: 'OwnerID', message: 'OwnerID cannot be cleared: a project always has an owner' }]
        : ownerChanged
          ? await this.ownerErrors(ctx, next.ownerId)
          : []),
      ...(next.organizationId && next.organizationId !== row.organizationId ? await this.organizationErrors(ctx, next.organizationId) : []),
      ...dateErrors(next.startDate, next.dueDate, next.completedDate),
    ];
    if (errors.length) throw new ValidationError(errors);
    if (ownerChanged) await assertCanGiveProjectTo(this.access, ctx, next.ownerId);

    const moved = row.dueDate !== null && (next.dueDate === null || next.dueDate.getTime() !== row.dueDate.getTime());
    const projects = tx.repo(ProjectEntity, 'Project');
    if (moved)
      await tx.repo(ProjectDueDateChangeEntity, 'ProjectDueDateChange').insert({ projectId: id, previousDueDate: row.dueDate, newDueDate: next.dueDate });
    const saved = await projects.update(
      id,
      {
        ...patch,
        // A counter kept by the same statement, in the transaction that records the move.
        dueDateChanges: moved ? projects.plus('dueDateChanges', 1) : undefined,
      },
      { ifMatch: true },
    );
    return Project.toWire(saved);
  }

  /** PATCH: the project, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<ProjectDto> {
    return patchResource(this.db, ctx, patch, Project, this.db.repo(ctx, ProjectEntity, 'Project'), id, (dto) => this.update(ctx, id, dto));
  }

  /** Soft delete (idempotent): the project's scopes and comments go down by reference with it. */
  async remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    return softDelete(this.db, ctx, ProjectEntity, id, {
      label: 'Project',
      owned: this.byReference.ownedBy('project'),
      authorize: (row) => assertCanManageProject(this.access, ctx, row, 'delete'),
    });
  }

  /** Undelete (idempotent): restores the project and exactly what its delete took down. */
  async undelete(ctx: RequestContext, id: string): Promise<ProjectDto> {
    const saved = await softUndelete(this.db, ctx, ProjectEntity, id, {
      label: 'Project',
      owned: this.byReference.ownedBy('project'),
      authorize: (row) => assertCanManageProject(this.access, ctx, row),
    });
    return Project.toWire(saved);
  }

  // ------------------------------------------------------------------ reference checks

  private async ownerErrors(ctx: RequestContext, ownerId: string): Promise<FieldError[]> {
    const owner = await this.db.repo(ctx, IndividualEntity, 'Individual').findById(ownerId);
    if (!owner) return [{ field: 'OwnerID', message: `OwnerID ${ownerId} is not an individual of this site` }];
    if (owner.deleted) return [{ field: 'OwnerID', message: `OwnerID ${ownerId} is a deleted individual` }];
    return [];
  }

  private async organizationErrors(ctx: RequestContext, organizationId: string): Promise<FieldError[]> {
    const org = await this.db.repo(ctx, OrganizationEntity, 'Organization').findById(organizationId);
    if (!org) return [{ field: 'OrganizationID', message: `OrganizationID ${organizationId} is not an organization or department of this site` }];
    if (org.deleted) return [{ field: 'OrganizationID', message: `OrganizationID ${organizationId} is a deleted organization or department` }];
    return [];
  }
}

/** DueDate and CompletedDate must not be before StartDate (each checked when both are set). */
function dateErrors(start: Date | null, due: Date | null, completed: Date | null): FieldError[] {
  const errors: FieldError[] = [];
  if (start && due && due.getTime() < start.getTime()) errors.push({ field: 'DueDate', message: 'DueDate must not be before StartDate' });
  if (start && completed && completed.getTime() < start.getTime())
    errors.push({ field: 'CompletedDate', message: 'CompletedDate must not be before StartDate' });
  return errors;
}
