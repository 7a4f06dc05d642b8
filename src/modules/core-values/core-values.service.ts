import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { PmDisabledError } from '../../common/errors/errors.js';
import { deletedFilter, Page, pageOf, QueriedListQuery, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { lockLive, softDelete, softUndelete } from '../../database/soft-delete.js';
import { TenantDb } from '../../database/tenant-db.js';
import { SitesService } from '../sites/sites.service.js';
import { CoreValueEntity } from '../../database/entities/core-value.entity.js';
import { CoreValue, CoreValueDto, CreateCoreValueDto, UpdateCoreValueDto } from './dto/core-value.dto.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

/** The list's order for a queried list: Rank, then Name (the field's `then`), then ID, as the plain list's. */
const BY_RANK = [{ field: CoreValue.queryable.get('rank')!, desc: false }] as const;

/**
 * Core values of a site. Assessments rate individuals against them (history), so DELETE is a soft
 * delete (docs/goals-colors-values-commitments.md) and `PUT /corevalues/{id}/undelete` restores one.
 */
@Injectable()
@DeclaresRecordKind<CoreValuesService>({ path: 'corevalues', kind: 'core-value', access: 'pm', read: (s, ctx, id) => s.get(ctx, id) })
export class CoreValuesService {
  constructor(
    private readonly db: TenantDb,
    private readonly sites: SitesService,
    private readonly queries: ListQueries,
  ) {}

  private readonly repo = this.db.scoped(CoreValueEntity, 'CoreValue');

  async list(ctx: RequestContext, q: QueriedListQuery): Promise<Page<CoreValueDto>> {
    const { take, skip } = pageOf(q);
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the site's values, `deleted` first.
      const query = this.queries.read(ctx, CoreValue, q);
      const deleted = deletedFilter(q.deleted).deleted;
      const page = await readQueriedRows(this.db, ctx, CoreValueEntity, { equal: deleted === undefined ? {} : { deleted } }, query, BY_RANK, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(this.repo(ctx).answers(page.rows, CoreValue), page.total, take, skip, query.fields, next);
    }
    const [rows, total] = await this.repo(ctx).findAndCount({
      where: deletedFilter(q.deleted),
      order: { rank: 'ASC', name: 'ASC', id: 'ASC' },
      take,
      skip,
    });
    return Page.of(this.repo(ctx).answers(rows, CoreValue), total, q);
  }

  /** One core value (deleted ones too); there is no GET route of one: delta sync, history and webhook payloads read them through it. */
  async get(ctx: RequestContext, id: string): Promise<CoreValueDto> {
    return CoreValue.toWire(await this.repo(ctx).get(id));
  }

  async listForSite(ctx: RequestContext, siteId: string, q: QueriedListQuery): Promise<Page<CoreValueDto>> {
    const scoped = await this.sites.scopeTo(ctx, siteId);
    if (!scoped.user.pmEnabled) throw new PmDisabledError('Performance management is switched off for that site');
    return this.list(scoped, q);
  }

  async create(ctx: RequestContext, dto: CreateCoreValueDto): Promise<CoreValueDto> {
    const row = await this.repo(ctx).insert(CoreValue.toColumns(dto, 'create'));
    return CoreValue.toWire(row);
  }

  async update(ctx: RequestContext, id: string, dto: UpdateCoreValueDto): Promise<CoreValueDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async (tx) => {
      await lockLive(tx, CoreValueEntity, id, 'CoreValue');
      const row = await this.repo(ctx).update(id, CoreValue.toColumns(dto, 'update'), { ifMatch: true });
      return CoreValue.toWire(row);
    });
  }

  /** PATCH: the core value, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<CoreValueDto> {
    return patchResource(this.db, ctx, patch, CoreValue, this.repo(ctx), id, (dto) => this.update(ctx, id, dto));
  }

  async remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    return softDelete(this.db, ctx, CoreValueEntity, id, { label: 'CoreValue' });
  }

  async undelete(ctx: RequestContext, id: string): Promise<CoreValueDto> {
    return CoreValue.toWire(await softUndelete(this.db, ctx, CoreValueEntity, id, { label: 'CoreValue' }));
  }
}
