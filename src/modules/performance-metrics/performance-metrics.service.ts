import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { ConflictError, PmDisabledError, ValidationError } from '../../common/errors/errors.js';
import { deletedFilter, Page, pageOf, QueriedListQuery, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries, type ListQuery } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { assertLive, softDelete, softUndelete } from '../../database/soft-delete.js';
import { ByReference } from '../../database/by-reference.js';
import { TenantDb, TenantTx } from '../../database/tenant-db.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { PeriodEntity } from '../../database/entities/period.entity.js';
import { AccessService, notHidden, Row, type Operation } from '../../authorization/access.service.js';
import { ROW_TYPE } from '../../database/entities/permission.entity.js';
import { assertCanManageProject } from '../../authorization/project-access.js';
import { ProjectEntity } from '../../database/entities/project.entity.js';
import { SitesService } from '../sites/sites.service.js';
import {
  CreateMetricDto,
  Metric,
  MetricDto,
  MetricValue,
  MetricValueInput,
  PutMetricValueDto,
  SetMetricValueInput,
  UpdateMetricDto,
} from './dto/metric.dto.js';
import { MetricValueEntity } from '../../database/entities/metric-value.entity.js';
import { MetricEntity, MetricKind } from '../../database/entities/metric.entity.js';
import { valuesByMetric } from './metric-values.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';
import { DeclaresBulkWrites } from '../../database/registries/bulk-writers.js';
import { answerBulk, applyBulk, type BulkOptions, type BulkPlan, type BulkRun } from '../../database/bulk-write.js';
import type { BulkItemInput, BulkQuery, BulkRequest, BulkResultsDto } from '../../http/wire/bulk.js';

/** Lists are ordered by Name; the id keeps paging stable. */
const LIST_ORDER = { name: 'ASC', id: 'ASC' } as const;
/** The same order for a queried list. */
const BY_NAME = [{ field: Metric.queryable.get('name')!, desc: false }] as const;

type Owned = Pick<MetricEntity, 'kind' | 'ancestorId'>;

/**
 * Metrics of individuals and projects, with one actual value per period (docs/metrics-archives.md).
 *
 * - An individual's metrics are read and changed by the individual, anyone above them in the
 *   reporting chain, and administrators; a project's metrics are read by every member of the
 *   site and changed by whoever may change the project (AccessService, src/authorization/project-access.ts).
 * - Values are their own rows, unique per (metric, period): `PUT /metrics/{id}/values/{periodid}`
 *   creates or replaces one with the metric and the period locked, so concurrent writes of the same
 *   value leave one row, and a period being closed either archives the value or refuses it (409
 *   `closed`).
 * - DELETE is a soft delete that takes the metric's comments down by reference; undelete brings
 *   exactly those back. A metric taken down with its individual or project comes back with it.
 */
@Injectable()
@DeclaresRecordKind<PerformanceMetricsService>({ path: 'metrics', kind: 'metric', access: 'pm', read: (s, ctx, id) => s.get(ctx, id) })
@DeclaresBulkWrites<PerformanceMetricsService>({
  path: 'metrics/values',
  records: [SetMetricValueInput, MetricValueInput],
  apply: (s, ctx, items, opts) => s.applyValues(ctx, items, opts),
})
export class PerformanceMetricsService {
  constructor(
    private readonly db: TenantDb,
    private readonly byReference: ByReference,
    private readonly access: AccessService,
    private readonly sites: SitesService,
    private readonly queries: ListQueries,
  ) {}

  private readonly metrics = this.db.scoped(MetricEntity, 'Metric');

  private readonly values = this.db.scoped(MetricValueEntity, 'MetricValue');

  /** The wire form of these rows with their values (one query for the values of all of them). */
  private async toWire(ctx: RequestContext, rows: MetricEntity[]): Promise<MetricDto[]> {
    const values = await valuesByMetric(
      this.values(ctx),
      rows.map((r) => r.id),
    );
    return rows.map((r) => Metric.toWire(r, { values: values.get(r.id) ?? [] }));
  }

  private async one(ctx: RequestContext, row: MetricEntity): Promise<MetricDto> {
    return (await this.toWire(ctx, [row]))[0];
  }

