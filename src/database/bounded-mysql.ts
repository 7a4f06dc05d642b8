import { createRequire } from 'node:module';
import type mysql2 from 'mysql2';
import { isLostConnection, isPlainRead } from '../common/errors/db-errors.js';

/**
 * mysql2 as TypeORM's MySQL driver, with the bounds a stalled or slow database needs
 * (docs/operations.md, "When the database is slow or gone"):
 *
 * - **Acquire timeout.** mysql2's pool queues a request for a connection without limit in time
 *   (its `acquireTimeout` is not implemented in 3.x), so a stalled database made every request
 *   behind the pool wait for the whole stall. Here a caller waits at most `acquireTimeoutMs`,
 *   then gets a `POOL_ACQUIRE_TIMEOUT` error (answered 503); a connection that arrives after
 *   its caller gave up goes straight back to the pool.
 * - **Server-side statement limit.** Every new connection sets the session's statement limit
 *   (MariaDB `max_statement_time`, any statement; MySQL `max_execution_time`, SELECT only, plus
 *   lock-wait limits for writes), so a statement the service has given up on does not keep
 *   running on the database.
 * - **No reuse after a client-side timeout.** When mysql2's own query timeout fires (the server
 *   did not answer even its own limit), the connection's state is unknown and later commands
 *   would queue behind the lost one: it is destroyed instead of going back to the pool.
 * - **Read-your-writes on Galera.** On MariaDB every connection also sets `wsrep_sync_wait`
 *   (DB_SYNC_WAIT, 1 by default): on a Galera node a read first waits until the node has applied
 *   every transaction the cluster committed before it, so a request (or the next one) reads what
 *   it just wrote through another node, and a replica told of a change by the InvalidationBus
 *   reads the new row. Without Galera the setting has no effect (docs/scaling.md).
 * - **A read survives a dropped connection.** A database proxy that takes a node out of service
 *   closes the sessions it carried (HAProxy's `on-marked-down shutdown-sessions`), and a server
 *   restarting does the same: every statement in flight on those pooled connections fails with a
 *   lost connection although the database as a whole still answers. A plain read outside a
 *   transaction (isPlainRead) that fails so is run again on another connection of the pool, at
 *   most LOST_CONNECTION_RETRIES times; a write, a locking read and anything inside a transaction
 *   are never run again here (their outcome is unknown, or their transaction is gone) and answer
 *   503 as before.
 * - **A transaction's BEGIN rides with its first statement.** TypeORM sends `START TRANSACTION`
 *   alone, one round trip that carries nothing. Here it is answered at once and sent in front of
 *   the transaction's first statement instead (`START TRANSACTION;` + that statement, one round
 *   trip; the caller gets that statement's answer alone). A transaction that ends before any
 *   statement sends nothing at all. One round trip less for every write (docs/performance.md,
 *   "Writes: fewer round trips").
 * - **No connection goes back to the pool with a transaction open or in doubt.** When a statement
 *   fails inside a transaction, the transaction's state is unknown until a ROLLBACK succeeds: a
 *   Galera node that left the primary component fails the statement and the ROLLBACK after it
 *   (1047) and keeps the transaction open on the session, and a `START TRANSACTION` sent later on
 *   that session would commit its leftover half (an idempotency key without its answer, a record
 *   without its audit row). So each connection keeps, at O(1) per statement, whether a statement
 *   of an open transaction (or its end) failed with no ROLLBACK or COMMIT succeeding since, whether
 *   a COMMIT failed (its outcome unknown), and the SERVER_STATUS_IN_TRANS flag of the server's last
 *   OK packet (mysql2's `ResultSetHeader.serverStatus`, on MariaDB and MySQL alike). Released in
 *   any of those states, or with a transaction still open, the connection is destroyed instead of
 *   pooled: closing the session makes the server roll the transaction back. A held-back BEGIN is
 *   never sent on a connection in such a state; its statement fails with `CONNECTION_IN_DOUBT`
 *   (503) instead (docs/operations.md, "A transaction in doubt").
 * - The pool's "Queue limit reached." error gets a code (`POOL_QUEUE_LIMIT`), so it is recognised
 *   as unavailability like the others (db-errors.ts).
 */
