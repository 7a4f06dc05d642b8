/**
 * The benchmark's yardstick: the least a server can do to answer the same reads, a bare
 * `node:http` server with `mysql2` prepared statements (or better-sqlite3 with the --sqlite flag)
 * on the same tables, with the same pool size as the service. No framework, no auth, no
 * decorations: every figure of the benchmark is a ratio to this server in the same run.
 *
 *   GET /individuals/{id}?site={siteId}          SELECT * … WHERE site_id = ? AND id = ?
 *   GET /individuals?site={siteId}&limit=500     the first page in the service's order
 *   POST /comments?site={siteId}&on={individualId} (the write limit) one comment row inserted in a
 *                                                transaction: BEGIN, INSERT, COMMIT; answers its id
 *   POST /individuals/bulk?site={siteId}         (the bulk limit) a JSON array of people (ExternalID,
 *                                                FirstName, LastName, Email, PrimaryOrganizationID,
 *                                                PrimaryTitle) upserted by (site_id, external_id) with
 *                                                multi-row INSERTs of 500, each in its own transaction;
 *                                                answers how many rows
 *   GET /individuals.csv?site={siteId}           (the export limit) every live individual of the site
 *                                                in the list's order, one streamed SELECT piped through
 *                                                csv-stringify into the answer (backpressure kept)
 *
 * Started by bench.ts as its own process; prints `listening <port>` on stdout.
 */
import http from 'node:http';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { parseDatabaseUrl } from '../src/config/config.js';
import { newRecordId } from '../src/common/ids.js';
import { BULK_CHUNK, UPSERT, upsertValues, type BulkPerson } from './bulk-limit-sql.js';

const BY_ID = 'SELECT * FROM individuals WHERE site_id = ? AND id = ?';
const PAGE = (limit: number) => `SELECT * FROM individuals WHERE site_id = ? AND deleted = 0 ORDER BY last_name, first_name, id LIMIT ${limit}`;

type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;
/** Runs the statements in one transaction (one connection, BEGIN … COMMIT). */
type Write = (statements: [string, unknown[]][]) => Promise<void>;

const INSERT_COMMENT =
  'INSERT INTO comments (id, site_id, created, created_by, updated, updated_by, version, ancestor_id, ancestor_type, body, author_id, deleted, deleted_by_ref) ' +
  'VALUES (?, ?, ?, NULL, ?, NULL, 1, ?, ?, ?, NULL, 0, 0)';

/** The bulk limit: the people upserted in chunks of BULK_CHUNK, one multi-row statement and transaction each. */
async function bulkUpsert(write: Write, sqlite: boolean, site: string, people: BulkPerson[]): Promise<number> {
  const now = new Date();
  for (let i = 0; i < people.length; i += BULK_CHUNK) {
    const chunk = people.slice(i, i + BULK_CHUNK);
    // The service's own record IDs (src/common/ids.ts): the same rows, ordered by the time they were made.
    const params = chunk.flatMap((p) => upsertValues(newRecordId(), site, now, p));
    await write([[UPSERT(chunk.length, sqlite), params]]);
  }
  return people.length;
}

function bodyOf(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/** The site's live individuals in the list's order, as a stream of rows. */
const EVERY = 'SELECT * FROM individuals WHERE site_id = ? AND deleted = 0 ORDER BY last_name, first_name, id';
type Rows = (sql: string, params: unknown[]) => Readable;

/** The export limit: the rows as CSV (a header row of the column names), streamed. */
async function exportCsv(rows: Rows, site: string, res: http.ServerResponse): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'text/csv; charset=utf-8' });
  await pipeline(rows(EVERY, [site]), stringify({ header: true, record_delimiter: 'windows', cast: { date: (d) => d.toISOString() } }), res);
}

