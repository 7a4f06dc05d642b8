import { Body, Query } from '@nestjs/common';
import { Authenticated, GlobalAdmin } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { QueriedPageQuery } from '../../http/wire/pagination.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { GuidParam } from '../../http/wire/ids.js';
import { CreateSiteDto, Site, SiteDto, UpdateSiteDto } from './dto/site.dto.js';
import { SitesService } from './sites.service.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute } from '../../http/pipeline/routes.js';
import { changesRefused } from '../../http/pipeline/delta-list.js';

@ApiController('Site', 'sites', {
  description: 'The tenants. Every record belongs to one site; a caller acts in the site of their token, a global administrator in any.',
})
export class SitesController {
  constructor(private readonly sites: SitesService) {}

  @ListRoute(
    Authenticated,
    '/',
    SiteDto,
    changesRefused('Sites are the tenants, not records of one: read GET /v4/sites in full, or a site’s history at GET /v4/audit?kind=site'),
    {
      summary: 'List sites: the caller’s own site, or every site for a global administrator',
      description: `Anyone else gets a list of one: their own site. A global administrator gets every site, ordered by Name. Paged with limit/offset (X-Total-Count, Link). XML root ArrayOfSite. ${queryNotes(Site)}`,
    },
  )
  list(@Ctx() ctx: RequestContext, @Query() q: QueriedPageQuery) {
    return this.sites.list(ctx, q);
  }

  @GetRoute(Authenticated, ':siteid', SiteDto, {
    summary: 'Read a site (own site; any site for a global administrator, else 403)',
    description:
      'Another site than the caller’s is 403 for anyone but a global administrator, whether it exists or not; for a global administrator an unknown site is 404.',
  })
  get(@Ctx() ctx: RequestContext, @GuidParam('siteid') siteId: string) {
    return this.sites.get(ctx, siteId);
  }

  @PostRoute(GlobalAdmin, '/', SiteDto, {
    summary: 'Create a site (global administrator)',
    description:
      'Name is required; PerformanceManagement defaults to true. ID is optional (used if free, else 409 id-taken; generated when absent). A global administrator acts in the new site by logging in with its SiteID.',
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateSiteDto) {
    return this.sites.create(ctx, dto);
  }

  @PutRoute(GlobalAdmin, ':siteid', SiteDto, {
    summary: 'Update a site (global administrator)',
    description: 'ID (equal to the path siteid) and Name are required; absent PerformanceManagement keeps its value. If-Match is honoured (412).',
  })
  update(@Ctx() ctx: RequestContext, @GuidParam('siteid') siteId: string, @Body() dto: UpdateSiteDto) {
    return this.sites.update(ctx, siteId, dto);
  }
  @PatchRoute(GlobalAdmin, ':siteid', UpdateSiteDto, SiteDto, { summary: 'Change some fields of a site (global administrator)' })
  patch(@Ctx() ctx: RequestContext, @GuidParam('siteid') siteId: string, @Body() patch: MergePatch<UpdateSiteDto>) {
    return this.sites.patch(ctx, siteId, patch);
  }
}