export interface BoundedMysqlOptions {
  flavor: 'mysql' | 'mariadb';
  acquireTimeoutMs: number;
  statementTimeoutMs: number;
  /** MariaDB's `wsrep_sync_wait` for every session (0 leaves the server's default). */
  syncWait?: number;
}

type Callback = (err: Error | null, conn?: PoolConnectionLike) => void;

export interface PoolConnectionLike {
  release(): void;
  destroy(): void;
  query(...args: unknown[]): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  /** mysql2's promise wrapper of the connection. */
  promise?(promiseImpl?: PromiseConstructor): unknown;
}

export interface PoolLike {
  getConnection(cb: Callback): void;
  on(event: 'connection', listener: (conn: PoolConnectionLike) => void): unknown;
}

/** The error a caller gets when no pool connection became free within the acquire timeout. */
export class PoolAcquireTimeoutError extends Error {
  readonly code = 'POOL_ACQUIRE_TIMEOUT';
  constructor(ms: number) {
    super(`No database connection became available within ${ms} ms`);
    this.name = 'PoolAcquireTimeoutError';
  }
}

/**
 * The most values of one `IN (…)` list whose rows the optimizer counts in the index itself
 * (`eq_range_index_dive_limit`; the servers' default is 200). The service's id lists go up to
 * 1,000 (bulk look-ups, the summary builder and archives read 500 or 1,000 ids a statement). Past
 * the default the optimizer guesses from the table's statistics instead, and statistics taken when
 * a site was small (a nightly feed grows it by thousands a minute, faster than InnoDB refreshes
 * them) made it read the whole site through `(site_id, deleted)` instead of the ids asked: 31,000
 * rows for 500 ids, and a million on a site of a million (docs/performance.md, "Id lists").
 */
export const IN_LIST_DIVES = 1001;

/**
 * The session settings of every new connection, in one statement: the server stops a statement
 * at the limit, transactions read committed data (READ COMMITTED, docs/architecture.md "How
 * a write runs"), and an id list of up to IN_LIST_DIVES values is planned by its own rows — set
 * once here instead of before every transaction.
 */
export function statementLimitSql(flavor: 'mysql' | 'mariadb', statementTimeoutMs: number, syncWait = 0): string {
  if (flavor === 'mariadb') {
    const causal = syncWait > 0 ? `, SESSION wsrep_sync_wait = ${Math.trunc(syncWait)}` : '';
    return (
      `SET SESSION max_statement_time = ${(statementTimeoutMs / 1000).toFixed(3)}, SESSION tx_isolation = 'READ-COMMITTED', ` +
      `SESSION eq_range_index_dive_limit = ${IN_LIST_DIVES}${causal}`
    );
  }
  // MySQL's max_execution_time covers read-only SELECTs only; writes are mostly slow because they
  // wait for locks, which the two lock-wait limits bound (whole seconds, at least 1).
  const seconds = Math.max(1, Math.ceil(statementTimeoutMs / 1000));
  return (
    `SET SESSION max_execution_time = ${Math.round(statementTimeoutMs)}, SESSION innodb_lock_wait_timeout = ${seconds}, SESSION lock_wait_timeout = ${seconds}, ` +
    `SESSION transaction_isolation = 'READ-COMMITTED', SESSION eq_range_index_dive_limit = ${IN_LIST_DIVES}`
  );
}

function boundGetConnection(pool: PoolLike, acquireTimeoutMs: number): void {
  const original = pool.getConnection.bind(pool);
  pool.getConnection = (cb: Callback) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      cb(new PoolAcquireTimeoutError(acquireTimeoutMs));
    }, acquireTimeoutMs);
    original((err, conn) => {
      if (settled) {
        // The caller gave up: hand a late connection straight back.
        conn?.release();
        return;
      }
      settled = true;
      clearTimeout(timer);
      if (err && /^Queue limit reached/.test(err.message)) Object.assign(err, { code: 'POOL_QUEUE_LIMIT' });
      // A BEGIN still held back when the connection was given up was never sent: drop it.
      if (conn) handedOver.get(conn)?.();
      cb(err, conn);
    });
  };
}

/** How many other connections a plain read that lost its connection is tried on. */
export const LOST_CONNECTION_RETRIES = 3;

