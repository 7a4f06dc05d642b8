import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchRecord } from '../../database/patch-record.js';
import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '../../common/errors/errors.js';
import { Page, pageOf, QueriedPage, QueriedPageQuery } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { isUniqueViolation } from '../../common/errors/db-errors.js';
import { TenantDb, TenantTx } from '../../database/tenant-db.js';
import { DialogAccess } from '../../authorization/dialog-access.js';
import { DialogEntity } from '../../database/entities/dialog.entity.js';
import { BasicRoleDialogEntity } from '../../database/entities/basic-role-dialog.entity.js';
import { BasicRoleEntity } from '../../database/entities/basic-role.entity.js';
import { BasicRoleDialog, BasicRoleDialogDto, PutBasicRoleDialogDto } from './dto/basic-role.dto.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

/** A queried list without sort= keeps the plain list's order: oldest first, then ID. */
const BY_CREATED = [{ field: BasicRoleDialog.queryable.get('created')!, desc: false }] as const;

/**
 * The rating of a basic role in a dialog (docs/dialogs-tasks-roles-assessments.md):
 * one record per (basic role, dialog), created or replaced by PUT. Seen and written by whoever may
 * manage the dialog (DialogAccess).
 */
@Injectable()
@DeclaresRecordKind<BasicRoleDialogsService>({
  path: 'basicroledialogs',
  kind: 'basic-role-dialog',
  access: 'authenticated',
  read: (s, ctx, id) => s.getById(ctx, id),
})
export class BasicRoleDialogsService {
  constructor(
    private readonly db: TenantDb,
    private readonly dialogAccess: DialogAccess,
    private readonly queries: ListQueries,
  ) {}

  private readonly records = this.db.scoped(BasicRoleDialogEntity, 'BasicRoleDialog');

  /**
   * `GET /dialogs/{dialogid}/basicroledialogs`: the dialog's records, oldest first. The dialog (404)
   * and the right to manage it (403) come before any record is read, queried or not.
   */
  async listForDialog(ctx: RequestContext, dialogId: string, q: QueriedPageQuery): Promise<Page<BasicRoleDialogDto>> {
    const dialog = await this.db.repo(ctx, DialogEntity, 'Dialog').get(dialogId);
    await this.dialogAccess.assertCanManage(ctx, dialog, 'read');
    if (asksQuery(q)) return this.queried(ctx, dialogId, q);
    const [rows, total] = await this.records(ctx).findAndCount({ where: { dialogId }, order: { created: 'ASC', id: 'ASC' }, ...pageOf(q) });
    return Page.of(this.records(ctx).answers(rows, BasicRoleDialog), total, q);
  }

  /** A queried page of the dialog's records (docs/queries.md): the right to them was checked; the dialog comes before the filter. */
  private async queried(ctx: RequestContext, dialogId: string, q: QueriedPageQuery): Promise<QueriedPage<BasicRoleDialogDto>> {
    const query = this.queries.read(ctx, BasicRoleDialog, q);
    const { take, skip } = pageOf(q);
    const page = await readQueriedRows(this.db, ctx, BasicRoleDialogEntity, { equal: { dialogId } }, query, BY_CREATED, take, skip);
    const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
    return new QueriedPage(this.records(ctx).answers(page.rows, BasicRoleDialog), page.total, take, skip, query.fields, next);
  }

  /** One record by its ID, as its pair's GET answers it (delta sync, history and webhook payloads). */
  async getById(ctx: RequestContext, id: string): Promise<BasicRoleDialogDto> {
    const row = await this.records(ctx).get(id);
    return this.get(ctx, row.basicRoleId, row.dialogId);
  }

  /** `GET /basicroles/{basicRoleid}/dialogs/{dialogid}`: the one record of the pair, or 404. */
  async get(ctx: RequestContext, basicRoleId: string, dialogId: string): Promise<BasicRoleDialogDto> {
    await this.db.repo(ctx, BasicRoleEntity, 'BasicRole').get(basicRoleId);
    const dialog = await this.db.repo(ctx, DialogEntity, 'Dialog').get(dialogId);
    await this.dialogAccess.assertCanManage(ctx, dialog, 'read');
    const row = await this.records(ctx).findOne({ basicRoleId, dialogId });
    if (!row) throw new NotFoundError(`BasicRoleDialog of basic role ${basicRoleId} in dialog ${dialogId}`);
    return BasicRoleDialog.toWire(row);
  }

