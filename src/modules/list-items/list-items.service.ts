import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchRecord } from '../../database/patch-record.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { deletedFilter, Page, pageOf, QueriedListQuery, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { assertLive, softDelete, softUndelete } from '../../database/soft-delete.js';
import { ScopedRepository, TenantDb } from '../../database/tenant-db.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';
import { DeclaresBulkWrites } from '../../database/registries/bulk-writers.js';
import { answerBulk, applyBulk, type BulkOptions, type BulkPlan, type BulkRun } from '../../database/bulk-write.js';
import type { BulkItemInput, BulkQuery, BulkRequest, BulkResultsDto } from '../../http/wire/bulk.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { AccessService, type Operation } from '../../authorization/access.service.js';
import { assertCanManageProject } from '../../authorization/project-access.js';
import { ProjectEntity } from '../../database/entities/project.entity.js';
import { CreateListItemDto, ListItem, ListItemDto, UpdateListItemDto } from './dto/list-item.dto.js';
import { ACCOUNTABILITY, EVALUATION_CRITERION, LIST_ITEM_KINDS, PROJECT_SCOPE, SUPERVISORY_SCOPE, type ListItemKindInfo } from './list-item-kinds.js';
import { ListItemEntity } from '../../database/entities/list-item.entity.js';

/** Lists are ordered by Rank, then Name; the id keeps paging stable. */
const LIST_ORDER = { rank: 'ASC', name: 'ASC', id: 'ASC' } as const;
/** The same order for a queried list: Rank, then Name (the field's `then`), then ID. */
const BY_RANK = [{ field: ListItem.queryable.get('rank')!, desc: false }] as const;

/**
 * The four ListItem kinds (accountability, evaluation criteria, project scope, supervisory scope)
 * with one set of rules, parameterised by kind (docs/list-items.md):
 *
 * - an individual's items are read and written by the individual, anyone up their reporting
 *   chain, or an administrator (AccessService); a project's scopes are read by every member of
 *   the site and written by whoever may manage the project's owner, or an administrator;
 * - AncestorID must name a live individual (live project for project scopes) of the site on
 *   create (400 naming it) and is ignored on update;
 * - soft delete and undelete are idempotent; a deleted item still reads by id; updating it is
 *   409 `deleted`. An item taken down with its owner (DeletedByRef) comes back only with it.
 */
@Injectable()
// One table, four collections: each path reads only its own kind of item (else 404); events name the
// table's kind and render as the item's own kind's GET.
@DeclaresRecordKind<ListItemsService>({
  path: ACCOUNTABILITY.path,
  kind: 'list-item',
  access: 'authenticated',
  read: (s, ctx, id) => s.getOne(ctx, ACCOUNTABILITY, id),
  renderEvents: (s, ctx, id) => s.getAny(ctx, id),
})
@DeclaresRecordKind<ListItemsService>({
  path: EVALUATION_CRITERION.path,
  kind: 'list-item',
  access: 'authenticated',
  read: (s, ctx, id) => s.getOne(ctx, EVALUATION_CRITERION, id),
})
@DeclaresRecordKind<ListItemsService>({
  path: SUPERVISORY_SCOPE.path,
  kind: 'list-item',
  access: 'authenticated',
  read: (s, ctx, id) => s.getOne(ctx, SUPERVISORY_SCOPE, id),
})
@DeclaresRecordKind<ListItemsService>({
  path: PROJECT_SCOPE.path,
  kind: 'list-item',
  access: 'authenticated',
  read: (s, ctx, id) => s.getOne(ctx, PROJECT_SCOPE, id),
})
@DeclaresBulkWrites<ListItemsService>({
  path: ACCOUNTABILITY.path,
  records: [CreateListItemDto, UpdateListItemDto, ListItemDto],
  apply: (s, ctx, items, opts) => s.applyBatch(ctx, ACCOUNTABILITY, items, opts),
})
@DeclaresBulkWrites<ListItemsService>({
  path: EVALUATION_CRITERION.path,
  records: [CreateListItemDto, UpdateListItemDto, ListItemDto],
  apply: (s, ctx, items, opts) => s.applyBatch(ctx, EVALUATION_CRITERION, items, opts),
})
@DeclaresBulkWrites<ListItemsService>({
  path: SUPERVISORY_SCOPE.path,
  records: [CreateListItemDto, UpdateListItemDto, ListItemDto],
  apply: (s, ctx, items, opts) => s.applyBatch(ctx, SUPERVISORY_SCOPE, items, opts),
})
@DeclaresBulkWrites<ListItemsService>({
  path: PROJECT_SCOPE.path,
  records: [CreateListItemDto, UpdateListItemDto, ListItemDto],
  apply: (s, ctx, items, opts) => s.applyBatch(ctx, PROJECT_SCOPE, items, opts),
})
export class ListItemsService {
  constructor(
    private readonly db: TenantDb,
    private readonly access: AccessService,
    private readonly queries: ListQueries,
  ) {}