  private async page(ctx: RequestContext, where: { kind?: MetricKind; ancestorId?: string }, q: QueriedListQuery): Promise<Page<MetricDto>> {
    const hidden = await this.access.hidden(ctx, ROW_TYPE.metric);
    const query = asksQuery(q) ? this.queries.read(ctx, Metric, q) : null;
    if (typeof where.ancestorId === 'string' && hidden.ancestors.includes(where.ancestorId)) {
      return query ? emptyQueried(q, query) : Page.of([], 0, q);
    }
    if (query) {
      // Queried (docs/queries.md): the record the list is under, `deleted` and the metrics a Deny hides come first.
      const { take, skip } = pageOf(q);
      const deleted = deletedFilter(q.deleted).deleted;
      const scope = {
        equal: { ...where, ...(deleted === undefined ? {} : { deleted }) },
        notIn: [
          { property: 'id', values: hidden.ids },
          { property: 'ancestorId', values: hidden.ancestors },
        ],
      };
      const page = await readQueriedRows(this.db, ctx, MetricEntity, scope, query, BY_NAME, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(await this.toWire(ctx, page.rows), page.total, take, skip, query.fields, next);
    }
    const [rows, total] = await this.metrics(ctx).findAndCount({
      where: { ...notHidden(hidden), ...where, ...deletedFilter(q.deleted) },
      order: LIST_ORDER,
      ...pageOf(q),
    });
    return Page.of(await this.toWire(ctx, rows), total, q);
  }

  // ------------------------------------------------------------------ access

  /**
   * The engine on the metric row (docs/authorization.md): by default a project's metrics are read
   * by every member, an individual's by them and their managers; whoever manages what a metric is
   * about changes it and its values.
   */
  private assertCan(ctx: RequestContext, op: Operation, m: MetricEntity): Promise<void> {
    const message =
      op === 'read'
        ? 'Only the individual, someone they report to, or an administrator may read their metrics'
        : 'Only whoever manages what the metric is about (the individual or the project’s owner), anyone they report to, or an administrator may change it';
    return this.access.assert(ctx, op, Row.metric(m), 'records', message, ['Metric', m.id]);
  }

  /** Creating a metric is creating a record of the individual or project it is about. */
  private async assertCanCreate(ctx: RequestContext, m: Owned): Promise<void> {
    if (m.kind === 'individual') return this.access.assertCanManageIndividual(ctx, m.ancestorId, 'create');
    const project = await this.db.repo(ctx, ProjectEntity, 'Project').findById(m.ancestorId);
    if (project) return assertCanManageProject(this.access, ctx, project, 'create', 'records');
  }

  /**
   * 400 naming AncestorID unless it is a live record of the site of the Kind. Inside the write's
   * transaction the ancestor stays locked, so its concurrent delete either comes first (400 here)
   * or waits and then takes the new metric down by reference.
   */
  private async lockLiveAncestor(ctx: RequestContext, kind: MetricKind, ancestorId: string): Promise<void> {
    const repo = kind === 'individual' ? this.db.repo(ctx, IndividualEntity, 'Individual') : this.db.repo(ctx, ProjectEntity, 'Project');
    const [row] = await repo.lockMany([ancestorId]);
    const what = kind === 'individual' ? 'an individual' : 'a project';
    if (!row) throw new ValidationError([{ field: 'AncestorID', message: `AncestorID ${ancestorId} is not ${what} of this site` }]);
    if (row.deleted) throw new ValidationError([{ field: 'AncestorID', message: `AncestorID ${ancestorId} is a deleted ${kind}` }]);
  }

  // ------------------------------------------------------------------ reads

  async get(ctx: RequestContext, id: string): Promise<MetricDto> {
    const row = await this.metrics(ctx).get(id);
    await this.assertCan(ctx, 'read', row);
    return this.one(ctx, row);
  }

  /** `GET /individuals/{id}/metrics`: 404 for an individual not of the site, 403 when not readable. */
  async listForIndividual(ctx: RequestContext, individualId: string, q: QueriedListQuery): Promise<Page<MetricDto>> {
    await this.access.assertCanReadRecordsOf(ctx, individualId, 'read their metrics');
    return this.page(ctx, { kind: 'individual', ancestorId: individualId }, q);
  }

  /** `GET /projects/{id}/metrics`: 404 for a project not of the site. */
  async listForProject(ctx: RequestContext, projectId: string, q: QueriedListQuery): Promise<Page<MetricDto>> {
    const project = await this.db.repo(ctx, ProjectEntity, 'Project').get(projectId);
    await this.access.assertVisible(ctx, Row.project(project));
    return this.page(ctx, { kind: 'project', ancestorId: projectId }, q);
  }

  /** `GET /me/metrics`: the caller's own metrics; none for a caller without an individual here. */
  listMine(ctx: RequestContext, q: QueriedListQuery): Promise<Page<MetricDto>> {
    if (!ctx.user.individualId && asksQuery(q)) return Promise.resolve(emptyQueried(q, this.queries.read(ctx, Metric, q)));
    return Page.mine(ctx.user.individualId, q, (me) => this.page(ctx, { kind: 'individual', ancestorId: me }, q));
  }

  /** `GET /sites/{siteid}/metrics`: every metric of a site, for administrators. */
  async listForSite(ctx: RequestContext, siteId: string, q: QueriedListQuery): Promise<Page<MetricDto>> {
    const scoped = await this.sites.scopeTo(ctx, siteId);
    if (!scoped.user.pmEnabled) throw new PmDisabledError('Performance management is switched off for that site');
    return this.page(scoped, {}, q);
  }

  // ------------------------------------------------------------------ writes

  async create(ctx: RequestContext, dto: CreateMetricDto): Promise<MetricDto> {
    const kind = dto.Kind as MetricKind;
    return this.db.transaction(ctx, async () => {
      await this.lockLiveAncestor(ctx, kind, dto.AncestorID);
      await this.assertCanCreate(ctx, { kind, ancestorId: dto.AncestorID });
      const row = await this.metrics(ctx).insert({ ...Metric.toColumns(dto, 'create'), deleted: false, deletedByRef: false });
      return Metric.toWire(row, { values: [] });
    });
  }

  async update(ctx: RequestContext, id: string, dto: UpdateMetricDto): Promise<MetricDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async (tx) => {
      const row = await tx.repo(MetricEntity, 'Metric').lock(id);
      await this.assertCan(ctx, 'update', row);
      assertLive(row, 'Metric');
      return this.one(ctx, await this.metrics(ctx).update(id, Metric.toColumns(dto, 'update'), { ifMatch: true }));
    });
  }

  /** PATCH: the metric, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<MetricDto> {
    const show = (row: MetricEntity) => this.one(ctx, row);
    return patchResource(this.db, ctx, patch, Metric, this.metrics(ctx), id, (dto) => this.update(ctx, id, dto), show);
  }

  /** Soft delete (idempotent): the metric's comments go down by reference with it; values stay. */
  async remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    return softDelete(this.db, ctx, MetricEntity, id, {
      label: 'Metric',
      owned: this.byReference.ownedBy('metric'),
      authorize: (row) => this.assertCan(ctx, 'delete', row),
    });
  }

  /**
   * Undelete (idempotent): restores the metric and the comments its delete took down. A metric
   * taken down with its individual or project (DeletedByRef) is 409 `deleted`: it comes back
   * when its owner is undeleted.
   */
  async undelete(ctx: RequestContext, id: string): Promise<MetricDto> {
    const saved = await softUndelete(this.db, ctx, MetricEntity, id, {
      label: 'Metric',
      owned: this.byReference.ownedBy('metric'),
      authorize: (row) => this.assertCan(ctx, 'update', row),
      guard: (_tx, row) => {
        if (row.deletedByRef) {
          throw new ConflictError(`Metric ${id} was deleted with its ${row.kind}; undelete the ${row.kind} to restore it`, 'deleted');
        }
      },
    });
    return this.one(ctx, saved);
  }

  /**
   * `PUT /metrics/{id}/values/{periodid}`: creates or replaces the metric's value of that period
   * and answers the metric with all its values, marked changed (`touch`).
   */
  async setValue(ctx: RequestContext, id: string, periodId: number, dto: PutMetricValueDto): Promise<MetricDto> {
    const { actual } = MetricValue.toColumns(dto, 'create');
    return this.db.transaction(ctx, async (tx) => {
      await this.lockForValues(ctx, tx, id, periodId);
      const values = tx.repo(MetricValueEntity, 'MetricValue');
      const existing = await values.findOne({ metricId: id, periodId });
      if (existing) await values.update(existing.id, { actual });
      else await values.insert({ metricId: id, periodId, actual });
      return this.one(ctx, await this.touch(tx, id));
    });
  }

  /**
   * A batch of metric values to set (docs/bulk.md), each through `setValue`: what
   * `POST /metrics/values/bulk` and a file import run. An item names its value by MetricID and
   * PeriodID, or by the value's ID; setting a value that exists replaces it, as the single PUT does,
   * except that an update of a pair that has no value yet is 404.
   */
  applyValues(ctx: RequestContext, items: readonly BulkItemInput[], opts: BulkOptions): Promise<BulkRun> {
    return applyBulk(this.db, ctx, items, (c) => this.valuesPlan(c), opts);
  }

  /** `POST /metrics/values/bulk`. */
  bulkValues(ctx: RequestContext, body: BulkRequest, q: BulkQuery): Promise<BulkResultsDto> {
    return answerBulk(this.db, ctx, body, q, (c) => this.valuesPlan(c));
  }

  private valuesPlan(ctx: RequestContext): BulkPlan<SetMetricValueInput, MetricValueInput> {
    const values = () => this.db.repo(ctx, MetricValueEntity, 'MetricValue');
    const idOf = async (metricId: string, periodId: number) => (await values().findOne({ metricId, periodId }))?.id ?? null;
    const set = async (metricId: string, periodId: number, actual: number) => {
      await this.setValue(ctx, metricId, periodId, { Actual: actual } as PutMetricValueDto);
      return { ID: await idOf(metricId, periodId) };
    };
    return {
      label: 'MetricValue',
      entity: MetricValueEntity,
      externalIds: false,
      // A value has no ETag of its own (its metric's changes with it) and setValue takes no If-Match.
      conditional: false,
      create: SetMetricValueInput,
      update: MetricValueInput,
      // The single write's route is for performance management sites (a file import is held to it too).
      createRule: 'pm',
      updateRule: 'pm',
      refs: {},
      match: {
        fields: ['MetricID', 'PeriodID'],
        find: async (record) => {
          const periodId = Number(record.PeriodID);
          const metricId = String(record.MetricID).trim().toLowerCase();
          // Values the single write would refuse are not looked for (the write answers them).
          if (!Number.isSafeInteger(periodId) || !/^[0-9a-f-]{36}$/.test(metricId)) return null;
          return idOf(metricId, periodId);
        },
      },
      createOne: (dto) => set(dto.MetricID, dto.PeriodID, dto.Actual),
      updateOne: async (id, dto) => {
        const row = await values().get(id);
        return set(row.metricId, row.periodId, dto.Actual);
      },
      read: async (id) => {
        const row = await values().get(id);
        return { ID: row.id, MetricID: row.metricId, ...MetricValue.toWire(row) };
      },
    };
  }

  /**
   * `DELETE /metrics/{id}/values/{periodid}`: removes that period's value (idempotent); the metric
   * is marked changed only when there was a value to remove.
   */
  async removeValue(ctx: RequestContext, id: string, periodId: number): Promise<Record<string, never>> {
    await this.db.transaction(ctx, async (tx) => {
      await this.lockForValues(ctx, tx, id, periodId);
      const removed = await tx.repo(MetricValueEntity, 'MetricValue').deleteWhere({ metricId: id, periodId });
      if (removed > 0) await this.touch(tx, id);
    });
    return {};
  }

  /**
   * Values are part of their metric (its `Values`): a value written or removed is a change of the
   * metric, which gets Updated, UpdatedBy and a new version — and so a new ETag, against which an
   * If-Match from before the value write is 412. The metric is already locked (`lockForValues`).
   */
  private touch(tx: TenantTx, id: string): Promise<MetricEntity> {
    return tx.repo(MetricEntity, 'Metric').update(id, {});
  }

  /**
   * A value write starts here: the metric locked (404; 403 before anything about its state; 409
   * `deleted`), then its period locked (404; 409 `closed`: a closed period's values were
   * archived when it closed and stay as they were). Locking the period orders the write against
   * PUT /periods/{id}/close, which locks it too.
   */
  private async lockForValues(ctx: RequestContext, tx: TenantTx, id: string, periodId: number): Promise<MetricEntity> {
    const metric = await tx.repo(MetricEntity, 'Metric').lock(id);
    await this.assertCan(ctx, 'update', metric);
    assertLive(metric, 'Metric');
    const period = await tx.repo(PeriodEntity, 'Period').lock(periodId);
    if (period.closed) throw new ConflictError(`Period ${periodId} is closed: its metric values were archived and cannot change`, 'closed');
    return metric;
  }
}

/** The empty page of a queried list (a caller with nothing to list), its query checked all the same. */
function emptyQueried(q: QueriedListQuery, query: ListQuery): QueriedPage<MetricDto> {
  const { take, skip } = pageOf(q);
  return new QueriedPage<MetricDto>([], query.cursor === null ? 0 : -1, take, skip, query.fields, query.cursor === null ? undefined : null);
}
