import { DynamicModule, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from './config/config.js';
import { CoreModule } from './common/core.module.js';
import { JsonLogger } from './common/logging/json-logger.js';
import { RequestLogMiddleware } from './common/logging/request-log.middleware.js';
import { HotRouteMiddleware } from './common/http/hot-route.js';
import { dataSourceOptions, detectMysqlFlavor } from './database/data-source.js';
import { FEATURE_MODULES } from './modules/index.js';

@Module({})
export class AppModule implements NestModule {
  static forRoot(config: AppConfig, logger: JsonLogger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: async () => ({
            ...dataSourceOptions(config, await detectMysqlFlavor(config)),
            // Pending migrations run at start-up, each in its own transaction.
            migrationsRun: true,
            migrationsTransactionMode: 'each',
            retryAttempts: 3,
            retryDelay: 2000,
          }),
        }),
        CoreModule.forRoot(config, logger),
        ...FEATURE_MODULES,
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    // In this order: the hot reads are answered inside the request's log scope.
    consumer.apply(RequestLogMiddleware, HotRouteMiddleware).forRoutes('{*path}');
  }
}