  private items(ctx: RequestContext, k: ListItemKindInfo): ScopedRepository<ListItemEntity> {
    return this.db.repo(ctx, ListItemEntity, k.label);
  }

  /**
   * The item of this kind: an id of another kind or of another site is a 404. With `lock`, locked
   * for the caller's transaction.
   */
  private async load(ctx: RequestContext, k: ListItemKindInfo, id: string, lock = false): Promise<ListItemEntity> {
    const row = lock
      ? await this.items(ctx, k)
          .lockMany([id])
          .then((r) => r[0])
      : await this.items(ctx, k).findOne({ id, kind: k.kind });
    if (!row || row.kind !== k.kind) throw new NotFoundError(k.label, id);
    return row;
  }

  private async page(ctx: RequestContext, k: ListItemKindInfo, ancestorIds: string[], q: QueriedListQuery): Promise<Page<ListItemDto>> {
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the caller's right to the list was checked; the kind, the owners and `deleted` come first.
      const query = this.queries.read(ctx, ListItem, q);
      const { take, skip } = pageOf(q);
      const deleted = deletedFilter(q.deleted).deleted;
      const scope = {
        equal: { kind: k.kind, ...(ancestorIds.length === 1 ? { ancestorId: ancestorIds[0] } : {}), ...(deleted === undefined ? {} : { deleted }) },
        ...(ancestorIds.length === 1 ? {} : { in: { property: 'ancestorId', values: ancestorIds } }),
      };
      const page = await readQueriedRows(this.db, ctx, ListItemEntity, scope, query, BY_RANK, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(this.items(ctx, k).answers(page.rows, ListItem), page.total, take, skip, query.fields, next);
    }
    if (ancestorIds.length === 0) return Page.of([], 0, q);
    const [rows, total] = await this.items(ctx, k).findAndCount({
      where: { kind: k.kind, ancestorId: ancestorIds.length === 1 ? ancestorIds[0] : In(ancestorIds), ...deletedFilter(q.deleted) },
      order: LIST_ORDER,
      ...pageOf(q),
    });
    return Page.of(this.items(ctx, k).answers(rows, ListItem), total, q);
  }

  // ------------------------------------------------------------------ access

  /** Reading an individual's items: the individual, their managers up the chain, administrators. */
  private async assertCanRead(ctx: RequestContext, k: ListItemKindInfo, ancestorId: string, notFound?: [string, string]): Promise<void> {
    if (k.ancestor === 'individual') {
      const message = `Only the individual, someone they report to, or an administrator may read their ${k.plural}`;
      return this.access.assertCanManageIndividual(ctx, ancestorId, 'read', message, notFound);
    }
    const project = await this.db.repo(ctx, ProjectEntity, 'Project').findById(ancestorId);
    if (project) await assertCanManageProject(this.access, ctx, project, 'read', 'records');
  }

  private async assertCanWrite(ctx: RequestContext, k: ListItemKindInfo, ancestorId: string, op: Operation, notFound?: [string, string]): Promise<void> {
    if (k.ancestor === 'individual') return this.access.assertCanManageIndividual(ctx, ancestorId, op, undefined, notFound);
    const project = await this.db.repo(ctx, ProjectEntity, 'Project').findById(ancestorId);
    if (project) return assertCanManageProject(this.access, ctx, project, op, 'records');
    if (!ctx.user.isAdmin) throw new ForbiddenError('Only an administrator may change the scopes of a project that no longer exists');
  }

