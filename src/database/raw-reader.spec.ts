import { jest } from '@jest/globals';
import { executePrepared, MysqlConnection, MysqlPool, MysqlStatement, queryPooled } from './raw-reader.js';

type Answer = (err: Error | null, rows: unknown) => void;

/** A pool connection that records what it prepares and executes; the test answers each call. */
class FakeConnection implements MysqlConnection {
  readonly release = jest.fn();
  readonly destroy = jest.fn();
  readonly prepares: { sql: string; answer: (err: Error | null, statement: MysqlStatement) => void }[] = [];
  readonly executes: { statement: string; params: unknown[]; answer: Answer }[] = [];
  readonly queries: { options: { sql: string; timeout?: number }; params: unknown[]; answer: Answer }[] = [];
  query(options: { sql: string; timeout?: number }, params: unknown[], answer: Answer): void {
    this.queries.push({ options, params, answer });
  }
  prepare(sql: string, answer: (err: Error | null, statement: MysqlStatement) => void): unknown {
    this.prepares.push({ sql, answer });
    return undefined;
  }
  /** A statement as mysql2 makes it: executing it records the call on this connection. */
  statement(name: string): MysqlStatement {
    return { execute: (params, answer) => this.executes.push({ statement: name, params, answer }) };
  }
}

/** A pool handing out the given connections in turn (or an error). */
function poolOf(...conns: (FakeConnection | Error)[]): MysqlPool {
  return {
    getConnection: (cb) => {
      const next = conns.shift()!;
      if (next instanceof Error) cb(next, undefined as unknown as MysqlConnection);
      else cb(null, next);
    },
  };
}

const BY_ID = 'SELECT * FROM individuals WHERE site_id = ? AND id = ?';

describe('RawReader’s prepared statements on a mysql2 pool', () => {
  afterEach(() => jest.useRealTimers());

  it('prepares a statement once per connection, then executes it by id, and releases the connection after each read', () => {
    const conn = new FakeConnection();
    const pool = poolOf(conn, conn);
    const first = jest.fn();
    executePrepared(pool, BY_ID, ['s', 'a'], undefined, first);
    expect(conn.prepares.map((p) => p.sql)).toEqual([BY_ID]);
    conn.prepares[0].answer(null, conn.statement('by-id'));
    conn.executes[0].answer(null, [{ id: 'a' }]);
    expect(first).toHaveBeenCalledWith(null, [{ id: 'a' }]);

    const second = jest.fn();
    executePrepared(pool, BY_ID, ['s', 'b'], undefined, second);
    expect(conn.prepares).toHaveLength(1);
    expect(conn.executes[1]).toMatchObject({ statement: 'by-id', params: ['s', 'b'] });
    conn.executes[1].answer(null, [{ id: 'b' }]);
    expect(second).toHaveBeenCalledWith(null, [{ id: 'b' }]);
    expect(conn.release).toHaveBeenCalledTimes(2);
  });

  it('refuses an undefined parameter before it takes a connection, which mysql2 would close as it failed to write the statement', () => {
    const conn = new FakeConnection();
    const getConnection = jest.fn();
    const done = jest.fn();
    executePrepared({ getConnection }, BY_ID, ['s', undefined], undefined, done);
    expect(getConnection).not.toHaveBeenCalled();
    expect(done).toHaveBeenCalledWith(expect.objectContaining({ name: 'TypeError', message: expect.stringContaining('undefined') }), undefined);
    expect(conn.executes).toHaveLength(0);

    const fine = jest.fn();
    executePrepared(poolOf(conn), BY_ID, ['s', null], undefined, fine);
    expect(conn.prepares).toHaveLength(1);
  });

  it('prepares again on another connection, which has statements of its own', () => {
    const one = new FakeConnection();
    const other = new FakeConnection();
    const pool = poolOf(one, other);
    executePrepared(pool, BY_ID, [], undefined, jest.fn());
    one.prepares[0].answer(null, one.statement('one'));
    executePrepared(pool, BY_ID, [], undefined, jest.fn());
    expect(other.prepares.map((p) => p.sql)).toEqual([BY_ID]);
  });

  it('passes on a failed prepare, a failed read and the pool’s own error, releasing what it took', () => {
    const conn = new FakeConnection();
    const pool = poolOf(conn, conn, Object.assign(new Error('No database connection became available'), { code: 'POOL_ACQUIRE_TIMEOUT' }));
    const badPrepare = jest.fn();
    executePrepared(pool, 'SELEC nope', [], undefined, badPrepare);
    conn.prepares[0].answer(Object.assign(new Error('syntax'), { code: 'ER_PARSE_ERROR' }), undefined as unknown as MysqlStatement);
    expect(badPrepare).toHaveBeenCalledWith(expect.objectContaining({ code: 'ER_PARSE_ERROR' }), undefined);

    const badRead = jest.fn();
    executePrepared(pool, BY_ID, [], undefined, badRead);
    conn.prepares[1].answer(null, conn.statement('by-id'));
    conn.executes[0].answer(Object.assign(new Error('gone'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true }), undefined);
    expect(badRead).toHaveBeenCalledWith(expect.objectContaining({ code: 'PROTOCOL_CONNECTION_LOST' }), undefined);
    expect(conn.release).toHaveBeenCalledTimes(2);

    const noConnection = jest.fn();
    executePrepared(pool, BY_ID, [], undefined, noConnection);
    expect(noConnection).toHaveBeenCalledWith(expect.objectContaining({ code: 'POOL_ACQUIRE_TIMEOUT' }), undefined);
  });

  it('closes the connection of a statement that got no answer within the timeout, answers as mysql2 would, and ignores a late answer', () => {
    jest.useFakeTimers();
    const conn = new FakeConnection();
    const done = jest.fn();
    executePrepared(poolOf(conn), BY_ID, [], 1500, done);
    conn.prepares[0].answer(null, conn.statement('by-id'));
    jest.advanceTimersByTime(1499);
    expect(done).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(conn.destroy).toHaveBeenCalledTimes(1);
    expect(done).toHaveBeenCalledWith(expect.objectContaining({ code: 'PROTOCOL_SEQUENCE_TIMEOUT' }), undefined);
    conn.executes[0].answer(null, [{ id: 'late' }]);
    expect(done).toHaveBeenCalledTimes(1);
    expect(conn.release).toHaveBeenCalledTimes(1);
  });

  it('forgets a statement the connection no longer knows, and prepares it anew on the next read', () => {
    const conn = new FakeConnection();
    const pool = poolOf(conn, conn);
    executePrepared(pool, BY_ID, [], undefined, jest.fn());
    conn.prepares[0].answer(null, conn.statement('evicted'));
    conn.executes[0].answer(Object.assign(new Error('Unknown prepared statement handler'), { code: 'ER_UNKNOWN_STMT_HANDLER' }), undefined);
    executePrepared(pool, BY_ID, [], undefined, jest.fn());
    expect(conn.prepares).toHaveLength(2);
  });
});

