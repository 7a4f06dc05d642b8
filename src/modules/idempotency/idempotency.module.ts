import { Module } from '@nestjs/common';
import { IdempotencyStage } from './idempotency-stage.js';
import { IdempotencySweeper } from './idempotency-sweeper.js';

/**
 * Safe retries of writes (docs/idempotency.md): the write routes' stage, which provides itself to
 * the route stages at start-up (src/http/pipeline/route-stages.ts), and the sweep of expired keys.
 * The keys' table is the data floor's (IdempotencyStore, provided by the core module).
 */
@Module({
  providers: [IdempotencyStage, IdempotencySweeper],
})
export class IdempotencyModule {}
