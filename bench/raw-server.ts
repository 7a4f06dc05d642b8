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
 *
 * Started by bench.ts as its own process; prints `listening <port>` on stdout.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import { parseDatabaseUrl } from '../src/config/config.js';

const BY_ID = 'SELECT * FROM individuals WHERE site_id = ? AND id = ?';
const PAGE = (limit: number) => `SELECT * FROM individuals WHERE site_id = ? AND deleted = 0 ORDER BY last_name, first_name, id LIMIT ${limit}`;

type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;
/** Runs the statements in one transaction (one connection, BEGIN … COMMIT). */
type Write = (statements: [string, unknown[]][]) => Promise<void>;

const INSERT_COMMENT =
  'INSERT INTO comments (id, site_id, created, created_by, updated, updated_by, version, ancestor_id, ancestor_type, body, author_id, deleted, deleted_by_ref) ' +
  'VALUES (?, ?, ?, NULL, ?, NULL, 1, ?, ?, ?, NULL, 0, 0)';

async function connect(url: string): Promise<{ query: Query; write: Write }> {
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
    query: (sql, params) =>
      new Promise((resolve, reject) => pool.execute(sql, params as never[], (err, rows) => (err ? reject(err) : resolve(rows as Record<string, unknown>[])))),
    write: async (list) => {
      const c = await promised.getConnection();
      try {
        await c.query('BEGIN');
        for (const [sql, params] of list) await c.execute(sql, params as never[]);
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
  const { query, write } = await connect(process.env.DATABASE_URL ?? '');
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const site = url.searchParams.get('site') ?? '';
    const m = /^\/individuals(?:\/([0-9a-f-]{36}))?$/.exec(url.pathname);
    const comment = req.method === 'POST' && url.pathname === '/comments';
    if (comment) req.resume();
    const now = new Date();
    const id = randomUUID();
    const answer = comment
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
