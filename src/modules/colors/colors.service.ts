import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { ConflictError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { Page, pageOf, QueriedPage, QueriedPageQuery } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { queryInMemory } from '../../http/wire/list-query-memory.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { TenantDb } from '../../database/tenant-db.js';
import { SitesService } from '../sites/sites.service.js';
import { DEFAULT_COLOR_BANDS } from './color-band.js';
import { ColorEntity } from '../../database/entities/color.entity.js';
import { Color, ColorDto, CreateColorDto, UpdateColorDto } from './dto/color.dto.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

/** The plain list's order for a queried list without sort=: Rank, then MinPercent (its `then`), then ID. */
const BY_RANK = [{ field: Color.queryable.get('rank')!, desc: false }] as const;

/** The band rule other features color their figures with (dashboards): the colors feature's to say. */
export { colorFor, DEFAULT_COLOR_BANDS, type ColorBand } from './color-band.js';

/**
 * Site colors (docs/goals-colors-values-commitments.md). A site without colors of its own shows the built-in defaults,
 * which are not rows: they carry the negative IDs -1, -2, -3 and cannot be changed or deleted.
 */
@Injectable()
@DeclaresRecordKind<ColorsService>({ path: 'colors', kind: 'color', intId: true, access: 'authenticated', read: (s, ctx, id) => s.get(ctx, Number(id)) })
export class ColorsService {
  constructor(
    private readonly db: TenantDb,
    private readonly sites: SitesService,
    private readonly queries: ListQueries,
  ) {}

  private readonly repo = this.db.scoped(ColorEntity, 'Color');

  /** The built-in colors, as shown for the context's site. */
  defaultColors(ctx: RequestContext): ColorDto[] {
    return DEFAULT_COLOR_BANDS.map((d) => Object.assign(new ColorDto(), { ...d, SiteID: ctx.siteId }));
  }

  /** Every color in effect for the site (its own, or the defaults), unpaged: what dashboards band with. */
  async effective(ctx: RequestContext): Promise<ColorDto[]> {
    const rows = await this.repo(ctx).find({ order: { rank: 'ASC', minPercent: 'ASC', id: 'ASC' } });
    return rows.length ? rows.map((r) => Color.toWire(r)) : this.defaultColors(ctx);
  }

  async list(ctx: RequestContext, q: QueriedPageQuery): Promise<Page<ColorDto>> {
    const { take, skip } = pageOf(q);
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the site's own colors only. The defaults are not records (no row to
      // filter, sort or page by key): a site without colors answers none here, and GET /colors/defaults them.
      const query = this.queries.read(ctx, Color, q);
      const page = await readQueriedRows(this.db, ctx, ColorEntity, {}, query, BY_RANK, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(this.repo(ctx).answers(page.rows, Color), page.total, take, skip, query.fields, next);
    }
    const [rows, total] = await this.repo(ctx).findAndCount({ order: { rank: 'ASC', minPercent: 'ASC', id: 'ASC' }, take, skip });
    if (total > 0) return Page.of(this.repo(ctx).answers(rows, Color), total, q);
    return this.defaults(ctx, q);
  }

  async listForSite(ctx: RequestContext, siteId: string, q: QueriedPageQuery): Promise<Page<ColorDto>> {
    return this.list(await this.sites.scopeTo(ctx, siteId), q);
  }

  /**
   * The built-in colors. Queried (docs/queries.md, "Lists not stored"): the same grammar, sort,
   * fields and cursor as the site's own colors, answered over the three in memory.
   */
  defaults(ctx: RequestContext, q: QueriedPageQuery): Page<ColorDto> {
    const { take, skip } = pageOf(q);
    const all = this.defaultColors(ctx);
    if (asksQuery(q)) {
      const query = this.queries.read(ctx, Color, q);
      const page = queryInMemory(all, Color.queryable, Color.queryable.get('id')!, query, BY_RANK, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(page.rows, page.total, take, skip, query.fields, next);
    }
    return Page.of(all.slice(skip, skip + take), all.length, q);
  }

  async defaultsForSite(ctx: RequestContext, siteId: string, q: QueriedPageQuery): Promise<Page<ColorDto>> {
    return this.defaults(await this.sites.scopeTo(ctx, siteId), q);
  }

  async get(ctx: RequestContext, id: number): Promise<ColorDto> {
    if (id < 0) {
      const found = this.defaultColors(ctx).find((c) => c.ID === id);
      if (!found) throw new NotFoundError('Color', id);
      return found;
    }
    return Color.toWire(await this.repo(ctx).get(id));
  }

  async create(ctx: RequestContext, dto: CreateColorDto): Promise<ColorDto> {
    assertRange(dto);
    const repo = this.repo(ctx);
    const row = await repo.insert(Color.toColumns(dto, 'create'));
    // Read back so decimals answer exactly as stored (scale 4).
    return Color.toWire(await repo.get(row.id));
  }

  async update(ctx: RequestContext, id: number, dto: UpdateColorDto): Promise<ColorDto> {
    assertBodyId(id, dto.ID);
    assertNotDefault(id);
    assertRange(dto);
    const row = await this.repo(ctx).update(id, Color.toColumns(dto, 'update'), { ifMatch: true });
    return Color.toWire(row);
  }

  /** PATCH: the color, locked, merged with the patch, then `update` (src/database/patch-record.ts); a default color is 409 as on PUT. */
  patch(ctx: RequestContext, id: number, patch: MergePatch): Promise<ColorDto> {
    assertNotDefault(id);
    return patchResource(this.db, ctx, patch, Color, this.repo(ctx), id, (dto) => this.update(ctx, id, dto));
  }

  async remove(ctx: RequestContext, id: number): Promise<Record<string, never>> {
    assertNotDefault(id);
    await this.repo(ctx).remove(id, { ifMatch: true });
    return {};
  }
}

function assertRange(dto: CreateColorDto): void {
  if (dto.MaxPercent <= dto.MinPercent) {
    throw new ValidationError([{ field: 'MaxPercent', message: `MaxPercent must be greater than MinPercent (${dto.MinPercent})` }]);
  }
}

function assertNotDefault(id: number): void {
  if (id < 0) {
    throw new ConflictError(
      `Color ${id} is a built-in default color and cannot be changed or deleted; POST /colors to give the site colors of its own`,
      'default-color',
    );
  }
}
