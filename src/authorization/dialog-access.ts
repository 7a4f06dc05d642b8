import { Injectable } from '@nestjs/common';
import type { RequestContext } from '../common/context/request-context.js';
import { ForbiddenError } from '../common/errors/errors.js';
import { AccessService, Row, type Operation } from './access.service.js';
import type { DialogEntity, RecordKind } from '../database/entities/dialog.entity.js';

type DialogLike = Pick<DialogEntity, 'id' | 'kind' | 'ancestorId' | 'leaderId'>;

const MANAGE =
  'Only the dialog’s leader, whoever manages what it is about (the individual, the unit’s manager, the project’s owner), anyone they report to, an administrator, or whoever a Permission record allows may see or change this dialog';

/**
 * Who may see and change a dialog (docs/dialogs-tasks-roles-assessments.md): the authorization
 * engine on the dialog row (docs/authorization.md). By default: administrators; its leader and
 * anyone the leader reports to; and whoever manages what it is about — the individual and their
 * managers, a unit's managers and theirs, a project's owner and theirs. Creating one is creating
 * a record of what it is about. The same rule covers the dialog's basic-role ratings and tasks.
 */
@Injectable()
export class DialogAccess {
  constructor(private readonly access: AccessService) {}

  /** May the caller create records (dialogs, tasks) about the record of `kind`/`id`? */
  async canManageSubject(ctx: RequestContext, kind: RecordKind, id: string, op: Operation = 'create'): Promise<boolean> {
    if (ctx.user.isAdmin) return true;
    const row = await this.access.subjectRow(ctx, kind, id);
    return !!row && (await this.access.can(ctx, op, row, 'records'));
  }

  canManage(ctx: RequestContext, dialog: DialogLike, op: Operation = 'update'): Promise<boolean> {
    return this.access.can(ctx, op, Row.dialog(dialog), 'records');
  }

  assertCanManage(ctx: RequestContext, dialog: DialogLike, op: Operation = 'update'): Promise<void> {
    return this.access.assert(ctx, op, Row.dialog(dialog), 'records', MANAGE, ['Dialog', dialog.id]);
  }

  async assertCanCreate(ctx: RequestContext, kind: RecordKind, ancestorId: string): Promise<void> {
    if (await this.canManageSubject(ctx, kind, ancestorId)) return;
    throw new ForbiddenError(
      `Only whoever manages the ${kind} (the individual, the unit’s manager, the project’s owner), anyone they report to, an administrator, or whoever a Permission record allows may plan a dialog about it`,
    );
  }
}