describe('queryPooled: a statement whose text varies, on one pool connection', () => {
  const IN_LIST = 'SELECT * FROM individuals WHERE site_id = ? AND id IN (?, ?)';

  it('runs the statement with its timeout, answers its rows and releases the connection', () => {
    const conn = new FakeConnection();
    const done = jest.fn();
    queryPooled(poolOf(conn), IN_LIST, ['s', 'a', 'b'], 5000, done);
    expect(conn.queries).toHaveLength(1);
    expect(conn.queries[0]).toMatchObject({ options: { sql: IN_LIST, timeout: 5000 }, params: ['s', 'a', 'b'] });
    expect(conn.release).not.toHaveBeenCalled();
    conn.queries[0].answer(null, [{ id: 'a' }, { id: 'b' }]);
    expect(done).toHaveBeenCalledWith(null, [{ id: 'a' }, { id: 'b' }]);
    expect(conn.release).toHaveBeenCalledTimes(1);
    expect(conn.destroy).not.toHaveBeenCalled();
  });

  it('releases the connection after an ordinary error, and closes it when the server has turned read-only (as mysql2’s pool.query)', () => {
    const conn = new FakeConnection();
    const failed = jest.fn();
    queryPooled(poolOf(conn, conn), IN_LIST, [], undefined, failed);
    const syntax = Object.assign(new Error('syntax'), { errno: 1064 });
    conn.queries[0].answer(syntax, undefined);
    expect(failed).toHaveBeenCalledWith(syntax, undefined);
    expect(conn.release).toHaveBeenCalledTimes(1);
    expect(conn.destroy).not.toHaveBeenCalled();

    for (const errno of [1290, 1792, 1836]) {
      const readOnly = Object.assign(new Error('read-only'), { errno });
      const c = new FakeConnection();
      const done = jest.fn();
      queryPooled(poolOf(c), IN_LIST, [], undefined, done);
      c.queries[0].answer(readOnly, undefined);
      expect(done).toHaveBeenCalledWith(readOnly, undefined);
      expect(c.destroy).toHaveBeenCalledTimes(1);
      expect(c.release).not.toHaveBeenCalled();
    }
  });

  it('answers the pool’s error when no connection comes', () => {
    const lost = new Error('pool closed');
    const done = jest.fn();
    queryPooled(poolOf(lost), IN_LIST, [], undefined, done);
    expect(done).toHaveBeenCalledWith(lost, undefined);
  });
});
