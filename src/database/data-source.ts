import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { DEFAULT_DB_SYNC_WAIT, type AppConfig } from '../config/config.js';
import { boundedMysql2 } from './bounded-mysql.js';
import { assertUtf8mb4 } from './charset-check.js';
import { fixPlannerStatistics } from './sqlite-planner-stats.js';
import { entitiesFor, MIGRATIONS } from './registry.js';

type DbTimeouts = Pick<AppConfig, 'database' | 'dbQueryTimeoutMs' | 'dbAcquireTimeoutMs'> & Partial<Pick<AppConfig, 'dbSyncWait'>>;

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
    driver: boundedMysql2({
      flavor,
      acquireTimeoutMs: config.dbAcquireTimeoutMs,
      statementTimeoutMs: config.dbQueryTimeoutMs,
      syncWait: config.dbSyncWait ?? DEFAULT_DB_SYNC_WAIT,
    }),
    connectTimeout: Math.min(10000, config.dbAcquireTimeoutMs),
    enableQueryTimeout: true,
    maxQueryExecutionTime: config.dbQueryTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
    // mysql2 would capture a stack trace for every query (to decorate errors): too dear per query.
    trace: false,
    // A write's audit rows go with its COMMIT in one round trip. Every statement of the service
    // binds its values as parameters, so no input can add a statement of its own (docs/audit.md, "Cost").
    multipleStatements: true,
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

/** Why the database cannot be used at all; its message is the one line the start prints. */
export class DatabaseSetupError extends Error {
  /** Logged without a stack trace (json-logger.ts): the message says what to run. */
  readonly expected = true;
}

/**
 * Before the first connection to a MySQL/MariaDB database (docs/operations.md, "Character set"):
 * the database is created when it does not exist and the user may create it, in utf8mb4; a
 * database that exists but holds no table yet gets utf8mb4 as its default, so the migrations
 * create every table in it whatever the server's default charset (latin1 on an upstream
 * MariaDB). A database that holds tables is left to migration 1732000001600. Answers the
 * server's flavor, as detectMysqlFlavor does, from the same connection.
 */
export async function prepareMysqlDatabase(config: Pick<AppConfig, 'database'>): Promise<'mysql' | 'mariadb'> {
  const db = config.database;
  if (db.kind !== 'mysql') return 'mysql';
  const mysql = await import('mysql2/promise');
  const conn = await mysql.createConnection({ host: db.host, port: db.port, user: db.username, password: db.password, connectTimeout: 10000 });
  const name = `\`${db.database.replace(/`/g, '``')}\``;
  try {
    const exists = async () =>
      (
        (await conn.query('SELECT DEFAULT_CHARACTER_SET_NAME AS cs FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [db.database]))[0] as {
          cs: string;
        }[]
      )[0];
    let schema = await exists();
    if (!schema) {
      try {
        await conn.query(`CREATE DATABASE IF NOT EXISTS ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      } catch (e) {
        throw new DatabaseSetupError(
          `the database "${db.database}" does not exist and the user "${db.username}" may not create it (${(e as Error).message}); ` +
            `create it as an administrator: CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
        );
      }
      schema = await exists();
    }
    if (schema && schema.cs !== 'utf8mb4') {
      const [tables] = await conn.query('SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?', [db.database]);
      if (Number((tables as { n: number }[])[0].n) === 0) await conn.query(`ALTER DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    }
    // The flavor, asked on this same connection (detectMysqlFlavor says why TypeORM needs it).
    const [rows] = await conn.query('SELECT VERSION() AS v');
    return /mariadb/i.test(String((rows as { v: string }[])[0]?.v)) ? 'mariadb' : 'mysql';
  } finally {
    await conn.end();
  }
}

export async function createDataSource(config: DbTimeouts): Promise<DataSource> {
  return new DataSource(dataSourceOptions(config, await prepareMysqlDatabase(config)));
}

/**
 * Connects, runs `migrate` (the pending migrations under the cluster-wide lock: migration-lock.ts),
 * then checks the schema they leave: on MySQL/MariaDB every text column utf8mb4
 * (charset-check.ts); on SQLite it writes the planner's fixed statistics (sqlite-planner-stats.ts).
 * A failure closes the connection again and stops the start with its one line.
 */
export async function initializeChecked(options: DataSourceOptions, migrate?: (ds: DataSource) => Promise<unknown>): Promise<DataSource> {
  const ds = await new DataSource(options).initialize();
  try {
    await migrate?.(ds);
    await assertUtf8mb4(ds);
    await fixPlannerStatistics(ds);
  } catch (e) {
    await ds.destroy();
    throw e;
  }
  return ds;
}
