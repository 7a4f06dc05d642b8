import { EventEmitter } from 'node:events';
import { jest } from '@jest/globals';
import { boundPool, PoolConnectionLike, statementLimitSql } from './bounded-mysql.js';

type Cb = (err: Error | null, conn?: PoolConnectionLike) => void;

/** A stand-in for mysql2's pool: getConnection callbacks are answered when the test says so. */
class FakePool extends EventEmitter {
  readonly waiting: Cb[] = [];
  getConnection(cb: Cb): void {
    this.waiting.push(cb);
  }
}

class FakeConnection implements PoolConnectionLike {
  readonly release = jest.fn();
  readonly destroy = jest.fn();
  readonly sent: string[] = [];
  readonly callbacks: ((err: unknown, rows?: unknown) => void)[] = [];
  query(...args: unknown[]): unknown {
    this.sent.push(String(args[0]));
    this.callbacks.push(args[args.length - 1] as (err: unknown) => void);
    return undefined;
  }
  on(): unknown {
    return this;
  }
  promise(promiseImpl?: PromiseConstructor): unknown {
    return { connection: this, promiseImpl };
  }
}

const options = { flavor: 'mariadb' as const, acquireTimeoutMs: 50, statementTimeoutMs: 1500 };

describe('bounded mysql2 pool', () => {
  it('gives up waiting for a connection after the acquire timeout, and hands a late connection straight back', async () => {
    const pool = boundPool(new FakePool(), options);
    const result = new Promise<{ err: Error | null; conn?: PoolConnectionLike }>((resolve) => pool.getConnection((err, conn) => resolve({ err, conn })));
    const { err, conn } = await result;
    expect(conn).toBeUndefined();
    expect(err).toMatchObject({ code: 'POOL_ACQUIRE_TIMEOUT' });
    const late = new FakeConnection();
    pool.waiting[0](null, late);
    expect(late.release).toHaveBeenCalledTimes(1);
  });

  it('passes a connection that comes in time, and gives the full-queue error a code', async () => {
    const pool = boundPool(new FakePool(), options);
    const conn = new FakeConnection();
    const got = new Promise<PoolConnectionLike | undefined>((resolve) => pool.getConnection((_e, c) => resolve(c)));
    pool.waiting[0](null, conn);
    expect(await got).toBe(conn);
    expect(conn.release).not.toHaveBeenCalled();

    const full = new Promise<Error | null>((resolve) => pool.getConnection((e) => resolve(e)));
    pool.waiting[1](new Error('Queue limit reached.'));
    expect(await full).toMatchObject({ code: 'POOL_QUEUE_LIMIT' });
  });

  it('hands out one promise wrapper per connection (TypeORM asks for it on every query), and a new one for another Promise class', () => {
    const pool = boundPool(new FakePool(), options);
    const conn = new FakeConnection();
    const other = new FakeConnection();
    pool.emit('connection', conn);
    pool.emit('connection', other);
    expect(conn.promise()).toBe(conn.promise());
    expect(conn.promise()).toEqual({ connection: conn, promiseImpl: undefined });
    expect(conn.promise(Promise)).not.toBe(conn.promise());
    expect(other.promise()).not.toBe(conn.promise());
  });

  it('sets the statement limit and READ COMMITTED first on every new connection, and drops a connection whose query timed out client-side', () => {
    const pool = boundPool(new FakePool(), options);
    const conn = new FakeConnection();
    pool.emit('connection', conn);
    expect(conn.sent).toEqual(["SET SESSION max_statement_time = 1.500, SESSION tx_isolation = 'READ-COMMITTED'"]);

    const done = jest.fn();
    conn.query('SELECT 1', [], done);
    conn.callbacks[1](Object.assign(new Error('Query inactivity timeout'), { code: 'PROTOCOL_SEQUENCE_TIMEOUT' }));
    expect(conn.destroy).toHaveBeenCalledTimes(1);
    expect(done).toHaveBeenCalledWith(expect.objectContaining({ code: 'PROTOCOL_SEQUENCE_TIMEOUT' }));

    const other = new FakeConnection();
    pool.emit('connection', other);
    other.query('SELECT 2', [], jest.fn());
    other.callbacks[1](Object.assign(new Error('syntax'), { code: 'ER_PARSE_ERROR' }));
    expect(other.destroy).not.toHaveBeenCalled();
  });

  it('uses MySQL’s own limits there: max_execution_time for reads, lock-wait limits for writes', () => {
    expect(statementLimitSql('mysql', 10000)).toBe(
      "SET SESSION max_execution_time = 10000, SESSION innodb_lock_wait_timeout = 10, SESSION lock_wait_timeout = 10, SESSION transaction_isolation = 'READ-COMMITTED'",
    );
    expect(statementLimitSql('mysql', 400)).toContain('innodb_lock_wait_timeout = 1,');
  });

  it('on MariaDB also sets wsrep_sync_wait when asked (read-your-writes on Galera), and never on MySQL', () => {
    expect(statementLimitSql('mariadb', 10000, 1)).toBe(
      "SET SESSION max_statement_time = 10.000, SESSION tx_isolation = 'READ-COMMITTED', SESSION wsrep_sync_wait = 1",
    );
    expect(statementLimitSql('mariadb', 10000, 0)).toBe("SET SESSION max_statement_time = 10.000, SESSION tx_isolation = 'READ-COMMITTED'");
    expect(statementLimitSql('mysql', 10000, 1)).not.toContain('wsrep');
  });
});