/** A statement's callback as mysql2 calls it: its error, or its result (a batch's results) and fields. */
type QueryCallback = (err: (Error & { code?: string }) | null, results?: unknown, fields?: unknown) => void;
/** Sends a statement (conn.query's arguments, callback last) with so many retries left. */
type Send = (args: unknown[], retriesLeft: number) => unknown;

/** Each prepared connection's own send (the bounds above), so a retry on it keeps them. */
const senders = new WeakMap<PoolConnectionLike, Send>();
/** What each prepared connection forgets when the pool hands it to a caller (a held-back BEGIN). */
const handedOver = new WeakMap<PoolConnectionLike, () => void>();

/** The statement TypeORM opens a transaction with, held back until the transaction's first statement. */
const BEGIN = 'START TRANSACTION';
/** A bare COMMIT or ROLLBACK: with the BEGIN still held back, nothing was sent and nothing is. */
const BARE_END = /^\s*(?:COMMIT|ROLLBACK)\s*$/i;

/** Calls `done` with what mysql2 gave: an error alone, a result alone, or a result and its fields. */
function passOn(done: QueryCallback, err: Parameters<QueryCallback>[0], results: unknown, fields: unknown): void {
  if (fields !== undefined) done(err, results, fields);
  else if (results !== undefined) done(err, results);
  else done(err);
}

/** What mysql2 answers a statement that changes no row (a ResultSetHeader's fields), for a held-back BEGIN. */
function nothingChanged(): Record<string, number | string> {
  return { fieldCount: 0, affectedRows: 0, insertId: 0, info: '', serverStatus: 0, warningStatus: 0, changedRows: 0 };
}

/**
 * The callback of a statement sent behind a held-back BEGIN: it gets the statement's own answer,
 * its result (or, for a batch, its results) and fields without the BEGIN's.
 */
function withoutBegin(done: QueryCallback): QueryCallback {
  return (err, results, fields) => {
    if (err || !Array.isArray(results)) return passOn(done, err, results, fields);
    const single = results.length === 2;
    done(null, single ? results[1] : results.slice(1), Array.isArray(fields) ? (single ? fields[1] : fields.slice(1)) : fields);
  };
}

/** conn.query's first argument (a text or `{ sql, … }`) with `sql` in its place. */
function withSql(statement: unknown, sql: string): unknown {
  return typeof statement === 'string' ? sql : { ...(statement as object), sql };
}

function sqlOf(statement: unknown): string {
  if (typeof statement === 'string') return statement;
  const sql = (statement as { sql?: unknown } | null)?.sql;
  return typeof sql === 'string' ? sql : '';
}

const TRANSACTION_START = /^\s*(?:START\s+TRANSACTION|BEGIN)\b/i;
/** Tried on a statement's last 16 characters only, so a long statement costs no scan. */
const TRANSACTION_END = /(?:^|[;\s])(?:COMMIT|ROLLBACK)\s*$/i;
const ENDS_WITH_COMMIT = /COMMIT\s*$/i;

/** Whether a statement opens a transaction (1), commits one (-2), rolls one back (-1), or neither (0). */
function transactionEffect(sql: string): 1 | -1 | -2 | 0 {
  const tail = sql.length > 16 ? sql.slice(-16) : sql;
  if (TRANSACTION_END.test(tail)) return ENDS_WITH_COMMIT.test(tail) ? -2 : -1;
  return TRANSACTION_START.test(sql) ? 1 : 0;
}

/** The MySQL protocol's SERVER_STATUS_IN_TRANS flag in an OK packet's server status. */
const SERVER_STATUS_IN_TRANS = 0x0001;

/**
 * Whether the server said the session is inside a transaction, from a statement's answer: its OK
 * packet (mysql2's ResultSetHeader, or a batch's last result); undefined for rows, which carry no
 * status here.
 */
export function inTransactionOf(results: unknown): boolean | undefined {
  const last: unknown = Array.isArray(results) ? results[results.length - 1] : results;
  const header = last as { serverStatus?: unknown; fieldCount?: unknown } | null | undefined;
  if (typeof header?.serverStatus !== 'number' || typeof header.fieldCount !== 'number') return undefined;
  return (header.serverStatus & SERVER_STATUS_IN_TRANS) !== 0;
}

