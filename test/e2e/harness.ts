import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { getDataSourceToken } from '@nestjs/typeorm';
import mysql from 'mysql2/promise';
import { createApp } from '../../src/app.factory.js';
import { AppConfig, loadConfig, parseDatabaseUrl } from '../../src/config/config.js';
import { JsonLogger } from '../../src/common/logging/json-logger.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { ContractRecorder } from './contract.js';

export const ADMIN_USER = 'admin';
export const ADMIN_PASSWORD = 'admin-password-1';

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  ds: DataSource;
  /** supertest against the running app. */
  http: () => ReturnType<typeof request>;
  /** Token of the bootstrap global administrator (site "Default"). */
  adminToken: string;
  defaultSiteId: string;
  /** Lines the app logged (for tests about logging). */
  logs: string[];
  close: () => Promise<void>;
}

/** The database kind of this run: MariaDB/MySQL when DATABASE_URL names one, else SQLite. */
export const DB_KIND = process.env.DATABASE_URL?.startsWith('mysql') || process.env.DATABASE_URL?.startsWith('mariadb') ? 'mysql' : 'sqlite';

/**
 * A database of its own for a test file: a fresh SQLite file in a temp folder, or, when
 * DATABASE_URL names a MySQL/MariaDB server, a database created for it; `cleanup` drops it.
 */
export async function createTestDatabase(): Promise<{ url: string; cleanup: () => Promise<void> }> {
  const suffix = randomBytes(5).toString('hex');
  if (DB_KIND === 'mysql') {
    const base = parseDatabaseUrl(process.env.DATABASE_URL!);
    if (base.kind !== 'mysql') throw new Error('unreachable');
    const name = `pms_test_${suffix}`;
    const admin = await mysql.createConnection({ host: base.host, port: base.port, user: base.username, password: base.password });
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await admin.end();
    const u = new URL(process.env.DATABASE_URL!);
    u.pathname = `/${name}`;
    return {
      url: u.toString(),
      cleanup: async () => {
        const c = await mysql.createConnection({ host: base.host, port: base.port, user: base.username, password: base.password });
        await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'pms-e2e-'));
  return { url: `sqlite:${join(dir, 'pms.sqlite')}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The DATABASE_URL of a running test app's MySQL/MariaDB database, for a second app on the same
 * database (another replica; startApp with `{ DATABASE_URL }` then migrates nothing).
 */
export function databaseUrlOf(t: TestApp): string {
  const db = t.config.database;
  if (db.kind !== 'mysql') throw new Error('databaseUrlOf: a MySQL/MariaDB test app only');
  return `mysql://${encodeURIComponent(db.username)}:${encodeURIComponent(db.password)}@${db.host}:${db.port}/${db.database}`;
}

/**
 * Starts the real application on a database of its own: a fresh SQLite file in a temp folder, or,
 * when DATABASE_URL names a MySQL/MariaDB server, a database created for this test file and
 * dropped by close(). Migrations run exactly as at production start-up.
 */
export async function startApp(env: Record<string, string> = {}): Promise<TestApp> {
  const { url: databaseUrl, cleanup } = await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    JWT_SECRET: randomBytes(32).toString('hex'),
    ADMIN_USERNAME: ADMIN_USER,
    ADMIN_PASSWORD,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'error',
    // The dashboard summary builder runs in the test files that ask for it (dashboards, summaries):
    // elsewhere its rounds after every commit would share the data source with the feature under test.
    DASHBOARD_SUMMARIES: 'off',
    ...env,
  });
  const logs: string[] = [];
  const logger = new JsonLogger(config.logLevel, (line) => {
    logs.push(line);
    if (process.env.E2E_LOG) process.stdout.write(line + '\n');
  });
  let app: INestApplication;
  try {
    app = await createApp(config, logger);
  } catch (e) {
    await cleanup();
    throw e;
  }
  // Every answer of this app is checked against its OpenAPI document when the test file closes it.
  const contract = new ContractRecorder();
  contract.attach(app.getHttpServer());
  const http = () => request(app.getHttpServer());
  const document = (await http().get('/docs/openapi.json')).body as Record<string, unknown>;
  const login = await http().post('/v4/auth/token').send({ UserName: ADMIN_USER, Password: ADMIN_PASSWORD });
  if (login.status !== 200) throw new Error(`admin login failed: ${login.status} ${login.text}`);
  const sites = await http().get('/v4/sites').set('Authorization', `Bearer ${login.body.access_token}`);
  return {
    app,
    config,
    ds: app.get<DataSource>(getDataSourceToken()),
    http,
    adminToken: login.body.access_token as string,
    defaultSiteId: sites.body[0].ID as string,
    logs,
    close: async () => {
      const violations = contract.violations(document);
      await app.close();
      await cleanup();
      if (violations.length) {
        throw new Error(`Answers the OpenAPI document does not declare (fix the service or the document, see docs/openapi.md):\n${violations.join('\n')}`);
      }
    },
  };
}

/**
 * For tests that count statements: no webhook delivery rounds (they poll every WEBHOOK_POLL_MS on
 * the same data source) and no dashboard summary builds, so every statement counted is the request's own.
 */
export const NO_BACKGROUND_ROUNDS = { WEBHOOKS: 'off', DASHBOARD_SUMMARIES: 'off' } as const;

/**
 * Runs `fn` and records the SQL statements the app's data source sends meanwhile, in order: every
 * statement, through TypeORM's query runners or the raw reader, goes through its query logger.
 * A background worker's look for work (TenantDb.pollRead: the summary builder's every 500 ms, the
 * webhook claim's) is left out, since it lands in any window; work it then finds is not.
 */
export async function statementsOf<R>(t: TestApp, fn: () => Promise<R>): Promise<{ result: R; statements: string[] }> {
  const logger = t.ds.logger;
  const original = logger.logQuery;
  const db = t.app.get(TenantDb);
  const pollRead = db.pollRead;
  let polling = false;
  // The raw reader logs its statement synchronously, before its first await.
  db.pollRead = function (this: TenantDb, ...args: Parameters<TenantDb['pollRead']>) {
    polling = true;
    try {
      return pollRead.apply(this, args);
    } finally {
      polling = false;
    }
  } as TenantDb['pollRead'];
  const statements: string[] = [];
  logger.logQuery = function (this: unknown, ...args: Parameters<typeof original>) {
    if (!polling) statements.push(args[0]);
    return original.apply(this, args);
  };
  try {
    return { result: await fn(), statements };
  } finally {
    logger.logQuery = original;
    db.pollRead = pollRead;
  }
}

/** Runs `fn` and counts the SQL statements the app's data source sends meanwhile (see statementsOf). */
export async function countStatements<R>(t: TestApp, fn: () => Promise<R>): Promise<{ result: R; statements: number }> {
  const { result, statements } = await statementsOf(t, fn);
  return { result, statements: statements.length };
}

/** `Authorization: Bearer …` header value. */
export const bearer = (token: string) => `Bearer ${token}`;

/** Parses an XML answer into the same plain shape the service reads (for assertions). */
export { WireCodec } from '../../src/common/http/codec.js';
