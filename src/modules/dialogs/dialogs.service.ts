import { Injectable } from '@nestjs/common';
import { FindOptionsWhere } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { FieldError, ValidationError } from '../../common/errors/errors.js';
import { deletedFilter, Page, pageOf, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { type ListScope, readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { assertLive, softDelete, softUndelete } from '../../database/soft-delete.js';
import { ByReference } from '../../database/by-reference.js';
import { TenantDb } from '../../database/tenant-db.js';
import { PeriodsService } from '../periods/periods.service.js';
import { AccessService, type Hidden, notHidden } from '../../authorization/access.service.js';
import { ROW_TYPE } from '../../database/entities/permission.entity.js';
import { DialogAccess } from '../../authorization/dialog-access.js';
import { DialogEntity } from '../../database/entities/dialog.entity.js';
import { CreateDialogDto, Dialog, DialogDto, DialogQuery, UpdateDialogDto } from './dto/dialog.dto.js';
import { liveIndividualErrors, liveRecordErrors } from '../../database/queries/record-kinds.js';
import { periodErrors, periodGone } from '../../database/queries/period-reference.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

/** Lists run in schedule order; the id keeps paging stable. */
const LIST_ORDER = { scheduledDate: 'ASC', id: 'ASC' } as const;
/** The same order for a queried list: ScheduledDate, then ID. */
const BY_SCHEDULE = [{ field: Dialog.queryable.get('scheduleddate')!, desc: false }] as const;

/**
 * Dialogs (docs/dialogs-tasks-roles-assessments.md). Every reference is checked inside
 * the write's transaction (400 naming the field); who may see and change one is DialogAccess.
 * Soft delete takes the dialog's comments down by reference; undelete brings exactly those back.
 */
@Injectable()
@DeclaresRecordKind<DialogsService>({ path: 'dialogs', kind: 'dialog', access: 'pm', read: (s, ctx, id) => s.get(ctx, id) })
export class DialogsService {
  constructor(
    private readonly db: TenantDb,
    private readonly byReference: ByReference,
    private readonly periods: PeriodsService,
    private readonly access: AccessService,
    private readonly dialogAccess: DialogAccess,
    private readonly queries: ListQueries,
  ) {}

  private readonly dialogs = this.db.scoped(DialogEntity, 'Dialog');

  private async page(ctx: RequestContext, q: DialogQuery, who?: string): Promise<Page<DialogDto>> {
    const period = await this.periods.resolve(ctx, q.period);
    const hidden = await this.access.hidden(ctx, ROW_TYPE.dialog);
    if (asksQuery(q)) return this.queried(ctx, q, period?.id, hidden, who);
    const common: FindOptionsWhere<DialogEntity> = { ...deletedFilter(q.deleted), ...(period ? { periodId: period.id } : {}), ...notHidden(hidden) };
    // An individual's dialogs: the ones they lead and the individual dialogs about them.
    const where = who
      ? [
          { ...common, leaderId: who },
          // (the dialogs about them are left out when a Deny scoped to their dialogs applies)
          ...(hidden.ancestors.includes(who) ? [] : [{ ...common, kind: 'individual' as const, ancestorId: who }]),
        ]
      : common;
    const [rows, total] = await this.dialogs(ctx).findAndCount({ where, order: LIST_ORDER, ...pageOf(q) });
    return Page.of(this.dialogs(ctx).answers(rows, Dialog), total, q);
  }

  /**
   * A queried page (docs/queries.md): the period, `deleted`, the individual's dialogs (those they
   * lead, and those about them unless a Deny scoped to their dialogs hides them) and the dialogs a
   * Deny hides from the caller are the scope the filter selects in; by ScheduledDate then ID unless sorted.
   */
  private async queried(ctx: RequestContext, q: DialogQuery, periodId: number | undefined, hidden: Hidden, who?: string): Promise<QueriedPage<DialogDto>> {
    const query = this.queries.read(ctx, Dialog, q);
    const { take, skip } = pageOf(q);
    const deleted = deletedFilter(q.deleted).deleted;
    const scope: ListScope = {
      equal: { ...(periodId === undefined ? {} : { periodId }), ...(deleted === undefined ? {} : { deleted }) },
      ...(who ? { anyOf: [{ leaderId: who }, ...(hidden.ancestors.includes(who) ? [] : [{ kind: 'individual', ancestorId: who }])] } : {}),
      notIn: [
        { property: 'id', values: hidden.ids },
        { property: 'ancestorId', values: hidden.ancestors },
      ],
    };
    const page = await readQueriedRows(this.db, ctx, DialogEntity, scope, query, BY_SCHEDULE, take, skip);
    const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
    return new QueriedPage(this.dialogs(ctx).answers(page.rows, Dialog), page.total, take, skip, query.fields, next);
  }

  /** Every dialog of the site (the route is for administrators). */
  list(ctx: RequestContext, q: DialogQuery): Promise<Page<DialogDto>> {
    return this.page(ctx, q);
  }

  /** The dialogs an individual leads or that are about them; for them, their managers and administrators. */
  async listForIndividual(ctx: RequestContext, individualId: string, q: DialogQuery): Promise<Page<DialogDto>> {
    await this.access.assertCanReadRecordsOf(ctx, individualId, 'list their dialogs');
    return this.page(ctx, q, individualId);
  }

  async get(ctx: RequestContext, id: string): Promise<DialogDto> {
    const row = await this.dialogs(ctx).get(id);
    await this.dialogAccess.assertCanManage(ctx, row, 'read');
    return Dialog.toWire(row);
  }

  async create(ctx: RequestContext, dto: CreateDialogDto): Promise<DialogDto> {
    return this.db.transaction(ctx, async () => {
      const errors = [
        ...(await liveRecordErrors(this.db, ctx, dto.Kind, dto.AncestorID)),
        ...(await liveIndividualErrors(this.db, ctx, dto.LeaderID, 'LeaderID')),
        ...(await periodErrors(this.db, ctx, dto.PeriodID)),
      ];
      if (errors.length) throw new ValidationError(errors);
      await this.dialogAccess.assertCanCreate(ctx, dto.Kind, dto.AncestorID);
      // The period's foreign key stops a concurrent delete of the period from leaving this dialog dangling.
      const row = await this.dialogs(ctx).insert(Dialog.toColumns(dto, 'create')).catch(periodGone(dto.PeriodID));
      return Dialog.toWire(row);
    });
  }

  async update(ctx: RequestContext, id: string, dto: UpdateDialogDto): Promise<DialogDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async (tx) => {
      const row = await tx.repo(DialogEntity, 'Dialog').lock(id);
      await this.dialogAccess.assertCanManage(ctx, row);
      assertLive(row, 'Dialog');
      const patch = Dialog.toColumns(dto, 'update');
      const next = { ...row, ...patch };
      // References that did not change are not checked again, so a client can PUT back what it read.
      const errors: FieldError[] = [
        ...notNull(next.leaderId, 'LeaderID'),
        ...notNull(next.periodId, 'PeriodID'),
        ...notNull(next.scheduledDate, 'ScheduledDate'),
        ...(next.leaderId && next.leaderId !== row.leaderId ? await liveIndividualErrors(this.db, ctx, next.leaderId, 'LeaderID') : []),
        ...(next.periodId !== null && next.periodId !== row.periodId ? await periodErrors(this.db, ctx, next.periodId) : []),
      ];
      if (errors.length) throw new ValidationError(errors);
      const saved = await this.dialogs(ctx).update(id, patch, { ifMatch: true }).catch(periodGone(next.periodId));
      return Dialog.toWire(saved);
    });
  }

  /** PATCH: the dialog, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<DialogDto> {
    return patchResource(this.db, ctx, patch, Dialog, this.dialogs(ctx), id, (dto) => this.update(ctx, id, dto));
  }

  /** Soft delete (idempotent): the dialog's comments go down by reference with it. */
  remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    return softDelete(this.db, ctx, DialogEntity, id, {
      label: 'Dialog',
      owned: this.byReference.ownedBy('dialog'),
      authorize: (row) => this.dialogAccess.assertCanManage(ctx, row, 'delete'),
    });
  }

  /** Undelete (idempotent): restores the dialog and exactly the comments its delete took down. */
  async undelete(ctx: RequestContext, id: string): Promise<DialogDto> {
    const saved = await softUndelete(this.db, ctx, DialogEntity, id, {
      label: 'Dialog',
      owned: this.byReference.ownedBy('dialog'),
      authorize: (row) => this.dialogAccess.assertCanManage(ctx, row),
    });
    return Dialog.toWire(saved);
  }
}

function notNull(value: unknown, field: string): FieldError[] {
  return value === null ? [{ field, message: `${field} cannot be cleared: a dialog always has one` }] : [];
}
