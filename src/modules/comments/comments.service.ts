import { Injectable } from '@nestjs/common';
import type { FindManyOptions } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { ConflictError, ForbiddenError } from '../../common/errors/errors.js';
import { deletedFilter, Page, pageOf, QueriedListQuery, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { type ListScope, readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { assertLive, softDelete, softUndelete } from '../../database/soft-delete.js';
import { refreshLastCommentAtCommit } from '../../database/queries/last-comment.js';
import { TenantDb } from '../../database/tenant-db.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { AccessService, Row, type RowFacts } from '../../authorization/access.service.js';
import { ROW_TYPE } from '../../database/entities/permission.entity.js';
import { TaskEntity } from '../../database/entities/task.entity.js';
import { ancestorAnchor, AncestorState, assertAncestorExists } from './comment-ancestors.js';
import { authorNamesFor } from '../../database/queries/comment-authors.js';
import { CommentEntity, CommentKind } from '../../database/entities/comment.entity.js';
import { Comment, CommentDto, CreateCommentDto, UpdateCommentDto } from './dto/comment.dto.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

/** Lists are newest first; equal instants fall back to the id so paging is stable. */
const NEWEST_FIRST = { created: 'DESC', id: 'DESC' } as const;
/** The same order for a queried list: Created, then ID, descending. */
const BY_CREATED_DESC = [{ field: Comment.queryable.get('created')!, desc: true }] as const;

/**
 * Comments on departments, individuals, metrics, organizations, projects, tasks and dialogs
 * (docs/comments.md). Whoever may read what they are on reads them (docs/authorization.md); only the author or an administrator
 * changes, deletes or restores one. Soft delete and undelete are idempotent.
 */
@Injectable()
@DeclaresRecordKind<CommentsService>({ path: 'comments', kind: 'comment', access: 'authenticated', read: (s, ctx, id) => s.get(ctx, id) })
export class CommentsService {
  constructor(
    private readonly db: TenantDb,
    private readonly access: AccessService,
    private readonly queries: ListQueries,
  ) {}

  private readonly comments = this.db.scoped(CommentEntity, 'Comment');

  /**
   * The record `kind`/`id` must exist in the caller's site: 404 when named by a path, 400 naming
   * `field` when named by a body. Kinds whose resource does not exist yet are not checked.
   */
  assertAncestorExists(ctx: RequestContext, kind: CommentKind, id: string, field?: string): Promise<AncestorState> {
    return assertAncestorExists(this.db, ctx, kind, id, field);
  }

  /**
   * Comments are read, and written, by whoever may read what they are on (docs/authorization.md):
   * every member for individuals, units and projects unless a Deny hides them (404); a dialog's,
   * a task's or an individual's metric's comments only by those who may read the dialog, task or
   * metric (403). A Deny on Create on the record refuses new comments on it.
   */
  private async assertCanReadAncestor(ctx: RequestContext, kind: CommentKind, ancestorId: string, op: 'read' | 'create' = 'read'): Promise<void> {
    if (ctx.user.isAdmin) return;
    const row = await this.ancestorRow(ctx, kind, ancestorId);
    if (row === 'task') return;
    if (!row) return;
    const message = `The caller may not read this ${kind.slice(0, -1)}, nor its comments`;
    await this.access.assert(ctx, 'read', row, 'row', message);
    if (op === 'create') await this.access.assertNotDenied(ctx, 'create', row, `A Permission record denies the caller comments on this ${kind.slice(0, -1)}`);
  }

  /** The secured row a comment's ancestor is (tasks are checked here against assignee and dialog: 'task'). */
  private async ancestorRow(ctx: RequestContext, kind: CommentKind, id: string): Promise<RowFacts | 'task' | null> {
    switch (kind) {
      case 'individuals':
        return Row.individual(id);
      case 'organizations':
        return this.access.rowFacts(ctx, ROW_TYPE.organization, id);
      case 'departments':
        return this.access.rowFacts(ctx, ROW_TYPE.department, id);
      case 'projects':
        return this.access.rowFacts(ctx, ROW_TYPE.project, id);
      case 'dialogs':
        return this.access.rowFacts(ctx, ROW_TYPE.dialog, id);
      case 'metrics':
        return this.access.rowFacts(ctx, ROW_TYPE.metric, id);
      case 'tasks': {
        const task = await this.db.repo(ctx, TaskEntity, 'Task').findById(id);
        if (!task) return null;
        if (await this.access.canManageIndividual(ctx, task.assignedToId, 'read')) return 'task';
        const dialog = task.dialogId ? await this.access.rowFacts(ctx, ROW_TYPE.dialog, task.dialogId) : null;
        if (dialog && (await this.access.can(ctx, 'read', dialog, 'records'))) return 'task';
        throw new ForbiddenError('Only those who may see a task read and write its comments');
      }
    }
    return null;
  }

  /**
   * One comment, for whoever may read what it is on (its lists' rule); there is no GET route of one
   * comment: delta sync, history and webhook payloads read comments through it.
   */
  async get(ctx: RequestContext, id: string): Promise<CommentDto> {
    const row = await this.comments(ctx).get(id);
    await this.assertCanReadAncestor(ctx, row.ancestorType, row.ancestorId);
    return this.comments(ctx).answers([row], Comment)[0];
  }

  /** One statement: the ancestor (its 404) with the page (ScopedRepository.findAndCountUnder); each comment keeps its author's name. */
  async listFor(ctx: RequestContext, kind: CommentKind, ancestorId: string, q: QueriedListQuery): Promise<Page<CommentDto>> {
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the record (404) and the caller's right to read its comments (403) come first.
      await this.assertAncestorExists(ctx, kind, ancestorId);
      await this.assertCanReadAncestor(ctx, kind, ancestorId);
      return this.queried(ctx, q, { ancestorType: kind, ancestorId });
    }
    const options: FindManyOptions<CommentEntity> = {
      where: { ancestorType: kind, ancestorId, ...deletedFilter(q.deleted) },
      order: NEWEST_FIRST,
      ...pageOf(q),
    };
    const anchor = ancestorAnchor(kind, ancestorId);
    const [rows, total] = anchor
      ? await this.comments(ctx)
          .findAndCountUnder(anchor, options)
          .then((page) => [page.rows, page.total] as const)
      : await this.comments(ctx).findAndCount(options);
    await this.assertCanReadAncestor(ctx, kind, ancestorId);
    return Page.of(this.comments(ctx).answers(rows, Comment), total, q);
  }

  /** The comments the caller wrote, on anything, newest first. */
  async listMine(ctx: RequestContext, q: QueriedListQuery): Promise<Page<CommentDto>> {
    const me = ctx.user.individualId;
    if (asksQuery(q)) {
      if (me) return this.queried(ctx, q, { authorId: me });
      const query = this.queries.read(ctx, Comment, q);
      const { take, skip } = pageOf(q);
      return new QueriedPage<CommentDto>([], query.cursor === null ? 0 : -1, take, skip, query.fields, query.cursor === null ? undefined : null);
    }
    if (!me) return Page.of([], 0, q);
    const [rows, total] = await this.comments(ctx).findAndCount({ where: { authorId: me, ...deletedFilter(q.deleted) }, order: NEWEST_FIRST, ...pageOf(q) });
    return Page.of(this.comments(ctx).answers(rows, Comment), total, q);
  }

  /** A queried page of comments (docs/queries.md) within `equal` and `deleted`, once the caller may read them: newest first unless sorted. */
  private async queried(ctx: RequestContext, q: QueriedListQuery, equal: NonNullable<ListScope['equal']>): Promise<QueriedPage<CommentDto>> {
    const query = this.queries.read(ctx, Comment, q);
    const { take, skip } = pageOf(q);
    const deleted = deletedFilter(q.deleted).deleted;
    const scope = { equal: { ...equal, ...(deleted === undefined ? {} : { deleted }) } };
    const page = await readQueriedRows(this.db, ctx, CommentEntity, scope, query, BY_CREATED_DESC, take, skip);
    const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
    return new QueriedPage(this.comments(ctx).answers(page.rows, Comment), page.total, take, skip, query.fields, next);
  }

  async create(ctx: RequestContext, dto: CreateCommentDto): Promise<CommentDto> {
    return this.db.transaction(ctx, async () => {
      const state = await this.assertAncestorExists(ctx, dto.AncestorType, dto.AncestorID, 'AncestorID');
      if (state === 'deleted') {
        throw new ConflictError(`The ${dto.AncestorType} record ${dto.AncestorID} is deleted; undelete it before commenting on it`, 'deleted');
      }
      await this.assertCanReadAncestor(ctx, dto.AncestorType, dto.AncestorID, 'create');
      const author = ctx.user.individualId;
      // Sent with the COMMIT: nothing below reads the new row but the newest-comment update, which follows it there.
      const row = await this.comments(ctx).insert(
        { ...Comment.toColumns(dto, 'create'), authorId: author, ...(await authorNamesFor(this.db, ctx, author)) },
        { atCommit: true },
      );
      this.keepNewest(ctx, row);
      return this.toDto(row);
    });
  }

  async update(ctx: RequestContext, id: string, dto: UpdateCommentDto): Promise<CommentDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async () => {
      const comments = this.comments(ctx);
      const row = await comments.lock(id);
      this.assertMayChange(ctx, row);
      assertLive(row, 'Comment');
      return this.toDto(await comments.update(id, Comment.toColumns(dto, 'update'), { ifMatch: true }));
    });
  }

  /** PATCH: the comment, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<CommentDto> {
    const show = (row: CommentEntity) => this.toDto(row);
    return patchResource(this.db, ctx, patch, Comment, this.comments(ctx), id, (dto) => this.update(ctx, id, dto), show);
  }

  /** Soft delete; deleting a deleted comment answers the same `{}` and changes nothing. */
  async remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    return this.db.transaction(ctx, async () => {
      const before = await this.lockAncestorOf(ctx, id);
      const answer = await softDelete(this.db, ctx, CommentEntity, id, { label: 'Comment', authorize: (row) => this.assertMayChange(ctx, row) });
      if (before) this.keepNewest(ctx, before);
      return answer;
    });
  }

  /**
   * Restores a deleted comment (and clears DeletedByRef). Answers a List holding the comment; a
   * live comment is answered as it is. A comment whose ancestor is deleted stays deleted (409):
   * the ancestor's own undelete brings it back.
   */
  async undelete(ctx: RequestContext, id: string): Promise<CommentDto[]> {
    return this.db.transaction(ctx, async () => {
      await this.lockAncestorOf(ctx, id);
      const saved = await softUndelete(this.db, ctx, CommentEntity, id, {
        label: 'Comment',
        authorize: (row) => this.assertMayChange(ctx, row),
        guard: async (_tx, row) => {
          if ((await this.assertAncestorExists(ctx, row.ancestorType, row.ancestorId)) === 'deleted') {
            throw new ConflictError(`The ${row.ancestorType} record ${row.ancestorId} of comment ${id} is deleted; undelete it instead`, 'deleted');
          }
        },
      });
      this.keepNewest(ctx, saved);
      return [await this.toDto(saved)];
    });
  }

  /**
   * Locks the individual a comment is on before the comment itself, in the order the comment's
   * creation takes them (individual, then comment), so a delete or undelete never waits for a
   * writer that waits for it. A comment's ancestor never changes, so it is read before the lock.
   */
  private async lockAncestorOf(ctx: RequestContext, id: string): Promise<CommentEntity | null> {
    const row = await this.comments(ctx).findById(id);
    if (row?.ancestorType === 'individuals') await this.db.repo(ctx, IndividualEntity, 'Individual').lockMany([row.ancestorId]);
    return row;
  }

  /**
   * After a write of a comment on an individual: the individual's kept newest comment
   * (Individual.LastComment*), written with the COMMIT. Every caller has locked the individual
   * first, and none reads it again.
   */
  private keepNewest(ctx: RequestContext, row: Pick<CommentEntity, 'ancestorType' | 'ancestorId'>): void {
    if (row.ancestorType === 'individuals') refreshLastCommentAtCommit(this.db, ctx, row.ancestorId);
  }

  /** Only the author or an administrator (site or global) changes a comment. */
  private assertMayChange(ctx: RequestContext, row: CommentEntity): void {
    const me = ctx.user;
    if (me.isAdmin) return;
    if (me.individualId !== null && row.authorId === me.individualId) return;
    throw new ForbiddenError('Only the author of a comment or an administrator may change, delete or undelete it');
  }

  /** The wire record of a comment just written (it keeps its author's name). */
  private toDto(row: CommentEntity): CommentDto {
    return Comment.toWire(row);
  }
}
