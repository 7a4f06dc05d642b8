import type { DataSource } from 'typeorm';
import { againIfLost, LOST_CONNECTION_RETRIES } from './bounded-mysql.js';
import type { Statement } from './statements.js';

type RowsCallback = (err: Error | null, rows: unknown) => void;
type MysqlCall = (options: { sql: string; timeout?: number }, params: unknown[], cb: RowsCallback) => void;
/** mysql2's prepared statement (PreparedStatementInfo): executes by its server-side id. */
export interface MysqlStatement {
  execute(params: unknown[], cb: RowsCallback): unknown;
}
export interface MysqlConnection {
  prepare(sql: string, cb: (err: Error | null, statement: MysqlStatement) => void): unknown;
  query: MysqlCall;
  release(): void;
  destroy(): void;
}
export interface MysqlPool {
  getConnection(cb: (err: Error | null, conn: MysqlConnection) => void): void;
}

/**
 * The statements each pooled connection has prepared for RawReader, by SQL text. Kept per
 * connection object, so a connection that is closed takes its statements with it; the texts are
 * the callers' constants, a bounded set (a varying text passes `prepare: false`).
 */
const prepared = new WeakMap<MysqlConnection, Map<string, MysqlStatement>>();

function statementsOf(conn: MysqlConnection): Map<string, MysqlStatement> {
  let statements = prepared.get(conn);
  if (!statements) prepared.set(conn, (statements = new Map()));
  return statements;
}

/** What mysql2 answers when a statement's client-side timeout fires; bounded-mysql.ts knows it too. */
function inactivityTimeout(): Error {
  return Object.assign(new Error('Query inactivity timeout'), { code: 'PROTOCOL_SEQUENCE_TIMEOUT', fatal: true });
}

/**
 * Runs a prepared statement on one pool connection: prepared once per connection, then executed
 * by its id. mysql2's own `pool.execute` does the same, but on every call it copies its options,
 * builds its statement-cache key from the whole SQL text (a new string, hashed again each time),
 * looks that key up in an LRU and queues a prepare command before the execute. A by-id read took
 * 165 µs of CPU that way and takes 130 µs this way (docs/performance.md, "One statement per
 * read"). The client-side query timeout is kept: when it fires, the connection is closed (its
 * state is unknown) and the read fails as mysql2's would.
 */
export function executePrepared(pool: MysqlPool, sql: string, params: unknown[], timeout: number | undefined, cb: RowsCallback): void {
  // mysql2 throws on an undefined parameter while it writes the statement, after the command has
  // taken the connection, and treats that as fatal: the pooled connection would be closed for a
  // caller's mistake. Refused before one is taken, as mysql2's own `execute` does.
  if (params.includes(undefined)) {
    cb(new TypeError('Bind parameters must not contain undefined. To pass SQL NULL specify JS null'), undefined);
    return;
  }
  pool.getConnection((err, conn) => {
    if (err) {
      cb(err, undefined);
      return;
    }
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (e: Error | null, rows?: unknown) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      conn.release();
      cb(e, rows);
    };
    const known = statementsOf(conn);
    const run = (statement: MysqlStatement) => {
      if (timeout) {
        timer = setTimeout(() => {
          conn.destroy();
          finish(inactivityTimeout());
        }, timeout);
      }
      statement.execute(params, (e, rows) => {
        // mysql2 closes a connection's statements beyond its own cache's bound: prepare anew next time.
        if ((e as { code?: string } | null)?.code === 'ER_UNKNOWN_STMT_HANDLER') known.delete(sql);
        finish(e, rows);
      });
    };
    const statement = known.get(sql);
    if (statement) {
      run(statement);
      return;
    }
    conn.prepare(sql, (e, made) => {
      if (e) return finish(e);
      known.set(sql, made);
      run(made);
    });
  });
}

/**
 * mysql2's errors of a server that has turned read-only (1290 ER_OPTION_PREVENTS_STATEMENT, which
 * Aurora answers during a failover; 1792 ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION; 1836
 * ER_READ_ONLY_MODE): its connection is closed, as mysql2's own `pool.query` closes it.
 */
const READ_ONLY_ERRNOS = new Set([1290, 1792, 1836]);

/**
 * Runs a statement on one pool connection, released when it is answered (closed when the server
 * has turned read-only): what mysql2's `pool.query` does, without the closure `pool.query` wraps
 * each query's callback in. Something in the old generation still refers to that closure after
 * its query, and through it to the query and its rows, so every answer's rows stayed alive through
 * the young generation's collections: reading 100,000 people a page of 1,000 at a time, 12–30 MB
 * were copied and promoted at every scavenge, and the reads took 0.41–0.46 s against 0.23–0.26 s
 * this way (docs/performance.md, "Rows that die young").
 */