/**
 * What the statement behind a held-back BEGIN gets when its connection's last transaction is open
 * or in doubt (see "No connection goes back to the pool…" above): the BEGIN would commit that
 * transaction's leftover, so nothing is sent. Answered 503 (db-errors.ts).
 */
export class ConnectionInDoubtError extends Error {
  readonly code = 'CONNECTION_IN_DOUBT';
  constructor() {
    super('The connection’s previous transaction is open or in doubt: a new transaction is not begun on it');
    this.name = 'ConnectionInDoubtError';
  }
}

/**
 * The one retry policy of a read that lost its connection (here and in RawReader): when retries
 * are left, `again` runs with one fewer after the current turn of the event loop, so that
 * connections closed at the same moment have been noticed and left the pool. False when the read
 * is not to be tried again (its caller answers with the error).
 */
export function againIfLost(err: unknown, retriesLeft: number, again: (retriesLeft: number) => void): boolean {
  if (retriesLeft <= 0 || !isLostConnection(err)) return false;
  setImmediate(again, retriesLeft - 1);
  return true;
}

/**
 * Sends a read that lost its connection (`lost`) on another connection of the pool; the caller's
 * callback gets its answer, or the pool's own error when no connection comes.
 */
function readElsewhere(pool: PoolLike, args: unknown[], at: number, done: QueryCallback, retriesLeft: number, lost: Error): void {
  pool.getConnection((err, fresh) => {
    if (err || !fresh) {
      done(err ?? lost);
      return;
    }
    const again = args.slice();
    again[at] = ((e, results, fields) => {
      fresh.release();
      passOn(done, e, results, fields);
    }) satisfies QueryCallback;
    const send = senders.get(fresh);
    if (send) send(again, retriesLeft);
    else fresh.query(...again);
  });
}

