import { Body, Query } from '@nestjs/common';
import { Pm, PmAdmin } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { GuidParam, IntParam } from '../../http/wire/ids.js';
import { BulkMetricValues, CreateMetricDto, Metric, MetricDto, PutMetricValueDto, UpdateMetricDto } from './dto/metric.dto.js';
import { BulkRoute } from '../../http/pipeline/bulk-route.js';
import { BulkQuery } from '../../http/wire/bulk.js';
import { PerformanceMetricsService } from './performance-metrics.service.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, PutAction, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesOf, changesUnder } from '../../http/pipeline/delta-list.js';
import { QueriedListQuery } from '../../http/wire/pagination.js';
import { queryNotes } from '../../http/wire/list-query.js';

const READ_RULE =
  'An individual’s metrics are read by the individual, anyone above them in the reporting chain and administrators (others 403); a project’s metrics by every member of the site.';
const WRITE_RULE =
  'Allowed for the individual, anyone above them in the reporting chain and administrators (individual metrics), or whoever may change the project: its owner, anyone the owner reports to, administrators (project metrics). Others 403.';
const LIST_NOTE =
  'Ordered by Name; each metric carries its Values. deleted: 0 live (default), 1 deleted, 2 all; paged with limit/offset (X-Total-Count, Link). XML root ArrayOfMetric. ' +
  queryNotes(Metric);

/**
 * The Metric resource (PM). Paths are written without /v4; the site-wide list is `GET /metrics`
 * for the caller's site and `/sites/{siteid}/metrics` for a named one (docs/metrics-archives.md).
 */
@ApiController('Metric', undefined, {
  description: 'Metrics of an individual or project with a target and one actual value per period (performance management).',
})
export class PerformanceMetricsController {
  constructor(private readonly metrics: PerformanceMetricsService) {}

  @ListRoute(Pm, 'individuals/:id/metrics', MetricDto, changesUnder('metrics', ['AncestorID']), {
    summary: 'List an individual’s metrics (PM)',
    description: `404 when the individual is not one of the site. ${LIST_NOTE} ${READ_RULE}`,
  })
  listForIndividual(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Query() q: QueriedListQuery) {
    return this.metrics.listForIndividual(ctx, id, q);
  }

  @ListRoute(Pm, 'projects/:id/metrics', MetricDto, changesUnder('metrics', ['AncestorID']), {
    summary: 'List a project’s metrics (PM)',
    description: `404 when the project is not one of the site. ${LIST_NOTE} ${READ_RULE}`,
  })
  listForProject(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Query() q: QueriedListQuery) {
    return this.metrics.listForProject(ctx, id, q);
  }

  @ListRoute(Pm, 'me/metrics', MetricDto, changesUnder('metrics', ['AncestorID']), {
    summary: 'List the caller’s own metrics (PM)',
    description: `A caller without an individual record in the site gets an empty list. ${LIST_NOTE}`,
  })
  listMine(@Ctx() ctx: RequestContext, @Query() q: QueriedListQuery) {
    return this.metrics.listMine(ctx, q);
  }

  @ListRoute(PmAdmin, 'sites/:siteId/metrics', MetricDto, changesOf('metrics'), {
    summary: 'List every metric of a site (PM, Admin)',
    description: `For integrations that sync all metrics. The caller’s own site, or any site with PM on for a global administrator (else 403). ${LIST_NOTE}`,
  })
  listForSite(@Ctx() ctx: RequestContext, @GuidParam('siteId') siteId: string, @Query() q: QueriedListQuery) {
    return this.metrics.listForSite(ctx, siteId, q);
  }

  @ListRoute(PmAdmin, 'metrics', MetricDto, changesOf('metrics'), {
    summary: 'List every metric of the caller’s site (PM, Admin)',
    description: `For integrations that sync all metrics; the same list as GET /sites/{siteid}/metrics for the caller’s own site. ${LIST_NOTE}`,
  })
  listAll(@Ctx() ctx: RequestContext, @Query() q: QueriedListQuery) {
    return this.metrics.listForSite(ctx, ctx.siteId, q);
  }

