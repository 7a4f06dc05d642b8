import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, Repository } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../common/errors/errors.js';
import { assertIfMatch } from '../../common/http/etag.js';
import { Page, PageQuery, pageOf } from '../../common/pagination/pagination.js';
import { assertBodyId } from '../../common/validation/ids.js';
import { CreateSiteDto, SiteDto, UpdateSiteDto } from './dto/site.dto.js';
import { SiteEntity } from './site.entity.js';

/**
 * Sites are the tenants themselves, so they are not read through TenantDb: a caller sees their
 * own site; a global administrator sees and manages all of them.
 */
@Injectable()
export class SitesService {
  private readonly sites: Repository<SiteEntity>;

  constructor(@InjectDataSource() ds: DataSource) {
    this.sites = ds.getRepository(SiteEntity);
  }

  async list(ctx: RequestContext, q: PageQuery): Promise<Page<SiteDto>> {
    const { take, skip } = pageOf(q);
    if (ctx.user.isGlobalAdmin) {
      const [rows, total] = await this.sites.findAndCount({ order: { name: 'ASC', id: 'ASC' }, take, skip });
      return new Page(rows.map(SiteDto.from), total, take, skip);
    }
    const own = await this.sites.findOneBy({ id: ctx.siteId });
    const rows = own && skip === 0 ? [SiteDto.from(own)] : [];
    return new Page(rows, own ? 1 : 0, take, skip);
  }

  /**
   * The context for a `/sites/{siteid}/…` path: the caller's own site as is; another site only for
   * a global administrator (acting in it), else 403 without saying whether it exists.
   */
  async scopeTo(ctx: RequestContext, siteId: string): Promise<RequestContext> {
    if (siteId === ctx.siteId) return ctx;
    if (!ctx.user.isGlobalAdmin) throw new ForbiddenError('Only a global administrator may act in another site');
    const site = await this.sites.findOneBy({ id: siteId });
    if (!site) throw new NotFoundError('Site', siteId);
    return ctx.withSite(site.id, site.performanceManagement);
  }

  async get(ctx: RequestContext, siteId: string): Promise<SiteDto> {
    const scoped = await this.scopeTo(ctx, siteId);
    const site = await this.sites.findOneBy({ id: scoped.siteId });
    if (!site) throw new NotFoundError('Site', siteId);
    return SiteDto.from(site);
  }

  async create(ctx: RequestContext, dto: CreateSiteDto): Promise<SiteDto> {
    const id = dto.ID ?? randomUUID();
    if (await this.sites.existsBy({ id })) throw new ConflictError(`Site ${id} already exists`, 'id-taken');
    const now = new Date();
    const site = await this.sites.save(
      this.sites.create({
        id,
        name: dto.Name.trim(),
        performanceManagement: dto.PerformanceManagement ?? true,
        created: now,
        updated: now,
        createdBy: ctx.user.individualId,
        updatedBy: ctx.user.individualId,
      }),
    );
    return SiteDto.from(site);
  }

  async update(ctx: RequestContext, siteId: string, dto: UpdateSiteDto): Promise<SiteDto> {
    assertBodyId(siteId, dto.ID);
    const site = await this.sites.findOneBy({ id: siteId });
    if (!site) throw new NotFoundError('Site', siteId);
    assertIfMatch(ctx, SiteDto.from(site));
    site.name = dto.Name.trim();
    if (dto.PerformanceManagement !== undefined && dto.PerformanceManagement !== null) site.performanceManagement = dto.PerformanceManagement;
    site.updated = new Date();
    site.updatedBy = ctx.user.individualId;
    return SiteDto.from(await this.sites.save(site));
  }
}