function prepareConnection(pool: PoolLike, conn: PoolConnectionLike, setup: string): void {
  // Queued before any command of a caller (mysql2 runs a connection's commands in order). A lost
  // connection surfaces on the caller's own query; a server that refuses the setting (none of the
  // supported versions does) leaves the connection bounded by the client-side timeout only.
  conn.query(setup, (err: (Error & { fatal?: boolean }) | null) => {
    if (err?.fatal) conn.destroy();
  });
  const query = conn.query.bind(conn);
  // Whether the connection is inside a transaction, from the statements that open and close one
  // (TypeORM's START TRANSACTION, COMMIT and ROLLBACK; TenantDb's batch ending in COMMIT).
  let inTransaction = false;
  // TypeORM's START TRANSACTION, answered but not sent yet (see "A transaction's BEGIN" above).
  let beginHeld = false;
  // A statement of a transaction, or its end, failed, and no ROLLBACK or COMMIT succeeded since:
  // the server may still hold the transaction open (see "No connection goes back…" above).
  let inDoubt = false;
  // A COMMIT failed (its outcome is unknown) or the connection was lost: never used again.
  let spoilt = false;
  // SERVER_STATUS_IN_TRANS of the server's last OK packet on this connection.
  let serverInTransaction = false;
  handedOver.set(conn, () => {
    // Nothing of a held-back BEGIN was sent: the server has no transaction of it.
    if (beginHeld) inTransaction = false;
    beginHeld = false;
  });
  /** Whether the connection may hold a transaction a later BEGIN would commit. */
  const unsafe = () => spoilt || inDoubt || serverInTransaction || (inTransaction && !beginHeld);
  const release = conn.release.bind(conn);
  conn.release = () => {
    // Closing the session makes the server roll its transaction back; the pool opens a new one.
    if (unsafe()) conn.destroy();
    else release();
  };
  const send: Send = (args, retriesLeft) => {
    const sql = sqlOf(args[0]);
    const effect = transactionEffect(sql);
    const i = args.findLastIndex((a) => typeof a === 'function');
    if (beginHeld && (spoilt || inDoubt || serverInTransaction) && sql !== BEGIN && !(i >= 0 && BARE_END.test(sql))) {
      // Sending the held-back BEGIN now would commit what the connection's last transaction left:
      // nothing is sent (the caller's ROLLBACK then goes to the server, and its answer tells).
      beginHeld = false;
      inDoubt = true;
      if (i >= 0) {
        process.nextTick(args[i] as QueryCallback, new ConnectionInDoubtError());
        return undefined;
      }
      // A stream has no callback to fail: it fails on the closed connection.
      spoilt = true;
      conn.destroy();
      return query(...args);
    }
    if (effect !== 0) inTransaction = effect === 1;
    if (i >= 0 && (beginHeld || sql === BEGIN)) {
      if (sql === BEGIN || BARE_END.test(sql)) {
        // The BEGIN is held back; a transaction that ends before its first statement sent nothing.
        beginHeld = sql === BEGIN;
        process.nextTick(args[i] as QueryCallback, null, nothingChanged(), undefined);
        return undefined;
      }
      beginHeld = false;
      args[0] = withSql(args[0], `${BEGIN};\n${sql}`);
      args[i] = withoutBegin(args[i] as QueryCallback);
    } else if (beginHeld) {
      // A statement without a callback (a stream) cannot share its answer: the BEGIN goes first, alone.
      beginHeld = false;
      query(BEGIN, (err: Error | null) => {
        if (err) conn.destroy();
      });
    }
    if (i >= 0) {
      // The caller's callback, let go of once it is called. Something in the old generation still
      // refers to this wrapper a while after its statement (until the next full collection); held
      // here, the caller's callback, the promise it settles and the rows it settles it with stayed
      // alive with it: reading 100,000 people a page at a time copied and promoted 12–30 MB of rows
      // at every scavenge, and took twice as long (docs/performance.md, "Rows that die young").
      let done: QueryCallback | null = args[i] as QueryCallback;
      const outside = !inTransaction;
      args[i] = ((err: (Error & { code?: string; fatal?: boolean }) | null, results?: unknown, fields?: unknown) => {
        const callback = done;
        done = null;
        if (!callback) return; // mysql2 answers a statement once
        if (err) {
          if (err.code === 'PROTOCOL_SEQUENCE_TIMEOUT') conn.destroy();
          if (effect === -2 || err.fatal) spoilt = true;
          else if (!outside || effect !== 0) inDoubt = true;
          if (outside && isPlainRead(sql) && againIfLost(err, retriesLeft, (left) => readElsewhere(pool, args, i, callback, left, err))) return;
        } else {
          const status = inTransactionOf(results);
          if (status !== undefined) serverInTransaction = status;
          // The transaction ended: the connection is clean unless the server says otherwise.
          if (effect < 0) inDoubt = serverInTransaction;
        }
        passOn(callback, err, results, fields);
      }) satisfies QueryCallback;
    }
    return query(...args);
  };
  senders.set(conn, send);
  conn.query = (...args: unknown[]) => send(args, LOST_CONNECTION_RETRIES);
  // TypeORM asks for `conn.promise()` on every query; mysql2 answers each call with a `require`
  // of its promise module and a new wrapper (an event emitter with two listeners), about 7 µs a
  // statement. The wrapper holds nothing of a query, so one per connection serves them all.
  const promise = conn.promise?.bind(conn);
  if (promise) {
    let wrapper: unknown;
    conn.promise = (promiseImpl?: PromiseConstructor) => (promiseImpl === undefined ? (wrapper ??= promise()) : promise(promiseImpl));
  }
}

/** Applies the bounds described above to a mysql2 pool (exported for tests). */
export function boundPool<P extends PoolLike>(pool: P, options: BoundedMysqlOptions): P {
  const setup = statementLimitSql(options.flavor, options.statementTimeoutMs, options.syncWait);
  pool.on('connection', (conn) => prepareConnection(pool, conn, setup));
  boundGetConnection(pool, options.acquireTimeoutMs);
  return pool;
}

/**
 * A mysql2 module whose pools are bounded as described above; pass it as TypeORM's `driver`.
 * mysql2 is loaded here, when a MySQL/MariaDB data source is configured: a process on the
 * embedded SQLite never loads it.
 */
export function boundedMysql2(options: BoundedMysqlOptions): typeof mysql2 {
  const driver = createRequire(import.meta.url)('mysql2') as typeof mysql2;
  const createPool = (config: Parameters<typeof mysql2.createPool>[0]) => boundPool(driver.createPool(config) as unknown as PoolLike, options);
  return Object.create(driver, { createPool: { value: createPool } }) as typeof mysql2;
}