export function queryPooled(pool: MysqlPool, sql: string, params: unknown[], timeout: number | undefined, cb: RowsCallback): void {
  pool.getConnection((err, conn) => {
    if (err) {
      cb(err, undefined);
      return;
    }
    conn.query({ sql, timeout }, params, (e, rows) => {
      if (READ_ONLY_ERRNOS.has((e as { errno?: number } | null)?.errno ?? 0)) conn.destroy();
      else conn.release();
      cb(e, rows);
    });
  });
}

interface SqliteStatement {
  all(...params: unknown[]): unknown[];
}
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}

/**
 * A lower-level read path for the hottest reads (docs/performance.md): one hand-written SQL
 * statement, run as a prepared statement on the driver TypeORM already holds (mysql2's pool, each
 * connection preparing the statement once, or better-sqlite3's connection), without building a query,
 * creating a query runner or hydrating entities. Same pool, same query timeout
 * (DB_QUERY_TIMEOUT_MS), same query logger as every other query. Tenancy is the caller's SQL's to
 * state (`site_id = ?`); use it only where TenantDb's scoped repositories are too slow.
 */
export class RawReader {
  private readonly statements = new Map<string, SqliteStatement>();
  readonly kind: 'mysql' | 'sqlite';

  private constructor(private readonly ds: DataSource) {
    this.kind = ds.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql';
  }

  /** The reader of a data source (made once per data source). */
  static of(ds: DataSource): RawReader {
    let reader = readers.get(ds);
    if (!reader) readers.set(ds, (reader = new RawReader(ds)));
    return reader;
  }

  /** The rows of a statement (statements.ts): prepared per connection when it is a fixed text. */
  rows<R>(statement: Statement<R>, params: readonly unknown[]): Promise<R[]> {
    return this.read<R>(statement.text, params, statement.prepare);
  }

  /**
   * The rows of a SELECT; `?` placeholders on both databases; booleans are passed as 0/1. A
   * statement whose text varies (an `IN` list of any length) passes `prepare` false: MySQL keeps
   * prepared statements per connection, up to a server-wide limit (max_prepared_stmt_count). For
   * the kept statements of simple finds (kept-sql.ts); everything else runs named statements (`rows`).
   */
  read<T>(sql: string, params: readonly unknown[], prepare = true): Promise<T[]> {
    this.ds.logger.logQuery(sql, params as unknown[]);
    if (this.kind === 'sqlite') {
      try {
        let statement = this.statements.get(sql);
        if (!statement) {
          statement = (this.ds.driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection.prepare(sql);
          // A text that varies (an IN list's length) is prepared for this call only.
          if (prepare) this.statements.set(sql, statement);
        }
        return Promise.resolve(statement.all(...params) as T[]);
      } catch (e) {
        return Promise.reject(e as Error);
      }
    }
    const options = this.ds.options as { enableQueryTimeout?: boolean; maxQueryExecutionTime?: number };
    const timeout = options.enableQueryTimeout && options.maxQueryExecutionTime ? options.maxQueryExecutionTime : undefined;
    const pool = (this.ds.driver as unknown as { pool: MysqlPool }).pool;
    const values = params as unknown[];
    return new Promise((resolve, reject) => {
      // Every statement here is a read outside a transaction: one whose pooled connection was
      // closed under it goes again on another connection (bounded-mysql.ts, docs/operations.md).
      const attempt = (retriesLeft: number) => {
        const done: RowsCallback = (err, rows) => {
          if (!err) resolve(rows as T[]);
          else if (!againIfLost(err, retriesLeft, attempt)) reject(err);
        };
        if (!prepare) queryPooled(pool, sql, values, timeout, done);
        else executePrepared(pool, sql, values, timeout, done);
      };
      attempt(LOST_CONNECTION_RETRIES);
    });
  }
}

/** A write statement's rows changed, from either driver's answer (mysql2's affectedRows, TypeORM's SQLite `[rows, changes]`). */
export function affectedOf(res: unknown): number {
  if (Array.isArray(res) && typeof res[1] === 'number') return res[1];
  const r = res as { affectedRows?: number; affected?: number; changes?: number } | null;
  return Number(r?.affectedRows ?? r?.affected ?? r?.changes ?? 0);
}

const readers = new WeakMap<DataSource, RawReader>();

/** A datetime column as a Date: MySQL gives Dates, SQLite 'YYYY-MM-DD HH:MM:SS.SSS' strings (UTC). */
export function dateOf(v: Date | string | null | undefined): Date | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v;
  return new Date(v.includes('T') ? v : v.replace(' ', 'T') + 'Z');
}

/** A boolean column: MySQL tinyint and SQLite integers come back as 0/1. */
export function boolOf(v: unknown): boolean {
  return v === true || v === 1 || v === '1';
}
