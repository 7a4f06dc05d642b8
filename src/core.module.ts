import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { APP_CONFIG, AppConfig } from './config/config.js';
import { IdempotencyStore, IdempotencySweeper } from './database/idempotency-store.js';
import { TenantDb } from './database/tenant-db.js';
import { ArchiveWriters } from './database/archive-writers.js';
import { ByReference } from './database/by-reference.js';
import { CallerResolver } from './common/auth/caller-resolver.js';
import { AccountCallerResolver } from './modules/auth/caller.resolver.js';
import { ApiTokenUses } from './modules/auth/api-token-uses.js';
import { OidcVerifier } from './common/auth/oidc-verifier.js';
import { AuthGuard, RequestAuthenticator } from './common/auth/auth.guard.js';
import { CallerCache } from './database/caller-cache.js';
import { LoginThrottle } from './common/auth/login-throttle.js';
import { COUNTER_STORE, MemoryCounterStore, RedisCounterStore } from './common/auth/counter-store.js';
import { TokenService } from './common/auth/token.service.js';
import { InvalidationBus, RedisInvalidationTransport } from './common/invalidation/invalidation-bus.js';
import { ProblemFilter } from './common/errors/problem.filter.js';
import { WireCodec } from './common/http/codec.js';
import { WireWriter } from './common/http/wire-writer.js';
import { RouteStages } from './common/http/route-stages.js';
import { IdempotencyStage } from './database/idempotency-stage.js';
import { RouteIndex } from './common/http/route-index.js';
import { ServerLifecycle } from './common/http/server-lifecycle.js';
import { HttpMetrics } from './common/logging/http-metrics.js';
import { JsonLogger } from './common/logging/json-logger.js';
import { APP_LOGGER } from './common/logging/logger.token.js';
import { RequestLogMiddleware } from './common/logging/request-log.middleware.js';
import { AppValidationPipe } from './common/validation/app-validation.pipe.js';

/**
 * The cross-cutting machinery every resource module relies on, global so modules only declare
 * their own controllers and services: configuration, logger, codec, the scoped data access
 * path, the route stages, and the global guard, pipe and filter (no global interceptor: the
 * adapter writes every answer, and a route runs only the stages it names).
 */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, logger: JsonLogger): DynamicModule {
    const shared = [
      { provide: APP_CONFIG, useValue: config },
      { provide: APP_LOGGER, useValue: logger },
      { provide: WireCodec, useValue: new WireCodec(config.xmlNamespace) },
      {
        provide: COUNTER_STORE,
        useFactory: async () => (config.redisUrl ? new RedisCounterStore(config.redisUrl, config.redisPrefix, logger).connect() : new MemoryCounterStore()),
      },
      {
        // Cross-replica cache invalidation (docs/scaling.md): through Redis pub/sub when REDIS_URL is set.
        provide: InvalidationBus,
        useFactory: () => new InvalidationBus(config.redisUrl ? new RedisInvalidationTransport(config.redisUrl, config.redisPrefix, logger) : null).start(),
      },
      TenantDb,
      ByReference,
      ArchiveWriters,
      IdempotencyStore,
      TokenService,
      LoginThrottle,
      CallerCache,
      OidcVerifier,
      ApiTokenUses,
      { provide: CallerResolver, useClass: AccountCallerResolver },
      RequestAuthenticator,
      WireWriter,
      RouteStages,
      RouteIndex,
      ServerLifecycle,
      RequestLogMiddleware,
      { provide: HttpMetrics, useValue: new HttpMetrics() },
    ];
    return {
      module: CoreModule,
      providers: [
        ...shared,
        IdempotencySweeper,
        // The write routes' stage (route-stages.ts): it provides itself to RouteStages.
        IdempotencyStage,
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_PIPE, useClass: AppValidationPipe },
        { provide: APP_FILTER, useClass: ProblemFilter },
      ],
      exports: shared.map((p) => ('provide' in p ? p.provide : p)),
    };
  }
}
