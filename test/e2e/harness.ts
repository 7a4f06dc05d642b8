import type { INestApplication } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { getDataSourceToken } from '@nestjs/typeorm';
import { createApp } from '../../src/app.factory.js';
import type { BuiltDocuments } from '../../src/openapi/openapi.js';
import type { AddedFeature } from '../../src/app.module.js';
import { AppConfig, loadConfig, parseDatabaseUrl } from '../../src/config/config.js';
import { JsonLogger } from '../../src/common/logging/json-logger.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { ContractRecorder, xmlRootsOf } from './contract.js';
import { XSD_BASE, XSD_FILES } from '../../src/openapi/xsd.js';
import { PRISM, serveAt, startPrism } from './prism.js';
import { copyTemplate, sqliteTemplateFile, templateDatabase, testDatabasePrefix } from './migrated-template.js';
import { isMysqlUrl } from '../template-name.mjs';

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
export const DB_KIND = isMysqlUrl(process.env.DATABASE_URL) ? 'mysql' : 'sqlite';

/**
 * A database of its own for a test file: a fresh SQLite file in a temp folder, or, when
 * DATABASE_URL names a MySQL/MariaDB server, a database created for it; `cleanup` drops it.
 * `migrated` (in a Jest run): the database starts as a copy of the run's migrated template
 * (test/e2e/migrated-template.ts) instead of empty.
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<{ url: string; cleanup: () => Promise<void> }> {
  const suffix = randomBytes(5).toString('hex');
  if (DB_KIND === 'mysql') {
    const base = parseDatabaseUrl(process.env.DATABASE_URL!);
    if (base.kind !== 'mysql') throw new Error('unreachable');
    const name = `${testDatabasePrefix(base.database)}_${suffix}`;
    // Loaded here: a run on SQLite never loads the MySQL driver.
    const { default: mysql } = await import('mysql2/promise');
    const admin = await mysql.createConnection({ host: base.host, port: base.port, user: base.username, password: base.password, multipleStatements: true });
    const urlOf = (database: string) => {
      const u = new URL(process.env.DATABASE_URL!);
      u.pathname = `/${database}`;
      return u.toString();
    };
    try {
      await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      // startApp's database: a copy of the run's migrated template (test/e2e/migrated-template.ts).
      const template = options.migrated ? templateDatabase(process.env.DATABASE_URL, process.env.PMS_E2E_DOCUMENTS) : null;
      if (template) await copyTemplate(admin, template, name, urlOf);
    } finally {
      await admin.end();
    }
    return {
      url: urlOf(name),
      cleanup: async () => {
        const c = await mysql.createConnection({ host: base.host, port: base.port, user: base.username, password: base.password });
        await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'pms-e2e-'));
  const file = join(dir, 'pms.sqlite');
  // startApp's database: a copy of the run's migrated template file (test/e2e/migrated-template.ts).
  const template = options.migrated ? sqliteTemplateFile(process.env.PMS_E2E_DOCUMENTS) : null;
  if (template) copyFileSync(await template, file);
  return { url: `sqlite:${file}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The documents every answer of a test app is checked against when it closes. Building them costs
 * an app about a second (@nestjs/swagger scans every route), and every app of one run with the same
 * settings and no added feature answers the same ones: the first such app's are kept for the run in
 * the folder the run's global setup made (test/documents-setup.mjs, PMS_E2E_DOCUMENTS), keyed by
 * the settings the test gave, and every later app with those settings is handed them at its start
 * (createApp's `documents`), so it serves them without building them again. An app with an added
 * feature, or a run without that folder, builds and answers its own.
 */
function documentsKey(env: Record<string, string>, added: readonly AddedFeature[]): string | null {
  const folder = process.env.PMS_E2E_DOCUMENTS;
  if (!folder || added.length > 0 || !existsSync(folder)) return null;
  const key = createHash('sha256')
    .update(JSON.stringify(Object.entries(env).sort(([a], [b]) => a.localeCompare(b))))
    .digest('hex')
    .slice(0, 32);
  return join(folder, `${key}.json`);
}

/** The documents kept for a key, read once a test file (its apps then share one object, and the contract check's compiled schemas). */
const kept = new Map<string, BuiltDocuments>();
function keptDocuments(file: string | null): BuiltDocuments | undefined {
  if (!file) return undefined;
  let documents = kept.get(file);
  if (!documents && existsSync(file)) {
    documents = JSON.parse(readFileSync(file, 'utf8')) as BuiltDocuments;
    kept.set(file, documents);
  }
  return documents;
}

