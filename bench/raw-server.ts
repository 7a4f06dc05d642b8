/**
 * The benchmark's yardstick: the least a server can do to answer the same reads, a bare
 * `node:http` server with `mysql2` prepared statements (or better-sqlite3 with the --sqlite flag)
 * on the same tables, with the same pool size as the service. No framework, no auth, no
 * decorations: every figure of the benchmark is a ratio to this server in the same run.
 *
 *   GET /individuals/{id}?site={siteId}          SELECT * … WHERE site_id = ? AND id = ?
 *   GET /individuals?site={siteId}&limit=500     the first page in the service's order
 *
 * Started by bench.ts as its own process; prints `listening <port>` on stdout.
 */
import http from 'node:http';
import { createRequire } from 'node:module';
import { parseDatabaseUrl } from '../src/config/config.js';

const BY_ID = 'SELECT * FROM individuals WHERE site_id = ? AND id = ?';
const PAGE = (limit: number) => `SELECT * FROM individuals WHERE site_id = ? AND deleted = 0 ORDER BY last_name, first_name, id LIMIT ${limit}`;

type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

async function connect(url: string): Promise<Query> {
  const db = parseDatabaseUrl(url);
  if (db.kind === 'sqlite') {
    interface Statement {
      all(...params: unknown[]): unknown[];
    }
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string, opts: { readonly: boolean }) => { prepare(sql: string): Statement };
    const conn = new Database(db.file, { readonly: true });
    const statements = new Map<string, Statement>();
    return (sql, params) => {
      let s = statements.get(sql);
      if (!s) statements.set(sql, (s = conn.prepare(sql)));
      return Promise.resolve(s.all(...params) as Record<string, unknown>[]);
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
  return (sql, params) =>
    new Promise((resolve, reject) => pool.execute(sql, params as never[], (err, rows) => (err ? reject(err) : resolve(rows as Record<string, unknown>[]))));
}

async function main(): Promise<void> {
  const query = await connect(process.env.DATABASE_URL ?? '');
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const site = url.searchParams.get('site') ?? '';
    const m = /^\/individuals(?:\/([0-9a-f-]{36}))?$/.exec(url.pathname);
    const answer = m?.[1]
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
