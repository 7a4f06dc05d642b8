import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Pm, PmAdmin } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { GuidPipe, IntIdPipe } from '../../common/validation/ids.js';
import { CreateMetricDto, MetricDto, MetricQuery, PutMetricValueDto, UpdateMetricDto } from './dto/metric.dto.js';
import { PerformanceMetricsService } from './performance-metrics.service.js';

const READ_RULE =
  'An individual’s metrics are read by the individual, anyone above them in the reporting chain and administrators (others 403); a project’s metrics by every member of the site.';
const WRITE_RULE =
  'Allowed for the individual, anyone above them in the reporting chain and administrators (individual metrics), or whoever may change the project: its owner, anyone the owner reports to, administrators (project metrics). Others 403.';
const LIST_NOTE =
  'Ordered by Name; each metric carries its Values. deleted: 0 live (default), 1 deleted, 2 all; paged with limit/offset (X-Total-Count, Link). XML root ArrayOfMetric.';

/**
 * The Metric resource (PM). Paths are written without /v4; the site-wide list is
 * /sites/{siteid}/metrics, because GET /metrics outside /v4 is the Prometheus scrape endpoint
 * (docs/metrics-archives.md).
 */
@ApiTags('Metric')
@Controller()
export class PerformanceMetricsController {
  constructor(private readonly metrics: PerformanceMetricsService) {}

  @Get('individuals/:id/metrics')
  @Pm()
  @ApiOperation({ summary: 'List an individual’s metrics (PM)', description: `404 when the individual is not one of the site. ${LIST_NOTE} ${READ_RULE}` })
  @ApiResult(MetricDto, { collection: true })
  listForIndividual(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: MetricQuery) {
    return this.metrics.listForIndividual(ctx, id, q);
  }

  @Get('projects/:id/metrics')
  @Pm()
  @ApiOperation({ summary: 'List a project’s metrics (PM)', description: `404 when the project is not one of the site. ${LIST_NOTE} ${READ_RULE}` })
  @ApiResult(MetricDto, { collection: true })
  listForProject(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: MetricQuery) {
    return this.metrics.listForProject(ctx, id, q);
  }

  @Get('me/metrics')
  @Pm()
  @ApiOperation({
    summary: 'List the caller’s own metrics (PM)',
    description: `A caller without an individual record in the site gets an empty list. ${LIST_NOTE}`,
  })
  @ApiResult(MetricDto, { collection: true })
  listMine(@Ctx() ctx: RequestContext, @Query() q: MetricQuery) {
    return this.metrics.listMine(ctx, q);
  }

  @Get('sites/:siteId/metrics')
  @PmAdmin()
  @ApiOperation({
    summary: 'List every metric of a site (PM, Admin)',
    description: `For integrations that sync all metrics. The caller’s own site, or any site with PM on for a global administrator (else 403). ${LIST_NOTE}`,
  })
  @ApiResult(MetricDto, { collection: true })
  listForSite(@Ctx() ctx: RequestContext, @Param('siteId', GuidPipe) siteId: string, @Query() q: MetricQuery) {
    return this.metrics.listForSite(ctx, siteId, q);
  }

  @Get('metrics/:id')
  @Pm()
  @ApiOperation({ summary: 'Read a metric with its values (PM)', description: `Deleted metrics are answered too. ${READ_RULE}` })
  @ApiResult(MetricDto)
  get(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.metrics.get(ctx, id);
  }

  @Post('metrics')
  @Pm()
  @ApiOperation({
    summary: 'Create a metric (PM)',
    description: `Kind, AncestorID and Name are required; AncestorID must be a live individual or project of the site matching Kind (else 400 naming it). ID is optional (used if free, else 409 id-taken). Values are read-only here. ${WRITE_RULE}`,
  })
  @ApiBodyTypes()
  @ApiResult(MetricDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateMetricDto) {
    return this.metrics.create(ctx, dto);
  }

  @Put('metrics/:id')
  @Pm()
  @ApiOperation({
    summary: 'Update a metric (PM)',
    description: `ID (equal to the path id) and Name are required; absent optional fields keep their value. Kind, AncestorID, Values and the read-only fields are ignored. A deleted metric is 409 (code deleted); If-Match is honoured (412). ${WRITE_RULE}`,
  })
  @ApiBodyTypes()
  @ApiResult(MetricDto)
  update(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() dto: UpdateMetricDto) {
    return this.metrics.update(ctx, id, dto);
  }

  @PatchRoute('metrics/:id', UpdateMetricDto, {
    summary: 'Change some fields of a metric (PM)',
    description: `Kind, AncestorID, Values and the read-only fields are ignored (values are set with PUT /metrics/{id}/values/{periodid}). A deleted metric is 409 (code deleted). ${WRITE_RULE}`,
  })
  @Pm()
  @ApiResult(MetricDto)
  patch(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() patch: MergePatch<UpdateMetricDto>) {
    return this.metrics.patch(ctx, id, patch);
  }

  @Delete('metrics/:id')
  @Pm()
  @ApiOperation({
    summary: 'Delete a metric (PM; soft delete)',
    description: `Sets Deleted and takes the metric’s live comments down by reference; its values stay. Idempotent. Answers an empty object. ${WRITE_RULE}`,
  })
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.metrics.remove(ctx, id);
  }

  @Put('metrics/:id/undelete')
  @Pm()
  @ApiOperation({
    summary: 'Undelete a metric (PM)',
    description: `Clears Deleted and restores exactly the comments its delete took down. Idempotent. A metric deleted with its individual or project is 409 (code deleted): undelete the owner instead. Answers the metric. ${WRITE_RULE}`,
  })
  @ApiResult(MetricDto)
  undelete(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.metrics.undelete(ctx, id);
  }

  @Put('metrics/:id/values/:periodid')
  @Pm()
  @ApiOperation({
    summary: 'Set a metric’s actual value in a period (PM)',
    description: `Body { "Actual": n } (JSON) or <MetricValue><Actual>n</Actual></MetricValue> (XML). Creates the value of that period or replaces it; there is one value per metric and period. The period must be one of the site (404) and not closed (409 closed: its values were archived); a deleted metric is 409 (code deleted). Answers the metric with all its values. ${WRITE_RULE}`,
  })
  @ApiBodyTypes()
  @ApiResult(MetricDto)
  setValue(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Param('periodid', IntIdPipe) periodId: number, @Body() dto: PutMetricValueDto) {
    return this.metrics.setValue(ctx, id, periodId, dto);
  }

  @Delete('metrics/:id/values/:periodid')
  @Pm()
  @ApiOperation({
    summary: 'Remove a metric’s value of a period (PM)',
    description: `Beyond the spec, for a value entered in the wrong period. Idempotent; a closed period is 409 (code closed). Answers an empty object. ${WRITE_RULE}`,
  })
  @ApiResult(null)
  removeValue(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Param('periodid', IntIdPipe) periodId: number) {
    return this.metrics.removeValue(ctx, id, periodId);
  }
}