  /**
   * `PUT /basicroles/{basicRoleid}/dialogs/{dialogid}`: creates the record of the pair or replaces
   * it (absent Rating and Comment become null). The basic role and the dialog are locked first (in
   * that order), so concurrent PUTs of one pair run one after the other; the unique index on the
   * pair holds even if they did not.
   */
  async put(ctx: RequestContext, basicRoleId: string, dialogId: string, dto: PutBasicRoleDialogDto): Promise<BasicRoleDialogDto> {
    const errors = [
      ...(dto.BasicRoleID && dto.BasicRoleID !== basicRoleId
        ? [{ field: 'BasicRoleID', message: `BasicRoleID must equal the basicRoleid in the path (${basicRoleId})` }]
        : []),
      ...(dto.DialogID && dto.DialogID !== dialogId ? [{ field: 'DialogID', message: `DialogID must equal the dialogid in the path (${dialogId})` }] : []),
    ];
    if (errors.length) throw new ValidationError(errors);
    const values = { rating: dto.Rating ?? null, comment: dto.Comment ?? null };
    return this.db.transaction(ctx, async (tx) => {
      const role = await tx.repo(BasicRoleEntity, 'BasicRole').lock(basicRoleId);
      const dialog = await tx.repo(DialogEntity, 'Dialog').lock(dialogId);
      await this.dialogAccess.assertCanManage(ctx, dialog, 'update');
      if (role.deleted) throw new ConflictError(`BasicRole ${basicRoleId} is deleted; undelete it before rating it`, 'deleted');
      if (dialog.deleted) throw new ConflictError(`Dialog ${dialogId} is deleted; undelete it before rating its basic roles`, 'deleted');
      const existing = await this.records(ctx).findOne({ basicRoleId, dialogId });
      if (existing) return BasicRoleDialog.toWire(await this.records(ctx).update(existing.id, values, { ifMatch: true }));
      // If-Match names a version of a record that does not exist (yet): nothing can match.
      if (ctx.ifMatchVersions !== null) throw new PreconditionFailedError();
      return BasicRoleDialog.toWire(await this.insert(tx, { basicRoleId, dialogId, ...values }));
    });
  }

  /**
   * PATCH of the pair: the basic role and the dialog locked in the order `put` locks them, the
   * pair's record (none yet: the patch alone) merged with the patch, then `put`. The PUT replaces
   * the record, so every merged member is passed on (src/database/patch-record.ts).
   */
  patch(ctx: RequestContext, basicRoleId: string, dialogId: string, patch: MergePatch): Promise<BasicRoleDialogDto> {
    return patchRecord(this.db, ctx, patch, {
      current: async () => {
        await this.db.repo(ctx, BasicRoleEntity, 'BasicRole').lock(basicRoleId);
        await this.db.repo(ctx, DialogEntity, 'Dialog').lock(dialogId);
        const row = await this.records(ctx).findOne({ basicRoleId, dialogId });
        return row && BasicRoleDialog.toWire(row);
      },
      input: PutBasicRoleDialogDto,
      update: (dto) => this.put(ctx, basicRoleId, dialogId, dto),
      replaces: true,
    });
  }

  /** Inserts the pair's record; should another writer have won the race after all, replaces theirs. */
  private async insert(tx: TenantTx, values: Pick<BasicRoleDialogEntity, 'basicRoleId' | 'dialogId' | 'rating' | 'comment'>): Promise<BasicRoleDialogEntity> {
    const repo = tx.repo(BasicRoleDialogEntity, 'BasicRoleDialog');
    try {
      return await repo.insert(values);
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      const winner = await repo.findOne({ basicRoleId: values.basicRoleId, dialogId: values.dialogId });
      if (!winner) throw e;
      return repo.update(winner.id, { rating: values.rating, comment: values.comment });
    }
  }
}