  /** The owner named in a path: 404 when it is not a record of the site, 403 when not readable. */
  private async assertPathAncestor(ctx: RequestContext, k: ListItemKindInfo, ancestorId: string): Promise<void> {
    if (k.ancestor === 'individual') await this.db.repo(ctx, IndividualEntity, 'Individual').get(ancestorId);
    else await this.db.repo(ctx, ProjectEntity, 'Project').get(ancestorId);
    await this.assertCanRead(ctx, k, ancestorId);
  }

  /**
   * The owner named by a body's AncestorID: 400 naming the field unless it is a live record of the
   * site. With `lock` (inside a transaction) the ancestor stays locked, so its concurrent delete
   * either comes first (and this answers 400) or waits and then takes the new item down with it.
   */
  private async assertLiveAncestor(ctx: RequestContext, k: ListItemKindInfo, ancestorId: string, lock = false): Promise<void> {
    const repo = k.ancestor === 'individual' ? this.db.repo(ctx, IndividualEntity, 'Individual') : this.db.repo(ctx, ProjectEntity, 'Project');
    const row = lock ? (await repo.lockMany([ancestorId]))[0] : await repo.findById(ancestorId);
    if (!row)
      throw new ValidationError([
        { field: 'AncestorID', message: `AncestorID ${ancestorId} is not ${k.ancestor === 'individual' ? 'an individual' : 'a project'} of this site` },
      ]);
    if (row.deleted) throw new ValidationError([{ field: 'AncestorID', message: `AncestorID ${ancestorId} is a deleted ${k.ancestor}` }]);
  }

  // ------------------------------------------------------------------ reads

  /** `GET /individuals/{id}/{kind}` and `GET /projects/{id}/projectscopes`. */
  async listFor(ctx: RequestContext, k: ListItemKindInfo, ancestorId: string, q: QueriedListQuery): Promise<Page<ListItemDto>> {
    await this.assertPathAncestor(ctx, k, ancestorId);
    return this.page(ctx, k, [ancestorId], q);
  }

  /**
   * `GET /me/{kind}`: the caller's own items; for project scopes, the scopes of every project the
   * caller owns. A caller without an individual in this site has none.
   */
  async listMine(ctx: RequestContext, k: ListItemKindInfo, q: QueriedListQuery): Promise<Page<ListItemDto>> {
    const me = ctx.user.individualId;
    if (!me) return this.page(ctx, k, [], q);
    if (k.ancestor === 'individual') return this.page(ctx, k, [me], q);
    const owned = await this.db.repo(ctx, ProjectEntity, 'Project').find({ where: { ownerId: me }, select: { id: true } });
    return this.page(
      ctx,
      k,
      owned.map((p) => p.id),
      q,
    );
  }

  /** One item of the kind as its GET answers it (delta sync and history: the record kinds declared above). */
  async getOne(ctx: RequestContext, k: ListItemKindInfo, id: string): Promise<ListItemDto> {
    return (await this.getAsList(ctx, k, id))[0];
  }

  /** An item of any kind, as its kind's GET answers it (webhook payloads name only the table's kind). */
  async getAny(ctx: RequestContext, id: string): Promise<ListItemDto> {
    const row = await this.db.repo(ctx, ListItemEntity, 'ListItem').get(id);
    const k = LIST_ITEM_KINDS.find((x) => x.kind === row.kind);
    if (!k) throw new NotFoundError('ListItem', id);
    return (await this.getAsList(ctx, k, id))[0];
  }

  /** `GET /{kind}/{id}`: a List holding the one item (deleted ones too). */
  async getAsList(ctx: RequestContext, k: ListItemKindInfo, id: string): Promise<ListItemDto[]> {
    const row = await this.load(ctx, k, id);
    await this.assertCanRead(ctx, k, row.ancestorId, [k.label, row.id]);
    return [ListItem.toWire(row)];
  }

  /** `GET /individuals/{iid}/{kind}/{id}`: the item must belong to that owner, else 404. */
  async getForAncestorAsList(ctx: RequestContext, k: ListItemKindInfo, ancestorId: string, id: string): Promise<ListItemDto[]> {
    await this.assertPathAncestor(ctx, k, ancestorId);
    const row = await this.load(ctx, k, id);
    if (row.ancestorId !== ancestorId) throw new NotFoundError(k.label, id);
    return [ListItem.toWire(row)];
  }

  // ------------------------------------------------------------------ writes

