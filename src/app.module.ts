import { DynamicModule, Module, Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { DataSourceOptions } from 'typeorm';
import { AppConfig } from './config/config.js';
import { AuthorizationModule } from './authorization/authorization.module.js';
import { CoreModule } from './core.module.js';
import { JsonLogger } from './common/logging/json-logger.js';
import { isDatabaseUnavailable } from './common/errors/db-errors.js';
import { dataSourceOptions, initializeChecked, prepareMysqlDatabase } from './database/data-source.js';
import { migrateAtStart } from './database/migrate-apart.js';
import { FEATURE_MODULES } from './feature-modules.js';

/**
 * A feature module composed into the app beside FEATURE_MODULES, with the entities and migrations
 * of its tables: how a test adds a throwaway resource of its own (test/fixtures/badges). The
 * service composes none: its features are FEATURE_MODULES, their tables src/database/registry.ts.
 * The added migrations run on the app's own data source, as they do under the tests' TypeScript
 * sources (a compiled service's start-up worker knows only the registry's).
 */
export interface AddedFeature {
  module: Type<unknown>;
  entities?: Function[];
  migrations?: Function[];
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, logger: JsonLogger, added: readonly AddedFeature[] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: async () => ({
            ...withAdded(dataSourceOptions(config, await prepareMysqlDatabase(config)), added),
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
        ...added.map((f) => f.module),
      ],
    };
  }
}

/** The data source's entities and migrations with those of the added features (none: the options as they are). */
function withAdded(options: DataSourceOptions, added: readonly AddedFeature[]): DataSourceOptions {
  if (!added.length) return options;
  return {
    ...options,
    entities: [...(options.entities as Function[]), ...added.flatMap((f) => f.entities ?? [])],
    migrations: [...(options.migrations as Function[]), ...added.flatMap((f) => f.migrations ?? [])],
  };
}
