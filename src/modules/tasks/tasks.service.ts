import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { FieldError, ForbiddenError, ValidationError } from '../../common/errors/errors.js';
import { deletedFilter, Page, pageOf, QueriedListQuery, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { assertLive, softDelete, softUndelete } from '../../database/soft-delete.js';
import { ByReference } from '../../database/by-reference.js';
import { TenantDb } from '../../database/tenant-db.js';
import { DialogAccess } from '../../authorization/dialog-access.js';
import { DialogEntity } from '../../database/entities/dialog.entity.js';
import { liveIndividualErrors, liveRecordErrors } from '../../database/queries/record-kinds.js';
import { AccessService, type Operation } from '../../authorization/access.service.js';
import { CreateTaskDto, Task, TaskDto, UpdateTaskDto } from './dto/task.dto.js';
import { TaskEntity } from '../../database/entities/task.entity.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

/** Lists run by due date (tasks without one first), then creation; the id keeps paging stable. */
const LIST_ORDER = { dueDate: 'ASC', created: 'ASC', id: 'ASC' } as const;
/** The same order for a queried list: DueDate, then creation (the field's `then`), then ID. */
const BY_DUE_DATE = [{ field: Task.queryable.get('duedate')!, desc: false }] as const;

/**
 * Follow-up tasks (docs/dialogs-tasks-roles-assessments.md). A task is seen and changed
 * by administrators, by whoever may manage its assignee (the assignee and anyone they report to),
 * and by whoever may manage the dialog it follows up. The service keeps CompletedDate: set when
 * Completed turns true, cleared when it turns false. Soft delete takes the task's comments down by
 * reference.
 */
@Injectable()
@DeclaresRecordKind<TasksService>({ path: 'tasks', kind: 'task', access: 'pm', read: (s, ctx, id) => s.get(ctx, id) })
export class TasksService {
  constructor(
    private readonly db: TenantDb,
    private readonly byReference: ByReference,
    private readonly access: AccessService,
    private readonly dialogAccess: DialogAccess,
    private readonly queries: ListQueries,
  ) {}

  private readonly tasks = this.db.scoped(TaskEntity, 'Task');

  private async page(ctx: RequestContext, q: QueriedListQuery, assignedToId?: string): Promise<Page<TaskDto>> {
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the caller's right to the list was checked; `deleted` and the assignee come first.
      const query = this.queries.read(ctx, Task, q);
      const { take, skip } = pageOf(q);
      const deleted = deletedFilter(q.deleted).deleted;
      const scope = { equal: { ...(assignedToId ? { assignedToId } : {}), ...(deleted === undefined ? {} : { deleted }) } };
      const page = await readQueriedRows(this.db, ctx, TaskEntity, scope, query, BY_DUE_DATE, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(this.tasks(ctx).answers(page.rows, Task), page.total, take, skip, query.fields, next);
    }
    const [rows, total] = await this.tasks(ctx).findAndCount({
      where: { ...deletedFilter(q.deleted), ...(assignedToId ? { assignedToId } : {}) },
      order: LIST_ORDER,
      ...pageOf(q),
    });
    return Page.of(this.tasks(ctx).answers(rows, Task), total, q);
  }

  /** Every task of the site (the route is for administrators). */
  list(ctx: RequestContext, q: QueriedListQuery): Promise<Page<TaskDto>> {
    return this.page(ctx, q);
  }

  /** The tasks assigned to an individual; for them, their managers and administrators. */
  async listForIndividual(ctx: RequestContext, individualId: string, q: QueriedListQuery): Promise<Page<TaskDto>> {
    await this.access.assertCanReadRecordsOf(ctx, individualId, 'list their tasks');
    return this.page(ctx, q, individualId);
  }

  /** The tasks assigned to the caller; none for a caller without an individual in this site. */
  listMine(ctx: RequestContext, q: QueriedListQuery): Promise<Page<TaskDto>> {
    if (!ctx.user.individualId && asksQuery(q)) {
      const query = this.queries.read(ctx, Task, q);
      const { take, skip } = pageOf(q);
      return Promise.resolve(new QueriedPage<TaskDto>([], query.cursor === null ? 0 : -1, take, skip, query.fields, query.cursor === null ? undefined : null));
    }
    return Page.mine(ctx.user.individualId, q, (me) => this.page(ctx, q, me));
  }

  async get(ctx: RequestContext, id: string): Promise<TaskDto> {
    const row = await this.tasks(ctx).get(id);
    await this.assertCanManage(ctx, row, 'read');
    return Task.toWire(row);
  }

  async create(ctx: RequestContext, dto: CreateTaskDto): Promise<TaskDto> {
    return this.db.transaction(ctx, async () => {
      const dialog = dto.DialogID ? await this.dialogs(ctx).findById(dto.DialogID) : null;
      const errors = [
        ...(await liveRecordErrors(this.db, ctx, dto.Kind, dto.AncestorID)),
        ...(await liveIndividualErrors(this.db, ctx, dto.AssignedToID, 'AssignedToID')),
        ...(dto.DialogID ? dialogErrors(dto.DialogID, dialog) : []),
      ];
      if (errors.length) throw new ValidationError(errors);
      await this.assertCanManage(ctx, { assignedToId: dto.AssignedToID, dialogId: dto.DialogID ?? null }, 'create', dialog);
      const completed = dto.Completed ?? false;
      const row = await this.tasks(ctx).insert({ ...Task.toColumns(dto, 'create'), completed, completedDate: completed ? new Date() : null });
      return Task.toWire(row);
    });
  }

  async update(ctx: RequestContext, id: string, dto: UpdateTaskDto): Promise<TaskDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async (tx) => {
      const row = await tx.repo(TaskEntity, 'Task').lock(id);
      await this.assertCanManage(ctx, row, 'update');
      assertLive(row, 'Task');
      const patch = Task.toColumns(dto, 'update');
      const next = { ...row, ...patch };
      const dialogChanged = next.dialogId !== null && next.dialogId !== row.dialogId;
      const dialog = dialogChanged ? await this.dialogs(ctx).findById(next.dialogId!) : null;
      // References that did not change are not checked again, so a client can PUT back what it read.
      const errors: FieldError[] = [
        ...(next.assignedToId === null
          ? [{ field: 'AssignedToID', message: 'AssignedToID cannot be cleared: a task is always assigned' }]
          : next.assignedToId !== row.assignedToId
            ? await liveIndividualErrors(this.db, ctx, next.assignedToId, 'AssignedToID')
            : []),
        ...(dialogChanged ? dialogErrors(next.dialogId!, dialog) : []),
      ];
      if (errors.length) throw new ValidationError(errors);
      // Handing a task to someone else, or to another dialog, needs the right to manage the result too.
      if (next.assignedToId !== row.assignedToId || dialogChanged) await this.assertCanManage(ctx, next, 'create', dialog);
      const completedDate = next.completed === row.completed ? undefined : next.completed ? new Date() : null;
      const saved = await this.tasks(ctx).update(id, { ...patch, completedDate }, { ifMatch: true });
      return Task.toWire(saved);
    });
  }

  /** PATCH: the task, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<TaskDto> {
    return patchResource(this.db, ctx, patch, Task, this.tasks(ctx), id, (dto) => this.update(ctx, id, dto));
  }

  /** Soft delete (idempotent): the task's comments go down by reference with it. */
  remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    return softDelete(this.db, ctx, TaskEntity, id, {
      label: 'Task',
      owned: this.byReference.ownedBy('task'),
      authorize: (row) => this.assertCanManage(ctx, row, 'delete'),
    });
  }

  /** Undelete (idempotent): restores the task and exactly the comments its delete took down. */
  async undelete(ctx: RequestContext, id: string): Promise<TaskDto> {
    const saved = await softUndelete(this.db, ctx, TaskEntity, id, {
      label: 'Task',
      owned: this.byReference.ownedBy('task'),
      authorize: (row) => this.assertCanManage(ctx, row, 'update'),
    });
    return Task.toWire(saved);
  }

  private readonly dialogs = this.db.scoped(DialogEntity, 'Dialog');

  /** Administrators, whoever may manage the assignee, or whoever may manage the task's dialog. */
  private async assertCanManage(
    ctx: RequestContext,
    task: Pick<TaskEntity, 'assignedToId' | 'dialogId'>,
    op: Operation,
    dialog?: DialogEntity | null,
  ): Promise<void> {
    if (await this.access.canManageIndividual(ctx, task.assignedToId, op)) return;
    if (task.dialogId) {
      const d = dialog !== undefined && dialog?.id === task.dialogId ? dialog : await this.dialogs(ctx).findById(task.dialogId);
      if (d && (await this.dialogAccess.canManage(ctx, d, op))) return;
    }
    throw new ForbiddenError(
      'Only the assignee, anyone they report to, whoever may manage the dialog the task follows up, or an administrator may see or change this task',
    );
  }
}

/** 400 naming DialogID unless it is a live dialog of the site. */
function dialogErrors(id: string, dialog: DialogEntity | null): FieldError[] {
  if (!dialog) return [{ field: 'DialogID', message: `DialogID ${id} is not a dialog of this site` }];
  if (dialog.deleted) return [{ field: 'DialogID', message: `DialogID ${id} is a deleted dialog` }];
  return [];
}
