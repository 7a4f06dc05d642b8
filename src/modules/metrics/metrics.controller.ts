import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/access.decorators.js';
import { ApiResult } from '../../common/http/wire.js';
import { RawBody } from '../../common/http/wire.interceptor.js';
import { HttpMetrics } from '../../common/logging/http-metrics.js';

/** Prometheus scrape endpoint, outside /v4 and without a token (restrict it at the ingress). */
@ApiTags('Operations')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: HttpMetrics) {}

  @Get()
  @Public()
  @ApiOperation({
    summary: 'Prometheus metrics: requests and durations by route template and status, and process metrics',
    description: 'Text exposition format. Carries no tenant data; expose it to the cluster only.',
  })
  @ApiProduces('text/plain')
  @ApiResult(null, { description: 'Prometheus text exposition format' })
  async scrape() {
    return new RawBody(await this.metrics.text(), this.metrics.contentType);
  }
}
