import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/access.decorators.js';
import { ServiceUnavailableError } from '../../common/errors/errors.js';
import { ApiResult } from '../../common/http/wire.js';
import { TenantDb } from '../../database/tenant-db.js';

/** Kubernetes probes, outside /v4 and without a token. */
@ApiTags('Operations')
@Controller('health')
export class HealthController {
  constructor(private readonly db: TenantDb) {}

  @Get('live')
  @Public()
  @ApiOperation({ summary: 'Liveness: the process is up and answering' })
  @ApiResult(null, { description: '{ "status": "ok" }' })
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  @ApiOperation({ summary: 'Readiness: the database answers; 503 with Retry-After when it does not' })
  @ApiResult(null, { description: '{ "status": "ok", "database": "up" }' })
  async ready() {
    try {
      await this.db.ping();
    } catch {
      throw new ServiceUnavailableError('The database does not answer');
    }
    return { status: 'ok', database: 'up' };
  }
}
