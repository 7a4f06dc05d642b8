import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../common/http/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { PmDisabledError } from '../../common/errors/errors.js';
import { deletedFilter, Page, pageOf, DeletedQuery } from '../../common/pagination/pagination.js';
import { assertBodyId } from '../../common/validation/ids.js';
import { lockLive, softDelete, softUndelete } from '../../database/soft-delete.js';
import { TenantDb } from '../../database/tenant-db.js';
import { SitesService } from '../sites/sites.service.js';
import { CoreValueEntity } from '../../database/entities/core-value.entity.js';
import { CoreValue, CoreValueDto, CreateCoreValueDto, UpdateCoreValueDto } from './dto/core-value.dto.js';

/**
 * Core values of a site. Assessments rate individuals against them (history), so DELETE is a soft
 * delete (docs/goals-colors-values-commitments.md) and `PUT /corevalues/{id}/undelete` restores one.
 */
@Injectable()
export class CoreValuesService {
  constructor(
    private readonly db: TenantDb,
    private readonly sites: SitesService,
  ) {}

  private readonly repo = this.db.scoped(CoreValueEntity, 'CoreValue');

  async list(ctx: RequestContext, q: DeletedQuery): Promise<Page<CoreValueDto>> {
    const { take, skip } = pageOf(q);
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

  async listForSite(ctx: RequestContext, siteId: string, q: DeletedQuery): Promise<Page<CoreValueDto>> {
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