  async create(ctx: RequestContext, k: ListItemKindInfo, dto: CreateListItemDto): Promise<ListItemDto> {
    return this.db.transaction(ctx, async () => {
      await this.assertLiveAncestor(ctx, k, dto.AncestorID, true);
      await this.assertCanWrite(ctx, k, dto.AncestorID, 'create');
      const row = await this.items(ctx, k).insert({ ...ListItem.toColumns(dto, 'create'), kind: k.kind });
      return ListItem.toWire(row);
    });
  }

  async update(ctx: RequestContext, k: ListItemKindInfo, id: string, dto: UpdateListItemDto): Promise<ListItemDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async () => {
      const row = await this.load(ctx, k, id, true);
      await this.assertCanWrite(ctx, k, row.ancestorId, 'update', [k.label, id]);
      assertLive(row, k.label);
      const saved = await this.items(ctx, k).update(id, ListItem.toColumns(dto, 'update'), { ifMatch: true });
      return ListItem.toWire(saved);
    });
  }

  /**
   * A batch of creates, updates and upserts of one kind's items (docs/bulk.md), each through
   * `create` or `update`: what `POST /{kind}/bulk` and a file import run. List items have no
   * ExternalID (an item is named by its ID); an individual owner (AncestorID) may be named by theirs.
   */
  applyBatch(ctx: RequestContext, k: ListItemKindInfo, items: readonly BulkItemInput[], opts: BulkOptions): Promise<BulkRun> {
    return applyBulk(this.db, ctx, items, (c) => this.bulkPlan(c, k), opts);
  }

  /** `POST /{kind}/bulk`. */
  bulk(ctx: RequestContext, k: ListItemKindInfo, body: BulkRequest, q: BulkQuery): Promise<BulkResultsDto> {
    return answerBulk(this.db, ctx, body, q, (c) => this.bulkPlan(c, k));
  }

  private bulkPlan(ctx: RequestContext, k: ListItemKindInfo): BulkPlan<CreateListItemDto, UpdateListItemDto> {
    return {
      label: k.label,
      entity: ListItemEntity,
      externalIds: false,
      create: CreateListItemDto,
      update: UpdateListItemDto,
      // POST admits any member; `create` then holds the caller to the owner's items.
      createRule: 'authenticated',
      // A project has no ExternalID: only an individual owner may be named by one.
      refs: k.ancestor === 'individual' ? { AncestorID: IndividualEntity } : {},
      createOne: (dto) => this.create(ctx, k, dto),
      updateOne: (id, dto) => this.update(ctx, k, id, dto),
      read: (id) => this.getOne(ctx, k, id),
    };
  }

  /** PATCH: the item, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, k: ListItemKindInfo, id: string, patch: MergePatch): Promise<ListItemDto> {
    return patchRecord(this.db, ctx, patch, {
      current: async () => ListItem.toWire(await this.load(ctx, k, id, true)),
      input: UpdateListItemDto,
      update: (dto) => this.update(ctx, k, id, dto),
    });
  }

  /** Soft delete; deleting a deleted item changes nothing. Answers `{}`. */
  async remove(ctx: RequestContext, k: ListItemKindInfo, id: string): Promise<Record<string, never>> {
    await this.load(ctx, k, id);
    return softDelete(this.db, ctx, ListItemEntity, id, {
      label: k.label,
      authorize: (row) => this.assertCanWrite(ctx, k, row.ancestorId, 'delete', [k.label, id]),
    });
  }

  /**
   * Clears Deleted; undeleting a live item changes nothing. An item taken down with its owner
   * (DeletedByRef) is 409 `deleted`: it comes back when its owner is undeleted.
   */
  async undelete(ctx: RequestContext, k: ListItemKindInfo, id: string): Promise<ListItemDto[]> {
    await this.load(ctx, k, id);
    const saved = await softUndelete(this.db, ctx, ListItemEntity, id, {
      label: k.label,
      authorize: (row) => this.assertCanWrite(ctx, k, row.ancestorId, 'update', [k.label, id]),
      guard: (_tx, row) => {
        if (row.deletedByRef) {
          throw new ConflictError(`${k.label} ${id} was deleted with its ${k.ancestor}; undelete the ${k.ancestor} to restore it`, 'deleted');
        }
      },
    });
    return [ListItem.toWire(saved)];
  }
}