async function documentsOf(http: () => ReturnType<typeof request>, file: string | null): Promise<BuiltDocuments> {
  const known = keptDocuments(file);
  if (known) return known;
  const openapi = (await http().get('/docs/openapi.json').expect(200)).body as BuiltDocuments['openapi'];
  const xsd: Record<string, string> = {};
  for (const name of [XSD_FILES.main, XSD_FILES.system, XSD_FILES.problem]) xsd[name] = (await http().get(`${XSD_BASE}${name}`).expect(200)).text;
  const documents = { openapi, xsd };
  if (!file) return documents;
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(partial, JSON.stringify(documents));
  renameSync(partial, file);
  kept.set(file, documents);
  return documents;
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
 * dropped by close(). Migrations run exactly as at production start-up, once a run on each database,
 * for the template each app's database is copied from (test/e2e/migrated-template.ts;
 * E2E_MIGRATE_EACH=1 migrates on every start); each app's start then finds none pending. `added`: features composed
 * into the app besides its own (a test's throwaway resource, test/fixtures).
 */
export async function startApp(env: Record<string, string> = {}, added: readonly AddedFeature[] = []): Promise<TestApp> {
  const { url: databaseUrl, cleanup } = await createTestDatabase({ migrated: true });
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
    // Every request spends from the budgets and is announced (docs/limits.md), but the suites' bursts
    // from one token are not refused; test/e2e/request-budgets.e2e-spec.ts sets small budgets.
    RATE_LIMIT_PER_CALLER: '1000000000',
    RATE_LIMIT_PER_SITE: '1000000000',
    // New password hashes at scrypt's lowest admitted cost: the suites create and log in thousands
    // of people, and at the default cost hashing was over a third of their CPU (docs/operations.md).
    PASSWORD_SCRYPT_COST: '1024',
    ...env,
  });
  const logs: string[] = [];
  const logger = new JsonLogger(config.logLevel, (line) => {
    logs.push(line);
    if (process.env.E2E_LOG) process.stdout.write(line + '\n');
  });
  const documentsFile = documentsKey(env, added);
  let app: INestApplication;
  try {
    // A copy of its own: nothing an app does to its document reaches another's.
    const known = keptDocuments(documentsFile);
    app = await createApp(config, logger, { added, documents: known && structuredClone(known) });
  } catch (e) {
    await cleanup();
    throw e;
  }
  // Every answer of this app is checked against its OpenAPI document when the test file closes it.
  const contract = new ContractRecorder();
  contract.attach(app.getHttpServer());
  const direct = () => request(app.getHttpServer());
  // With PRISM=1 every request goes through Stoplight Prism's validating proxy (test/e2e/prism.ts) on
  // the document of the app's settings (built once a run for each, as for the contract check).
  const served = PRISM ? await serveAt(app.getHttpServer()) : null;
  const prism = served ? await startPrism(served.url, JSON.stringify((await documentsOf(direct, documentsFile)).openapi)) : null;
  const http = prism ? () => request(prism.url) : direct;
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
      const documents = await documentsOf(direct, documentsFile);
      const document = documents.openapi as unknown as Record<string, unknown>;
      const violations = contract.violations(document);
      // Every XML answer against the app's XML Schema (and its root against the document): docs/openapi.md.
      try {
        violations.push(
          ...(await contract.xml.violations(
            async () => documents.xsd,
            (answer) => xmlRootsOf(document, answer),
          )),
        );
      } catch (e) {
        violations.push(`The XML answers could not be validated: ${(e as Error).message}`);
      }
      if (prism) {
        await prism.close();
        await served!.close();
        violations.push(...prism.findings);
      }
      await app.close();
      await cleanup();
      if (violations.length) {
        throw new Error(
          `Answers the OpenAPI document or the XML Schema does not declare (fix the service, the document or the schema, see docs/openapi.md):\n${violations.join('\n')}`,
        );
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
export async function statementsOf<R>(t: TestApp, fn: () => Promise<R>): Promise<{ result: R; statements: string[]; parameters: unknown[][] }> {
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
  /** Each statement's parameters, in the same order. */
  const parameters: unknown[][] = [];
  logger.logQuery = function (this: unknown, ...args: Parameters<typeof original>) {
    if (!polling) {
      statements.push(args[0]);
      parameters.push([...((args[1] as unknown[] | undefined) ?? [])]);
    }
    return original.apply(this, args);
  };
  try {
    return { result: await fn(), statements, parameters };
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
export { WireCodec } from '../../src/http/wire/codec.js';
