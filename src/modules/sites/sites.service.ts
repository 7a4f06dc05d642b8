import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchRecord } from '../../database/patch-record.js';
import { ForbiddenError, NotFoundError } from '../../common/errors/errors.js';
import { Page, pageOf, QueriedPage, QueriedPageQuery } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { type ListScope, readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { PreconditionFailedError } from '../../common/errors/errors.js';
import { idTaken, TenantDb } from '../../database/tenant-db.js';
import { isPrimaryKeyViolation } from '../../common/errors/db-errors.js';
import { CreateSiteDto, Site, SiteDto, UpdateSiteDto } from './dto/site.dto.js';
import { SiteEntity } from '../../database/entities/site.entity.js';
import { newRecordId } from '../../common/ids.js';

/** The plain list's order for a queried list without sort=: Name, then ID. */
const BY_NAME = [{ field: Site.queryable.get('name')!, desc: false }] as const;

/**
 * Sites are the tenants themselves, so they are not read through TenantDb: a caller sees their
 * own site; a global administrator sees and manages all of them.
 */
@Injectable()
export class SitesService {
  constructor(
    private readonly db: TenantDb,
    private readonly queries: ListQueries,
  ) {}

  /** The sites table (not scoped: sites are the tenants), bound to the context's transaction. */
  private sitesOf(ctx: RequestContext | null) {
    return this.db.global(ctx, SiteEntity);
  }

  /** Writes of sites, each recorded in the trail of the site itself (docs/audit.md). */
  private writes(ctx: RequestContext) {
    return this.db.journaled(ctx, SiteEntity, (s) => s.id);
  }

  async list(ctx: RequestContext, q: QueriedPageQuery): Promise<Page<SiteDto>> {
    const { take, skip } = pageOf(q);
    if (asksQuery(q)) return this.queried(ctx, q);
    if (ctx.user.isGlobalAdmin) {
      const [rows, total] = await this.sitesOf(ctx).findAndCount({ order: { name: 'ASC', id: 'ASC' }, take, skip });
      return new Page(
        rows.map((r) => Site.toWire(r)),
        total,
        take,
        skip,
      );
    }
    const own = await this.db.globalById(ctx, SiteEntity, ctx.siteId);
    const rows = own && skip === 0 ? [Site.toWire(own)] : [];
    return new Page(rows, own ? 1 : 0, take, skip);
  }

  /**
   * A queried page of sites (docs/queries.md): every site for a global administrator, anyone
   * else's own only, before the filter (the sites table has no site_id: the scope is the rule);
   * the plain order (Name, ID) without sort=.
   */
  private async queried(ctx: RequestContext, q: QueriedPageQuery): Promise<Page<SiteDto>> {
    const query = this.queries.read(ctx, Site, q);
    const { take, skip } = pageOf(q);
    const scope: ListScope = ctx.user.isGlobalAdmin ? { global: true } : { global: true, equal: { id: ctx.siteId } };
    const { rows, total, next: after } = await readQueriedRows(this.db, ctx, SiteEntity, scope, query, BY_NAME, take, skip);
    const next = query.cursor === null ? undefined : this.queries.next(query, after);
    return new QueriedPage(
      rows.map((r) => Site.toWire(r)),
      total,
      take,
      skip,
      query.fields,
      next,
    );
  }

  /**
   * The context for a `/sites/{siteid}/…` path: the caller's own site as is; another site only for
   * a global administrator (acting in it), else 403 without saying whether it exists.
   */
  async scopeTo(ctx: RequestContext, siteId: string): Promise<RequestContext> {
    if (siteId === ctx.siteId) return ctx;
    if (!ctx.user.isGlobalAdmin) throw new ForbiddenError('Only a global administrator may act in another site');
    const site = await this.db.globalById(ctx, SiteEntity, siteId);
    if (!site) throw new NotFoundError('Site', siteId);
    return ctx.withSite(site.id, site.performanceManagement);
  }

  async get(ctx: RequestContext, siteId: string): Promise<SiteDto> {
    const scoped = await this.scopeTo(ctx, siteId);
    const site = await this.db.globalById(ctx, SiteEntity, scoped.siteId);
    if (!site) throw new NotFoundError('Site', siteId);
    return Site.toWire(site);
  }

  async create(ctx: RequestContext, dto: CreateSiteDto): Promise<SiteDto> {
    const id = dto.ID ?? newRecordId();
    if (await this.sitesOf(ctx).existsBy({ id })) throw idTaken(id);
    const now = new Date();
    try {
      // Recorded in the new site's own trail (docs/audit.md); answered as stored.
      const site = await this.writes(ctx).insert({
        ...Site.toColumns(dto, 'create'),
        id,
        created: now,
        updated: now,
        createdBy: ctx.user.individualId,
        updatedBy: ctx.user.individualId,
        version: 1,
      });
      return Site.toWire(site);
    } catch (e) {
      if (isPrimaryKeyViolation(e)) throw idTaken(id);
      throw e;
    }
  }

  async update(ctx: RequestContext, siteId: string, dto: UpdateSiteDto): Promise<SiteDto> {
    assertBodyId(siteId, dto.ID);
    // One UPDATE of the columns the request sets, with If-Match's version in its WHERE, recorded in the site's trail.
    const versions = ctx.ifMatchVersions;
    // The key is not a column to set: the body's ID equals the path's (checked above).
    const { id: _bodyId, ...columns } = Site.toColumns(dto, 'update');
    return this.db.transaction(ctx, async () => {
      const affected = await this.writes(ctx).update(
        siteId,
        { ...columns, updated: new Date(), updatedBy: ctx.user.individualId, version: () => `${this.db.escape('version')} + 1` },
        versions ? { version: In(versions.length ? versions : [-1]) } : {},
      );
      if (!affected) {
        if (!(await this.sitesOf(ctx).existsBy({ id: siteId }))) throw new NotFoundError('Site', siteId);
        throw new PreconditionFailedError();
      }
      return Site.toWire((await this.sitesOf(ctx).findOneBy({ id: siteId }))!);
    });
  }
  /** PATCH: the site, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, siteId: string, patch: MergePatch): Promise<SiteDto> {
    return patchRecord(this.db, ctx, patch, {
      current: async () => Site.toWire(await this.lock(ctx, siteId)),
      input: UpdateSiteDto,
      update: (dto) => this.update(ctx, siteId, dto),
    });
  }

  /** The site's row, locked until the transaction ends (MySQL/MariaDB; SQLite runs one transaction at a time), or a 404. */
  private async lock(ctx: RequestContext, siteId: string): Promise<SiteEntity> {
    const qb = this.sitesOf(ctx).createQueryBuilder('s').where('s.id = :id', { id: siteId });
    if (!this.db.isSqlite) qb.setLock('pessimistic_write');
    const site = await qb.getOne();
    if (!site) throw new NotFoundError('Site', siteId);
    return site;
  }
}
