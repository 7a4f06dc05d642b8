import { Get } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { Public } from '../../auth/access.decorators.js';
import { ServiceUnavailableError } from '../../common/errors/errors.js';
import { ApiResult } from '../../http/wire/wire.js';
import { ServerLifecycle } from '../../http/pipeline/server-lifecycle.js';
import { TenantDb } from '../../database/tenant-db.js';
import { ApiController } from '../../http/pipeline/routes.js';

/** Kubernetes probes, outside /v4 and without a token. */
@ApiController('Operations', 'health', {
  outsideV4: true,
  description: 'For orchestrators and monitoring, outside /v4 and without a token: the liveness and readiness probes and the Prometheus metrics.',
})
export class HealthController {
  constructor(
    private readonly db: TenantDb,
    private readonly lifecycle: ServerLifecycle,
  ) {}

  @Get('live')
  @Public()
  @ApiOperation({
    summary: 'Liveness: the process is up and answering',
    description: 'Always { "status": "ok" } while the process serves requests; it does not touch the database. No token.',
  })
  @ApiResult(null, { description: '{ "status": "ok" }' })
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  @ApiOperation({
    summary: 'Readiness: the database answers within 1 s; 503 with Retry-After when it does not, or once the process is shutting down',
    description: 'An orchestrator routes traffic to the instance only while this answers 200 { "status": "ok", "database": "up" }. No token.',
  })
  @ApiResult(null, { description: '{ "status": "ok", "database": "up" }' })
  async ready() {
    if (this.lifecycle.draining) throw new ServiceUnavailableError('The service is shutting down; retry on another instance', 1);
    if (!(await this.db.ping())) throw new ServiceUnavailableError('The database does not answer');
    return { status: 'ok', database: 'up' };
  }
}
