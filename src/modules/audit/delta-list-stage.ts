import { Injectable, OnModuleInit } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { CONTEXT_KEY, RequestContext } from '../../common/context/request-context.js';
import { ValidationError, type FieldError } from '../../common/errors/errors.js';
import { DELTA_LIST, type DeltaList } from '../../http/pipeline/delta-list.js';
import { isGuid } from '../../http/wire/wire.js';
import { RouteStages, type Stage, type StageRequest } from '../../http/pipeline/route-stages.js';
import { KeysetPage, MAX_LIMIT } from '../../http/wire/pagination.js';
import type { SyncEntryDto } from '../../http/wire/sync-entry.js';
import { SitesService } from '../sites/sites.service.js';
import { SyncService, type SyncFilter, type SyncPosition } from './sync.service.js';

/** What may stand beside `updatedSince` in a list's query: the page size and the answer's time zone. */
const WITH_UPDATED_SINCE = new Set(['updatedSince', 'limit', 'tz']);

type Req = StageRequest & { [CONTEXT_KEY]?: RequestContext };

/**
 * Every list asked with `updatedSince` (docs/delta-sync.md, "Every list"), in one place: a list
 * route declares what its changes are (`ListRoute`'s delta, src/http/pipeline/delta-list.ts), and
 * this stage answers the request from the page `GET /v4/sync/{kind}` reads — the same SyncService,
 * the same cursor — instead of running the route's handler, but as the list's own type: the
 * records of the changed entries, without the tombstones (no union in a list's answer). The route's access
 * rule has been checked by then (the guard); a sub-list first reads its parent as the parent's
 * GET does (404 for another site's, 403 when not readable), and answers only the records whose
 * fields name it. Without `updatedSince` the list's method runs untouched (Stage.applies). It is
 * the lists' stage (`delta-list`, src/http/pipeline/route-stages.ts): only the routes that declare
 * their changes run it, after the guards and pipes.
 */
@Injectable()
export class DeltaListStage implements Stage, OnModuleInit {
  constructor(
    private readonly reflector: Reflector,
    private readonly sync: SyncService,
    private readonly sites: SitesService,
    private readonly stages: RouteStages,
  ) {}

  onModuleInit(): void {
    this.stages.provide('delta-list', this);
  }

  /** A list asked with `updatedSince`; any other request runs the list's method. */
  applies(req: StageRequest): boolean {
    return req.query?.updatedSince !== undefined;
  }

  run(req: StageRequest, method: Function, handle: () => Promise<unknown>): Promise<unknown> {
    const delta = this.reflector.get<DeltaList | undefined>(DELTA_LIST, method);
    return delta ? this.changes(req as Req, delta) : handle();
  }

  private async changes(req: Req, delta: DeltaList): Promise<KeysetPage<object>> {
    const page = await this.entries(req, delta);
    // The records changed since then, as the list's own items; deletions are the sync route's tombstones.
    const records = page.items.filter((e) => !e.Deleted && e.Record).map((e) => e.Record as object);
    return new KeysetPage(records, page.limit, page.next, page.headers);
  }

  private async entries(req: Req, delta: DeltaList): Promise<KeysetPage<SyncEntryDto>> {
    const position = positionOf(req.query ?? {});
    if ('refuse' in delta) throw new ValidationError([{ field: 'updatedSince', message: delta.refuse }]);
    let ctx = req[CONTEXT_KEY]!;
    const param = (name: string) => req.params?.[name] ?? '';
    if (delta.site) {
      const siteId = param(delta.site);
      if (!isGuid(siteId)) throw new ValidationError([{ field: delta.site, message: `${delta.site} must be a UUID` }]);
      ctx = await this.sites.scopeTo(ctx, siteId.toLowerCase());
    }
    let filter: SyncFilter | null = null;
    if (delta.mine) filter = await this.sync.parentFilter(ctx, { of: 'me', fields: delta.mine }, '', 'updatedSince');
    if (delta.parent) filter = await this.sync.parentFilter(ctx, delta.parent, param(delta.parent.param), delta.parent.param);
    return this.sync.page(ctx, delta.kind, position, filter);
  }
}

/** `updatedSince` and `limit` of a list's query; 400 for anything else beside them (it would not filter the changes). */
function positionOf(query: Record<string, unknown>): SyncPosition {
  const errors: FieldError[] = [];
  const others = Object.keys(query).filter((k) => !WITH_UPDATED_SINCE.has(k));
  if (others.length)
    errors.push({
      field: others[0],
      message: `updatedSince answers every change of the list and cannot be combined with ${others.join(', ')}: send only updatedSince and limit`,
    });
  const since = query.updatedSince;
  if (typeof since !== 'string' || since.trim() === '' || since.length > 40)
    errors.push({ field: 'updatedSince', message: 'updatedSince must be given once: a cursor (seq-<n>) or an ISO 8601 date-time' });
  const rawLimit = query.limit;
  let limit: number | undefined;
  if (rawLimit !== undefined) {
    limit = typeof rawLimit === 'string' && /^\d{1,9}$/.test(rawLimit) ? Number(rawLimit) : NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) errors.push({ field: 'limit', message: `limit must be between 1 and ${MAX_LIMIT}` });
  }
  if (errors.length) throw new ValidationError(errors);
  return { updatedSince: since as string, limit };
}