async function connect(url: string): Promise<{ query: Query; write: Write; rows: Rows; sqlite: boolean }> {
  const db = parseDatabaseUrl(url);
  if (db.kind === 'sqlite') {
    interface Statement {
      all(...params: unknown[]): unknown[];
    }
    interface Conn {
      prepare(sql: string): Statement & { run(...params: unknown[]): unknown };
      transaction(fn: () => void): () => void;
      pragma(s: string): unknown;
    }
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => Conn;
    const conn = new Database(db.file);
    conn.pragma('busy_timeout = 5000');
    const statements = new Map<string, ReturnType<Conn['prepare']>>();
    const prepared = (sql: string) => {
      let s = statements.get(sql);
      if (!s) statements.set(sql, (s = conn.prepare(sql)));
      return s;
    };
    return {
      sqlite: true,
      rows: (sql, params) => Readable.from((prepared(sql) as unknown as { iterate(...p: unknown[]): Iterable<unknown> }).iterate(...params.map(sqliteValue))),
      query: (sql, params) => Promise.resolve(prepared(sql).all(...params.map(sqliteValue)) as Record<string, unknown>[]),
      write: (list) => {
        conn.transaction(() => list.forEach(([sql, params]) => prepared(sql).run(...params.map(sqliteValue))))();
        return Promise.resolve();
      },
    };
  }
  const mysql = await import('mysql2');
  const pool = mysql.createPool({
    host: db.host,
    port: db.port,
    user: db.username,
    password: db.password,
    database: db.database,
    connectionLimit: 10,
    timezone: 'Z',
    charset: 'utf8mb4_unicode_ci',
  });
  const promised = pool.promise();
  return {
    sqlite: false,
    rows: (sql, params) => pool.query(sql, params).stream({ highWaterMark: 1000 }),
    query: (sql, params) =>
      new Promise((resolve, reject) => pool.execute(sql, params as never[], (err, rows) => (err ? reject(err) : resolve(rows as Record<string, unknown>[])))),
    write: async (list) => {
      const c = await promised.getConnection();
      try {
        await c.query('BEGIN');
        // A multi-row INSERT's text changes with its row count: sent as text, not prepared.
        for (const [sql, params] of list) await (sql.startsWith('INSERT INTO individuals') ? c.query(sql, params) : c.execute(sql, params as never[]));
        await c.query('COMMIT');
      } catch (e) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        c.release();
      }
    },
  };
}

/** better-sqlite3 binds neither Date nor boolean. */
const sqliteValue = (v: unknown) => (v instanceof Date ? v.toISOString().replace('T', ' ').replace('Z', '') : typeof v === 'boolean' ? Number(v) : v);

async function main(): Promise<void> {
  const { query, write, rows, sqlite } = await connect(process.env.DATABASE_URL ?? '');
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const site = url.searchParams.get('site') ?? '';
    if (url.pathname === '/individuals.csv') {
      exportCsv(rows, site, res).catch((err: unknown) => {
        process.stderr.write(`raw server: ${String(err)}\n`);
        res.destroy();
      });
      return;
    }
    const m = /^\/individuals(?:\/([0-9a-f-]{36}))?$/.exec(url.pathname);
    const comment = req.method === 'POST' && url.pathname === '/comments';
    const bulk = req.method === 'POST' && url.pathname === '/individuals/bulk';
    if (comment) req.resume();
    const now = new Date();
    const id = newRecordId();
    const answer = bulk
      ? bodyOf(req).then(async (text) => ({ rows: await bulkUpsert(write, sqlite, site, JSON.parse(text) as BulkPerson[]) }))
      : comment
        ? write([[INSERT_COMMENT, [id, site, now, now, url.searchParams.get('on') ?? '', 'individuals', 'A comment from the yardstick']]]).then(() => ({ id }))
        : m?.[1]
          ? query(BY_ID, [site, m[1]]).then((rows) => rows[0])
          : m
            ? query(PAGE(Math.min(500, Number.parseInt(url.searchParams.get('limit') ?? '500', 10) || 500)), [site])
            : null;
    if (!answer) {
      res.writeHead(404).end();
      return;
    }
    answer.then(
      (value) => {
        if (value === undefined) return void res.writeHead(404).end();
        const body = JSON.stringify(value);
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) }).end(body);
      },
      (err: unknown) => {
        process.stderr.write(`raw server: ${String(err)}\n`);
        res.writeHead(500).end();
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

main().catch((e: unknown) => {
  process.stderr.write(`raw server: ${String(e)}\n`);
  process.exit(1);
});
