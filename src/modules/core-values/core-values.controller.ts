import { Body, Query } from '@nestjs/common';
import { Pm, PmAdmin } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { GuidParam } from '../../http/wire/ids.js';
import { CoreValuesService } from './core-values.service.js';
import { CoreValue, CoreValueDto, CreateCoreValueDto, UpdateCoreValueDto } from './dto/core-value.dto.js';
import { ApiController, ListRoute, PostRoute, PutRoute, PutAction, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesOf } from '../../http/pipeline/delta-list.js';
import { QueriedListQuery } from '../../http/wire/pagination.js';
import { queryNotes } from '../../http/wire/list-query.js';

@ApiController('CoreValue', undefined, { description: 'The core values of a site, rated in assessments (performance management).' })
export class CoreValuesController {
  constructor(private readonly values: CoreValuesService) {}

  @ListRoute(Pm, 'corevalues', CoreValueDto, changesOf('corevalues'), {
    summary: 'List the core values of the caller’s site (PM)',
    description: `Ordered by Rank, then Name. \`deleted\`: 0 live (default), 1 deleted, 2 all. ${queryNotes(CoreValue)}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: QueriedListQuery) {
    return this.values.list(ctx, q);
  }

  @ListRoute(Pm, 'sites/:siteId/corevalues', CoreValueDto, changesOf('corevalues'), {
    summary: 'List the core values of a site (PM)',
    description: `The caller’s own site, or any site for a global administrator (else 403). Ordered by Rank, then Name. ${queryNotes(CoreValue)}`,
  })
  listForSite(@Ctx() ctx: RequestContext, @GuidParam('siteId') siteId: string, @Query() q: QueriedListQuery) {
    return this.values.listForSite(ctx, siteId, q);
  }

  @PostRoute(PmAdmin, 'corevalues', CoreValueDto, {
    summary: 'Create a core value (PM, Admin)',
    description: 'Name is required; Rank orders the list (default 0). ID is optional (used if free, else 409 id-taken).',
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateCoreValueDto) {
    return this.values.create(ctx, dto);
  }

  @PutRoute(PmAdmin, 'corevalues/:id', CoreValueDto, {
    summary: 'Update a core value (PM, Admin)',
    description: 'A deleted core value cannot be updated (409 deleted).',
  })
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateCoreValueDto) {
    return this.values.update(ctx, id, dto);
  }

  @PatchRoute(PmAdmin, 'corevalues/:id', UpdateCoreValueDto, CoreValueDto, {
    summary: 'Change some fields of a core value (PM, Admin)',
    description: 'A deleted core value cannot be changed (409 deleted).',
  })
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateCoreValueDto>) {
    return this.values.patch(ctx, id, patch);
  }

  @DeleteRoute(PmAdmin, 'corevalues/:id', null, {
    summary: 'Delete a core value (PM, Admin)',
    description: 'A soft delete (assessments keep referring to it): sets Deleted; idempotent. Restore with PUT /corevalues/{id}/undelete.',
  })
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.values.remove(ctx, id);
  }

  @PutAction(PmAdmin, 'corevalues/:id/undelete', CoreValueDto, {
    summary: 'Restore a deleted core value (PM, Admin)',
    description: 'Beyond the spec, as for every soft-deleted resource. Idempotent.',
  })
  undelete(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.values.undelete(ctx, id);
  }
}
