import { Injectable } from '@nestjs/common';
import type { FindOptionsWhere } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import { NotFoundError } from '../../common/errors/errors.js';
import { Page, pageOf, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { TenantDb } from '../../database/tenant-db.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { OrganizationEntity } from '../../database/entities/organization.entity.js';
import { MetricEntity } from '../../database/entities/metric.entity.js';
import { PeriodEntity } from '../../database/entities/period.entity.js';
import { AccessService, Row } from '../../authorization/access.service.js';
import { ROW_TYPE } from '../../database/entities/permission.entity.js';
import { ProjectEntity } from '../../database/entities/project.entity.js';
import { ArchiveEntity } from '../../database/entities/archive.entity.js';
import { Archive, ArchiveDto, ArchiveQuery } from './dto/archive.dto.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

/** Newest period first; within a period by Name; the id keeps paging stable. */
const LIST_ORDER = { periodId: 'DESC', name: 'ASC', id: 'ASC' } as const;
/** The same order for a queried list without sort=: PeriodID descending, then Name and ID ascending (sorted once read: the directions mix). */
const NEWEST_PERIOD_FIRST = [
  { field: Archive.queryable.get('periodid')!, desc: true },
  { field: Archive.queryable.get('name')!, desc: false },
] as const;

/**
 * Archives (docs/metrics-archives.md): snapshots written by closing a period
 * (src/database/archive-writers.ts), read here and never changed. Archives filed under an individual are read
 * by the individual, anyone above them in the reporting chain, and administrators; the others
 * (projects, organizations, departments) by every member of the site.
 */
@Injectable()
@DeclaresRecordKind<ArchivesService>({ path: 'archives', kind: 'archive', access: 'authenticated', read: (s, ctx, id) => s.get(ctx, id) })
export class ArchivesService {
  constructor(
    private readonly db: TenantDb,
    private readonly access: AccessService,
    private readonly queries: ListQueries,
  ) {}

  private readonly archives = this.db.scoped(ArchiveEntity, 'Archive');

  /**
   * An individual's archives: the engine on their records (docs/authorization.md). A unit's or a
   * project's: every member, unless a Deny hides the unit or project (404).
   */
  private async assertCanRead(ctx: RequestContext, ancestorType: string, ancestorId: string, notFound?: [string, string]): Promise<void> {
    if (ancestorType === 'individual') {
      const message = 'Only the individual, someone they report to, or an administrator may read their archives';
      return this.access.assertCanManageIndividual(ctx, ancestorId, 'read', message, notFound);
    }
    const type = ancestorType === 'project' ? ROW_TYPE.project : ancestorType === 'organization' ? ROW_TYPE.organization : ROW_TYPE.department;
    const row = await this.access.rowFacts(ctx, type, ancestorId);
    if (row) await this.access.assertVisible(ctx, row, notFound);
  }

  private async page(ctx: RequestContext, where: FindOptionsWhere<ArchiveEntity>, q: ArchiveQuery): Promise<Page<ArchiveDto>> {
    if (q.period !== undefined && q.period !== null) await this.db.repo(ctx, PeriodEntity, 'Period').get(q.period);
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the right to the record's archives was checked; its archives (and the period) come first.
      const query = this.queries.read(ctx, Archive, q);
      const { take, skip } = pageOf(q);
      const scope = { equal: { ...(where as Record<string, string>), ...(q.period === undefined || q.period === null ? {} : { periodId: q.period }) } };
      const page = await readQueriedRows(this.db, ctx, ArchiveEntity, scope, query, NEWEST_PERIOD_FIRST, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(this.archives(ctx).answers(page.rows, Archive), page.total, take, skip, query.fields, next);
    }
    const [rows, total] = await this.archives(ctx).findAndCount({
      where: { ...where, ...(q.period === undefined || q.period === null ? {} : { periodId: q.period }) },
      order: LIST_ORDER,
      ...pageOf(q),
    });
    return Page.of(this.archives(ctx).answers(rows, Archive), total, q);
  }

  /** `GET /individuals/{ancestorid}/archives`: everything archived under the individual. */
  async listForIndividual(ctx: RequestContext, individualId: string, q: ArchiveQuery): Promise<Page<ArchiveDto>> {
    await this.db.repo(ctx, IndividualEntity, 'Individual').get(individualId);
    await this.assertCanRead(ctx, 'individual', individualId);
    return this.page(ctx, { ancestorId: individualId }, q);
  }

  /** `GET /organizations/{ancestorid}/archives`: an organization's or a department's archives. */
  async listForOrganization(ctx: RequestContext, organizationId: string, q: ArchiveQuery): Promise<Page<ArchiveDto>> {
    const unit = await this.db.repo(ctx, OrganizationEntity, 'Organization').get(organizationId);
    await this.access.assertVisible(ctx, Row.unit(unit));
    return this.page(ctx, { ancestorId: organizationId }, q);
  }

  /** `GET /projects/{ancestorid}/metricArchives`: the archives of the project's metrics. */
  async listMetricArchivesForProject(ctx: RequestContext, projectId: string, q: ArchiveQuery): Promise<Page<ArchiveDto>> {
    const project = await this.db.repo(ctx, ProjectEntity, 'Project').get(projectId);
    await this.access.assertVisible(ctx, Row.project(project));
    return this.page(ctx, { ancestorId: projectId, itemType: 'metric' }, q);
  }

  /** `GET /archives/{id}`. */
  async get(ctx: RequestContext, id: string): Promise<ArchiveDto> {
    const row = await this.archives(ctx).get(id);
    await this.assertCanRead(ctx, row.ancestorType, row.ancestorId, ['Archive', id]);
    return Archive.toWire(row);
  }

  /** `GET /metric/{itemid}/archives/{id}`: the archive must be one of that metric's, else 404. */
  async getForMetric(ctx: RequestContext, metricId: string, id: string): Promise<ArchiveDto> {
    await this.db.repo(ctx, MetricEntity, 'Metric').get(metricId);
    const row = await this.archives(ctx).get(id);
    if (row.itemType !== 'metric' || row.itemId !== metricId) throw new NotFoundError('Archive', id);
    await this.assertCanRead(ctx, row.ancestorType, row.ancestorId, ['Archive', id]);
    return Archive.toWire(row);
  }

  /**
   * `GET /projects/{itemid}/archives/{id}`: the archive must be filed under that project (an
   * archive of one of its metrics) or be of the project itself, else 404.
   */
  async getForProject(ctx: RequestContext, projectId: string, id: string): Promise<ArchiveDto> {
    await this.db.repo(ctx, ProjectEntity, 'Project').get(projectId);
    const row = await this.archives(ctx).get(id);
    if (row.ancestorId !== projectId && row.itemId !== projectId) throw new NotFoundError('Archive', id);
    return Archive.toWire(row);
  }
}