  @GetRoute(Pm, 'metrics/:id', MetricDto, { summary: 'Read a metric with its values (PM)', description: `Deleted metrics are answered too. ${READ_RULE}` })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.metrics.get(ctx, id);
  }

  @PostRoute(Pm, 'metrics', MetricDto, {
    summary: 'Create a metric (PM)',
    description: `Kind, AncestorID and Name are required; AncestorID must be a live individual or project of the site matching Kind (else 400 naming it). ID is optional (used if free, else 409 id-taken). Values are read-only here. ${WRITE_RULE}`,
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateMetricDto) {
    return this.metrics.create(ctx, dto);
  }

  @PutRoute(Pm, 'metrics/:id', MetricDto, {
    summary: 'Update a metric (PM)',
    description: `ID (equal to the path id) and Name are required; absent optional fields keep their value. Kind, AncestorID, Values and the read-only fields are ignored. A deleted metric is 409 (code deleted); If-Match is honoured (412). ${WRITE_RULE}`,
  })
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateMetricDto) {
    return this.metrics.update(ctx, id, dto);
  }

  @PatchRoute(Pm, 'metrics/:id', UpdateMetricDto, MetricDto, {
    summary: 'Change some fields of a metric (PM)',
    description: `Kind, AncestorID, Values and the read-only fields are ignored (values are set with PUT /metrics/{id}/values/{periodid}). A deleted metric is 409 (code deleted). ${WRITE_RULE}`,
  })
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateMetricDto>) {
    return this.metrics.patch(ctx, id, patch);
  }

  @DeleteRoute(Pm, 'metrics/:id', null, {
    summary: 'Delete a metric (PM; soft delete)',
    description: `Sets Deleted and takes the metric’s live comments down by reference; its values stay. Idempotent. Answers an empty object. ${WRITE_RULE}`,
  })
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.metrics.remove(ctx, id);
  }

  @PutAction(Pm, 'metrics/:id/undelete', MetricDto, {
    summary: 'Undelete a metric (PM)',
    description: `Clears Deleted and restores exactly the comments its delete took down. Idempotent. A metric deleted with its individual or project is 409 (code deleted): undelete the owner instead. Answers the metric. ${WRITE_RULE}`,
  })
  undelete(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.metrics.undelete(ctx, id);
  }

  @PutRoute(Pm, 'metrics/:id/values/:periodid', MetricDto, {
    summary: 'Set a metric’s actual value in a period (PM)',
    description: `Body { "Actual": n } (JSON) or <MetricValue><Actual>n</Actual></MetricValue> (XML). Creates the value of that period or replaces it; there is one value per metric and period. The period must be one of the site (404) and not closed (409 closed: its values were archived); a deleted metric is 409 (code deleted). Answers the metric with all its values. ${WRITE_RULE}`,
  })
  setValue(@Ctx() ctx: RequestContext, @GuidParam() id: string, @IntParam('periodid') periodId: number, @Body() dto: PutMetricValueDto) {
    return this.metrics.setValue(ctx, id, periodId, dto);
  }

  @BulkRoute(Pm, 'metrics/values/bulk', {
    summary: 'Set up to 1,000 metric values (PM)',
    description:
      'Each item is PUT /metrics/{id}/values/{periodid}: its Record names the metric (MetricID) and the period (PeriodID) with the Actual value, or a value by its ID with the Actual; ' +
      `create, update and upsert all set the value (a value that exists is replaced, as the single PUT does), except that an update of a metric and period without a value yet is 404. ${WRITE_RULE} The ID answered is the value’s.`,
  })
  bulkValues(@Ctx() ctx: RequestContext, @Body() body: BulkMetricValues, @Query() q: BulkQuery) {
    return this.metrics.bulkValues(ctx, body, q);
  }

  @DeleteRoute(Pm, 'metrics/:id/values/:periodid', null, {
    summary: 'Remove a metric’s value of a period (PM)',
    description: `Beyond the spec, for a value entered in the wrong period. Idempotent; a closed period is 409 (code closed). Answers an empty object. ${WRITE_RULE}`,
  })
  removeValue(@Ctx() ctx: RequestContext, @GuidParam() id: string, @IntParam('periodid') periodId: number) {
    return this.metrics.removeValue(ctx, id, periodId);
  }
}
