import { Injectable } from '@nestjs/common';
import type { RequestContext } from '../../common/context/request-context.js';
import { ForbiddenError } from '../../common/errors/errors.js';
import { TenantDb } from '../../database/tenant-db.js';
import { AccessService } from '../permissions/access.service.js';
import type { DialogEntity, RecordKind } from './dialog.entity.js';
import { recordOfKind } from './record-kinds.js';

type DialogLike = Pick<DialogEntity, 'kind' | 'ancestorId' | 'leaderId'>;

/**
 * Who may see and change a dialog (docs/dialogs-tasks-roles-assessments.md): administrators; its
 * leader and anyone the leader reports to; and whoever manages what it is about — the individual
 * and their managers, a unit's manager and theirs, a project's owner and theirs. Creating one
 * needs the last (or an administrator). The same rule covers the dialog's basic-role ratings.
 */
@Injectable()
export class DialogAccess {
  constructor(
    private readonly db: TenantDb,
    private readonly access: AccessService,
  ) {}

  /** May the caller manage the record of `kind`/`id` a dialog or task is about? */
  async canManageSubject(ctx: RequestContext, kind: RecordKind, id: string): Promise<boolean> {
    if (ctx.user.isAdmin) return true;
    const record = await recordOfKind(this.db, ctx, kind, id);
    return !!record?.managerId && (await this.access.canManageIndividual(ctx, record.managerId));
  }

  async canManage(ctx: RequestContext, dialog: DialogLike): Promise<boolean> {
    if (ctx.user.isAdmin) return true;
    if (await this.access.canManageIndividual(ctx, dialog.leaderId)) return true;
    return this.canManageSubject(ctx, dialog.kind, dialog.ancestorId);
  }

  async assertCanManage(ctx: RequestContext, dialog: DialogLike): Promise<void> {
    if (await this.canManage(ctx, dialog)) return;
    throw new ForbiddenError(
      'Only the dialog’s leader, whoever manages what it is about (the individual, the unit’s manager, the project’s owner), anyone they report to, or an administrator may see or change this dialog',
    );
  }

  async assertCanCreate(ctx: RequestContext, kind: RecordKind, ancestorId: string): Promise<void> {
    if (await this.canManageSubject(ctx, kind, ancestorId)) return;
    throw new ForbiddenError(
      `Only whoever manages the ${kind} (the individual, the unit’s manager, the project’s owner), anyone they report to, or an administrator may plan a dialog about it`,
    );
  }
}
