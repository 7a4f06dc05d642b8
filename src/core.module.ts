import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { APP_CONFIG, AppConfig } from './config/config.js';
import { IdempotencyStore } from './database/idempotency-store.js';
import { TenantDb } from './database/tenant-db.js';
import { ArchiveWriters } from './database/archive-writers.js';
import { ByReference } from './database/by-reference.js';
import { RecordKinds } from './database/registries/record-kinds.js';
import { BulkWriters } from './database/registries/bulk-writers.js';
import { CallerResolver } from './auth/caller-resolver.js';
import { AccountCallerResolver } from './modules/auth/caller.resolver.js';
import { ApiTokenUses } from './modules/auth/api-token-uses.js';
import { OidcVerifier } from './auth/oidc-verifier.js';
import { AuthGuard, RequestAuthenticator } from './auth/auth.guard.js';
import { CallerCache } from './database/caches/caller-cache.js';
import { LoginThrottle } from './auth/login-throttle.js';
import { Passwords } from './auth/password.js';
import { BUDGET_STORE, COUNTER_STORE, MemoryCounterStore, RedisCounterStore } from './auth/counter-store.js';
import { RequestBudget } from './auth/request-budget.js';
import { TokenService } from './auth/token.service.js';
import { InvalidationBus, RedisInvalidationTransport } from './common/invalidation/invalidation-bus.js';
import { ProblemFilter } from './http/pipeline/problem.filter.js';
import { WireCodec } from './http/wire/codec.js';
import { WireWriter } from './http/pipeline/wire-writer.js';
import { ListQueries } from './http/wire/list-query.js';
import { RouteStages } from './http/pipeline/route-stages.js';
import { ListExportStage } from './http/pipeline/list-export.js';
import { RouteIndex } from './http/pipeline/route-index.js';
import { ServerLifecycle } from './http/pipeline/server-lifecycle.js';
import { HttpMetrics } from './http/pipeline/http-metrics.js';
import { JsonLogger } from './common/logging/json-logger.js';
import { APP_LOGGER } from './common/logging/logger.token.js';
import { RequestLogMiddleware } from './http/pipeline/request-log.middleware.js';
import { AppValidationPipe } from './http/pipeline/app-validation.pipe.js';

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
      // Cursors of queried lists are signed with a key derived from the service's secret (docs/queries.md).
      { provide: ListQueries, useValue: new ListQueries(config.jwtSecret) },
      {
        provide: COUNTER_STORE,
        useFactory: async () => (config.redisUrl ? RedisCounterStore.connect(config.redisUrl, config.redisPrefix, logger) : new MemoryCounterStore()),
      },
      // Request budgets (docs/limits.md): Redis's counters shared by every replica, or a store of this process's own.
      config.redisUrl ? { provide: BUDGET_STORE, useExisting: COUNTER_STORE } : { provide: BUDGET_STORE, useValue: new MemoryCounterStore() },
      RequestBudget,
      {
        // Cross-replica cache invalidation (docs/scaling.md): through Redis pub/sub when REDIS_URL is set.
        provide: InvalidationBus,
        useFactory: () => new InvalidationBus(config.redisUrl ? new RedisInvalidationTransport(config.redisUrl, config.redisPrefix, logger) : null).start(),
      },
      TenantDb,
      ByReference,
      ArchiveWriters,
      RecordKinds,
      BulkWriters,
      IdempotencyStore,
      TokenService,
      LoginThrottle,
      Passwords,
      CallerCache,
      OidcVerifier,
      ApiTokenUses,
      { provide: CallerResolver, useClass: AccountCallerResolver },
      RequestAuthenticator,
      WireWriter,
      RouteStages,
      // Every list's export stage (docs/exports.md): the http floor's own, provided here with the config and logger it reads.
      ListExportStage,
      RouteIndex,
      ServerLifecycle,
      RequestLogMiddleware,
      { provide: HttpMetrics, useValue: new HttpMetrics() },
    ];
    return {
      module: CoreModule,
      // The registries of record kinds (and the document builder) find what the features declare.
      imports: [DiscoveryModule],
      providers: [
        ...shared,
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_PIPE, useClass: AppValidationPipe },
        { provide: APP_FILTER, useClass: ProblemFilter },
      ],
      exports: shared.map((p) => ('provide' in p ? p.provide : p)),
    };
  }
}
