import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from './config/config.js';
import { AuthorizationModule } from './authorization/authorization.module.js';
import { CoreModule } from './core.module.js';
import { JsonLogger } from './common/logging/json-logger.js';
import { isDatabaseUnavailable } from './common/errors/db-errors.js';
import { dataSourceOptions, initializeChecked, prepareMysqlDatabase } from './database/data-source.js';
import { migrateAtStart } from './database/migrate-apart.js';
import { FEATURE_MODULES } from './feature-modules.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, logger: JsonLogger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: async () => ({
            ...dataSourceOptions(config, await prepareMysqlDatabase(config)),
            retryAttempts: 3,
            retryDelay: 2000,
            // Only a database that cannot be reached may answer a second try; a failed migration
            // or a schema in the wrong charset stays as it is: say so once.
            toRetry: (err: unknown) => isDatabaseUnavailable(err),
          }),
          // Pending migrations run at start-up, each in its own transaction, under the cluster-wide
          // migration lock: replicas starting together run each one once (docs/scaling.md); in a
          // worker thread, off the serving heap (docs/performance.md).
          dataSourceFactory: (options) => initializeChecked(options!, (ds) => migrateAtStart(ds, config, logger)),
        }),
        CoreModule.forRoot(config, logger),
        AuthorizationModule,
        ...FEATURE_MODULES,
      ],
    };
  }
}
