// What a refactoring that should change nothing must leave as it was, written to files to compare
// before and after (docs/architecture.md, "Floors"):
//
//   npm run build && node scripts/surface-dump.mjs <out-dir> [--mysql mysql://root@127.0.0.1:3306]
//   … change, build again, dump to another folder …
//   diff -r <before> <after>
//
// Writes, from the compiled tree (dist/) of the repository it stands in:
//   openapi.json       the OpenAPI document as served, byte for byte
//   routes.txt         every controller route in the order it is registered, with its access rule
//   entity-fields.txt  each entity's columns in metadata order, bookkeeping left out (the order of an
//                      audit entry's field changes)
//   entities.txt       each entity's columns in metadata order
//   sqlite.sql         `sqlite3 .schema` of a freshly migrated SQLite file, and the migrations recorded
//   mysql.sql          with --mysql: `mysqldump --no-data` of a freshly migrated database on that
//                      server (created and dropped here), and the migrations recorded
// Needs the sqlite3 command line shell, and mysql and mysqldump for --mysql.
import { execFileSync } from 'node:child_process';
import { get } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const at = args.indexOf('--mysql');
const mysqlUrl = at >= 0 ? args.splice(at, 2)[1] : null;
const [out] = args;
if (!out) {
  console.error('usage: node scripts/surface-dump.mjs <out-dir> [--mysql mysql://user@host:port]');
  process.exit(2);
}
mkdirSync(out, { recursive: true });

const load = (path) => import(pathToFileURL(join(root, 'dist/src', path)).href);
await import('reflect-metadata');
const { getDataSourceToken } = await import('@nestjs/typeorm');
const { createApp } = await load('app.factory.js');
const { loadConfig } = await load('config/config.js');
const { JsonLogger } = await load('common/logging/json-logger.js');
const { ACCESS_KEY } = await load('auth/access.decorators.js');
const { createDataSource } = await load('database/data-source.js');

const env = (url) => ({
  NODE_ENV: 'test',
  DATABASE_URL: url,
  JWT_SECRET: 'x'.repeat(64),
  ADMIN_USERNAME: 'admin',
  ADMIN_PASSWORD: 'admin-password-1',
  LOG_LEVEL: 'error',
  WEBHOOKS: 'off',
});
const fetchBody = (url) =>
  new Promise((done, fail) =>
    get(url, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => done(Buffer.concat(chunks)));
    }).on('error', fail),
  );
const BOOKKEEPING = new Set(['siteId', 'created', 'createdBy', 'updated', 'updatedBy', 'version', 'lastCommentId']);
const columnsOf = (ds, keep) =>
  ds.entityMetadatas
    .map(
      (m) =>
        `${m.tableName}: ${m.columns
          .map((c) => c.propertyName)
          .filter(keep)
          .join(' ')}`,
    )
    .sort()
    .join('\n') + '\n';

// SQLite: the app migrates at start-up; the document, the routes and the entities come from the same app.
const dir = mkdtempSync(join(tmpdir(), 'surface-'));
try {
  const file = join(dir, 'pms.sqlite');
  const app = await createApp(loadConfig(env(`sqlite:${file}`)), new JsonLogger('error'));
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address();
  writeFileSync(join(out, 'openapi.json'), await fetchBody(`http://127.0.0.1:${port}/docs/openapi.json`));
  const routes = app.getHttpAdapter().recorded.map((r) => `${r.method.padEnd(6)} ${r.path.padEnd(70)} ${Reflect.getMetadata(ACCESS_KEY, r.handler) ?? '-'}`);
  writeFileSync(join(out, 'routes.txt'), routes.join('\n') + '\n');
  const ds = app.get(getDataSourceToken());
  writeFileSync(
    join(out, 'entities.txt'),
    columnsOf(ds, () => true),
  );
  writeFileSync(
    join(out, 'entity-fields.txt'),
    columnsOf(ds, (p) => !BOOKKEEPING.has(p)),
  );
  await app.close();
  const recorded = execFileSync('sqlite3', [file, 'select timestamp, name from schema_migrations order by id']);
  writeFileSync(join(out, 'sqlite.sql'), Buffer.concat([execFileSync('sqlite3', [file, '.schema']), recorded]));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// MySQL/MariaDB: a database of its own, migrated as `npm run migrate` does, dumped, dropped.
if (mysqlUrl) {
  const server = new URL(mysqlUrl);
  const client = ['-u', decodeURIComponent(server.username || 'root'), '-h', server.hostname, '-P', server.port || '3306'];
  if (server.password) client.push(`-p${decodeURIComponent(server.password)}`);
  const name = `pms_surface_${process.pid}`;
  const sql = (statement) => execFileSync('mysql', [...client, '-e', statement]);
  sql(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  try {
    server.pathname = `/${name}`;
    const ds = await createDataSource(loadConfig(env(server.toString())));
    await ds.initialize();
    await ds.runMigrations();
    const recorded = (await ds.query('SELECT timestamp, name FROM schema_migrations ORDER BY id')).map((r) => `${r.timestamp}|${r.name}`).join('\n');
    await ds.destroy();
    const dump = execFileSync('mysqldump', [...client, '--no-data', '--skip-dump-date', '--skip-comments', name]).toString();
    writeFileSync(join(out, 'mysql.sql'), `${dump.replace(/ AUTO_INCREMENT=\d+/g, '')}\n${recorded}\n`);
  } finally {
    sql(`DROP DATABASE IF EXISTS ${name}`);
  }
}
process.exit(0);
