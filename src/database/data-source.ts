import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/config.js';
import { boundedMysql2 } from './bounded-mysql.js';
import { entitiesFor, MIGRATIONS } from './registry.js';

type DbTimeouts = Pick<AppConfig, 'database' | 'dbQueryTimeoutMs' | 'dbAcquireTimeoutMs'>;

/** How much longer than the server's statement limit the client waits before it gives up itself. */
const CLIENT_TIMEOUT_MARGIN_MS = 1000;

/**
 * TypeORM options for the configured database. SQLite runs in WAL mode with a busy timeout so
 * concurrent writers wait instead of failing; MySQL/MariaDB stores instants in UTC, and its pool
 * and statements are bounded (bounded-mysql.ts, docs/operations.md): a statement running longer
 * than DB_QUERY_TIMEOUT_MS is stopped by the server, a wait for a pool connection ends after
 * DB_ACQUIRE_TIMEOUT_MS, so a slow or stalled database cannot hang a request.
 */
export function dataSourceOptions(config: DbTimeouts, flavor: 'mysql' | 'mariadb' = 'mysql'): DataSourceOptions {
  const common = {
    entities: entitiesFor(config.database.kind === 'sqlite'),
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    logging: false as const,
  };
  const db = config.database;
  if (db.kind === 'sqlite') {
    if (db.file !== ':memory:') mkdirSync(dirname(resolve(db.file)), { recursive: true });
    return {
      ...common,
      type: 'better-sqlite3',
      database: db.file,
      prepareDatabase: (sqlite: { pragma: (s: string) => unknown }) => {
        sqlite.pragma('journal_mode = WAL');
        sqlite.pragma('busy_timeout = 5000');
        sqlite.pragma('synchronous = NORMAL');
      },
    } as DataSourceOptions;
  }
  return {
    ...common,
    type: flavor,
    host: db.host,
    port: db.port,
    username: db.username,
    password: db.password,
    database: db.database,
    timezone: 'Z',
    charset: 'utf8mb4_unicode_ci',
    driver: boundedMysql2({ flavor, acquireTimeoutMs: config.dbAcquireTimeoutMs, statementTimeoutMs: config.dbQueryTimeoutMs }),
    connectTimeout: Math.min(10000, config.dbAcquireTimeoutMs),
    enableQueryTimeout: true,
    maxQueryExecutionTime: config.dbQueryTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
    // mysql2 would capture a stack trace for every query (to decorate errors): too dear per query.
    trace: false,
    extra: { connectionLimit: 10, waitForConnections: true, queueLimit: 200 },
  } as DataSourceOptions;
}

/**
 * MariaDB and MySQL differ in how they report column defaults, so TypeORM must be told which one
 * it talks to (`mysql://` URLs are used for both): ask the server once before connecting.
 */
export async function detectMysqlFlavor(config: Pick<AppConfig, 'database'>): Promise<'mysql' | 'mariadb'> {
  const db = config.database;
  if (db.kind !== 'mysql') return 'mysql';
  const mysql = await import('mysql2/promise');
  const conn = await mysql.createConnection({ host: db.host, port: db.port, user: db.username, password: db.password, connectTimeout: 10000 });
  try {
    const [rows] = await conn.query('SELECT VERSION() AS v');
    return /mariadb/i.test(String((rows as { v: string }[])[0]?.v)) ? 'mariadb' : 'mysql';
  } finally {
    await conn.end();
  }
}

export async function createDataSource(config: DbTimeouts): Promise<DataSource> {
  return new DataSource(dataSourceOptions(config, await detectMysqlFlavor(config)));
}
