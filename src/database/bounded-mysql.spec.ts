import { EventEmitter } from 'node:events';
import { jest } from '@jest/globals';
import { boundPool, inTransactionOf, LOST_CONNECTION_RETRIES, PoolConnectionLike, statementLimitSql } from './bounded-mysql.js';

type Cb = (err: Error | null, conn?: PoolConnectionLike) => void;

/** A stand-in for mysql2's pool: getConnection callbacks are answered when the test says so. */
class FakePool extends EventEmitter {
  readonly waiting: Cb[] = [];
  getConnection(cb: Cb): void {
    this.waiting.push(cb);
  }
}

class FakeConnection implements PoolConnectionLike {
  /** Calls of release() as mysql2 has it (the pool's own), under any wrapper of it. */
  readonly released = jest.fn();
  readonly destroy = jest.fn();
  release(): void {
    this.released();
  }
  readonly sent: string[] = [];
  readonly calls: unknown[][] = [];
  readonly callbacks: ((err: unknown, ...rest: unknown[]) => void)[] = [];
  query(...args: unknown[]): unknown {
    this.sent.push(String(args[0]));
    this.calls.push(args.slice(0, -1));
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

/** What mysql2 answers when the server or a proxy closed the connection under a statement. */
const lost = () => Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A pool with one connection in use and spare ones the pool hands out next (all prepared). */
function poolWithSpares(n: number) {
  const pool = boundPool(new FakePool(), options);
  const [conn, ...spares] = Array.from({ length: n + 1 }, () => new FakeConnection());
  for (const c of [conn, ...spares]) pool.emit('connection', c);
  return { pool, conn, spares };
}

describe('bounded mysql2 pool', () => {
  it('gives up waiting for a connection after the acquire timeout, and hands a late connection straight back', async () => {
    const pool = boundPool(new FakePool(), options);
    const result = new Promise<{ err: Error | null; conn?: PoolConnectionLike }>((resolve) => pool.getConnection((err, conn) => resolve({ err, conn })));
    const { err, conn } = await result;
    expect(conn).toBeUndefined();
    expect(err).toMatchObject({ code: 'POOL_ACQUIRE_TIMEOUT' });
    const late = new FakeConnection();
    pool.waiting[0](null, late);
    expect(late.released).toHaveBeenCalledTimes(1);
  });

  it('passes a connection that comes in time, and gives the full-queue error a code', async () => {
    const pool = boundPool(new FakePool(), options);
    const conn = new FakeConnection();
    const got = new Promise<PoolConnectionLike | undefined>((resolve) => pool.getConnection((_e, c) => resolve(c)));
    pool.waiting[0](null, conn);
    expect(await got).toBe(conn);
    expect(conn.released).not.toHaveBeenCalled();

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

  it('passes each statement’s answer on as mysql2 gave it, once, and lets go of the caller’s callback once it is called', () => {
    const pool = boundPool(new FakePool(), options);
    const conn = new FakeConnection();
    pool.emit('connection', conn);
    const rows = [{ id: 'a' }];
    const fields = [{ name: 'id' }];
    const read = jest.fn();
    conn.query('SELECT id FROM t', [], read);
    const answer = conn.callbacks[1];
    answer(null, rows, fields);
    expect(read).toHaveBeenCalledTimes(1);
    expect(read.mock.calls[0]).toEqual([null, rows, fields]);
    // The wrapper mysql2 holds no longer reaches the caller's callback (nor what it settles): a
    // second answer reaches nobody. docs/performance.md, "Rows that die young".
    answer(null, [{ id: 'b' }], fields);
    expect(read).toHaveBeenCalledTimes(1);

    const write = jest.fn();
    conn.query('UPDATE t SET a = 1', [], write);
    const ok = { fieldCount: 0, affectedRows: 1, serverStatus: 2 };
    conn.callbacks[2](null, ok);
    expect(write.mock.calls[0]).toEqual([null, ok]);
    const failed = jest.fn();
    conn.query('SELECT nothing FROM t', [], failed);
    const error = Object.assign(new Error('Unknown column'), { code: 'ER_BAD_FIELD_ERROR' });
    conn.callbacks[3](error);
    expect(failed.mock.calls[0]).toEqual([error]);
  });

  it('sets the statement limit and READ COMMITTED first on every new connection, and drops a connection whose query timed out client-side', () => {
    const pool = boundPool(new FakePool(), options);
    const conn = new FakeConnection();
    pool.emit('connection', conn);
    expect(conn.sent).toEqual(["SET SESSION max_statement_time = 1.500, SESSION tx_isolation = 'READ-COMMITTED', SESSION eq_range_index_dive_limit = 1001"]);

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
      "SET SESSION max_execution_time = 10000, SESSION innodb_lock_wait_timeout = 10, SESSION lock_wait_timeout = 10, SESSION transaction_isolation = 'READ-COMMITTED', SESSION eq_range_index_dive_limit = 1001",
    );
    expect(statementLimitSql('mysql', 400)).toContain('innodb_lock_wait_timeout = 1,');
  });

  it('on MariaDB also sets wsrep_sync_wait when asked (read-your-writes on Galera), and never on MySQL', () => {
    expect(statementLimitSql('mariadb', 10000, 1)).toBe(
      "SET SESSION max_statement_time = 10.000, SESSION tx_isolation = 'READ-COMMITTED', SESSION eq_range_index_dive_limit = 1001, SESSION wsrep_sync_wait = 1",
    );
    expect(statementLimitSql('mariadb', 10000, 0)).toBe(
      "SET SESSION max_statement_time = 10.000, SESSION tx_isolation = 'READ-COMMITTED', SESSION eq_range_index_dive_limit = 1001",
    );
    expect(statementLimitSql('mysql', 10000, 1)).not.toContain('wsrep');
  });

  describe('a connection closed under a statement (a proxy shutting sessions, a restarting server)', () => {
    it('runs a plain read again on another connection, which it then releases, and answers with that', async () => {
      const { pool, conn, spares } = poolWithSpares(1);
      const done = jest.fn();
      conn.query({ sql: 'SELECT `id` FROM `sites` WHERE `id` = ?', timeout: 1500 }, ['s1'], done);
      conn.callbacks[1](lost());
      expect(done).not.toHaveBeenCalled();
      // Not within the same turn: connections closed at the same moment leave the pool first.
      expect(pool.waiting).toHaveLength(0);
      await turn();
      expect(pool.waiting).toHaveLength(1);
      pool.waiting[0](null, spares[0]);
      expect(spares[0].calls[1]).toEqual([{ sql: 'SELECT `id` FROM `sites` WHERE `id` = ?', timeout: 1500 }, ['s1']]);
      spares[0].callbacks[1](null, [{ id: 's1' }], []);
      expect(done).toHaveBeenCalledWith(null, [{ id: 's1' }], []);
      expect(spares[0].released).toHaveBeenCalledTimes(1);
    });

    it(`gives up after ${LOST_CONNECTION_RETRIES} other connections with the last error`, async () => {
      const { pool, conn, spares } = poolWithSpares(LOST_CONNECTION_RETRIES);
      const done = jest.fn();
      conn.query('SELECT 1', [], done);
      conn.callbacks[1](lost());
      for (const spare of spares) {
        await turn();
        pool.waiting.shift()!(null, spare);
        spare.callbacks[1](lost());
      }
      await turn();
      expect(pool.waiting).toHaveLength(0);
      expect(done).toHaveBeenCalledTimes(1);
      expect(done).toHaveBeenCalledWith(expect.objectContaining({ code: 'PROTOCOL_CONNECTION_LOST' }));
      // Each connection that was lost too is closed, not handed back to the pool.
      for (const spare of spares) expect([spare.released.mock.calls.length, spare.destroy.mock.calls.length]).toEqual([0, 1]);
    });

    it('answers with the pool’s own error when no other connection comes', async () => {
      const { pool, conn } = poolWithSpares(0);
      const done = jest.fn();
      conn.query('SELECT 1', [], done);
      conn.callbacks[1](lost());
      await turn();
      pool.waiting[0](Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
      expect(done).toHaveBeenCalledWith(expect.objectContaining({ code: 'ECONNREFUSED' }));
    });

    it('never runs again a write, a locking read, or any statement of an open transaction', async () => {
      const { pool, conn } = poolWithSpares(0);
      const outcomes: unknown[] = [];
      const send = (sql: string) => {
        const done = jest.fn();
        conn.query(sql, [], done);
        conn.callbacks[conn.callbacks.length - 1](lost());
        outcomes.push(done.mock.calls[0]?.[0]);
      };
      send('UPDATE goals SET name = ? WHERE id = ?');
      send('SELECT id FROM goals WHERE id = ? FOR UPDATE');
      conn.query('START TRANSACTION', [], jest.fn());
      // A savepoint rolled back leaves the transaction open.
      conn.query('ROLLBACK TO SAVEPOINT typeorm_1', [], jest.fn());
      send('SELECT id FROM goals WHERE id = ?');
      conn.query('INSERT INTO audit_events VALUES (?);\nCOMMIT', [], jest.fn());
      await turn();
      expect(pool.waiting).toHaveLength(0);
      expect(outcomes.map((e) => (e as { code?: string } | undefined)?.code)).toEqual(Array(3).fill('PROTOCOL_CONNECTION_LOST'));
      // After the COMMIT the connection is outside a transaction again: a read goes elsewhere.
      const done = jest.fn();
      conn.query('SELECT 1', [], done);
      conn.callbacks[conn.callbacks.length - 1](lost());
      expect(done).not.toHaveBeenCalled();
      await turn();
      expect(pool.waiting).toHaveLength(1);
    });

    it('passes other errors of a read straight through', async () => {
      const { pool, conn } = poolWithSpares(0);
      const done = jest.fn();
      conn.query('SELECT nope', [], done);
      conn.callbacks[1](Object.assign(new Error('Unknown column'), { code: 'ER_BAD_FIELD_ERROR' }));
      expect(done).toHaveBeenCalledWith(expect.objectContaining({ code: 'ER_BAD_FIELD_ERROR' }));
      await turn();
      expect(pool.waiting).toHaveLength(0);
    });
  });

  describe('a transaction’s BEGIN (sent with the transaction’s first statement)', () => {
    /** A prepared connection of a pool, and what a caller of conn.query gets back. */
    function prepared() {
      const { pool, conn } = poolWithSpares(0);
      const ask = (...args: unknown[]) => {
        const done = jest.fn();
        conn.query(...args, done);
        return done;
      };
      return { pool, conn, ask, setup: conn.sent.length };
    }

    it('answers START TRANSACTION without sending it, and sends it in front of the next statement, answering that statement alone', async () => {
      const { conn, ask, setup } = prepared();
      const begun = ask('START TRANSACTION');
      await turn();
      expect(begun).toHaveBeenCalledWith(null, expect.objectContaining({ affectedRows: 0 }), undefined);
      expect(conn.sent).toHaveLength(setup);
      const done = ask({ sql: 'SELECT id FROM goals WHERE id = ? FOR UPDATE', timeout: 1500 }, [7]);
      expect(conn.calls[setup]).toEqual([{ sql: 'START TRANSACTION;\nSELECT id FROM goals WHERE id = ? FOR UPDATE', timeout: 1500 }, [7]]);
      const fields = [{ name: 'id' }];
      conn.callbacks[setup](null, [{ affectedRows: 0 }, [{ id: 7 }]], [undefined, fields]);
      expect(done).toHaveBeenCalledWith(null, [{ id: 7 }], fields);
      // Only the first statement carries it.
      ask('UPDATE goals SET name = ? WHERE id = ?', ['x', 7]);
      expect(conn.sent[setup + 1]).toBe('UPDATE goals SET name = ? WHERE id = ?');
    });

    it('answers a batch sent first with its own results, without the BEGIN’s', () => {
      const { conn, ask, setup } = prepared();
      ask('START TRANSACTION');
      const done = ask('INSERT INTO a VALUES (?);\nCOMMIT', [1]);
      expect(conn.sent[setup]).toBe('START TRANSACTION;\nINSERT INTO a VALUES (?);\nCOMMIT');
      conn.callbacks[setup](null, [{ affectedRows: 0 }, { affectedRows: 1 }, { affectedRows: 0 }], [undefined, undefined, undefined]);
      expect(done).toHaveBeenCalledWith(null, [{ affectedRows: 1 }, { affectedRows: 0 }], [undefined, undefined]);
    });

    it('sends nothing for a transaction that ends before its first statement, and begins the next one afresh', async () => {
      const { conn, ask, setup } = prepared();
      ask('START TRANSACTION');
      const committed = ask('COMMIT');
      ask('START TRANSACTION');
      const rolledBack = ask('ROLLBACK');
      await turn();
      expect(committed).toHaveBeenCalledWith(null, expect.objectContaining({ affectedRows: 0 }), undefined);
      expect(rolledBack).toHaveBeenCalledWith(null, expect.objectContaining({ affectedRows: 0 }), undefined);
      expect(conn.sent).toHaveLength(setup);
      ask('SELECT 1');
      expect(conn.sent[setup]).toBe('SELECT 1');
    });

    it('passes the first statement’s error through, and counts the transaction as open (a lost read is not run again)', async () => {
      const { pool, conn, ask, setup } = prepared();
      ask('START TRANSACTION');
      const done = ask('SELECT id FROM goals WHERE id = ?', [1]);
      conn.callbacks[setup](lost());
      expect(done).toHaveBeenCalledWith(expect.objectContaining({ code: 'PROTOCOL_CONNECTION_LOST' }));
      await turn();
      expect(pool.waiting).toHaveLength(0);
      ask('ROLLBACK');
      expect(conn.sent[setup + 1]).toBe('ROLLBACK');
    });

    it('drops a BEGIN still held back when the pool hands the connection out again', () => {
      const { pool, conn, ask, setup } = prepared();
      ask('START TRANSACTION');
      pool.getConnection(() => undefined);
      pool.waiting[0](null, conn);
      ask('SELECT 1');
      expect(conn.sent[setup]).toBe('SELECT 1');
    });

    it('sends the BEGIN alone before a statement that has no callback (a stream)', () => {
      const { conn, ask, setup } = prepared();
      ask('START TRANSACTION');
      conn.query('SELECT id FROM goals', []);
      expect(conn.sent.slice(setup)).toEqual(['START TRANSACTION', 'SELECT id FROM goals']);
    });
  });
  describe('a connection whose transaction is open or in doubt never goes back to the pool', () => {
    /** mysql2's answer to a statement that changed rows or ended a transaction: an OK packet with the server's status. */
    const ok = (inTransaction: boolean) => ({
      fieldCount: 0,
      affectedRows: 1,
      insertId: 0,
      info: '',
      serverStatus: 2 | (inTransaction ? 1 : 0),
      warningStatus: 0,
    });
    /** What a Galera node outside the primary component answers every statement, ROLLBACK included. */
    const notPrimary = () => Object.assign(new Error('WSREP has not yet prepared node for application use'), { code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 });
    const duplicate = () => Object.assign(new Error("Duplicate entry 'k' for key 'PRIMARY'"), { code: 'ER_DUP_ENTRY', errno: 1062 });
    const commitRefused = () =>
      Object.assign(new Error('Got error 6 "No such device or address" during COMMIT'), { code: 'ER_ERROR_DURING_COMMIT', errno: 1180 });
    type Answer = { err?: Error; result?: unknown };
    const wrote: Answer = { result: [ok(true), ok(true)] };

    /** A prepared connection; `run` sends a statement and answers it as the server would (an error, or an answer). */
    function prepared() {
      const { pool, conn } = poolWithSpares(0);
      const run = (sql: string, answer: Answer = {}) => {
        const done = jest.fn();
        const before = conn.callbacks.length;
        conn.query(sql, [], done);
        if (conn.callbacks.length > before) conn.callbacks[before](answer.err ?? null, answer.result, undefined);
        return done;
      };
      return { pool, conn, run };
    }
    const fate = (conn: FakeConnection) => ({ released: conn.released.mock.calls.length, destroyed: conn.destroy.mock.calls.length });
    /** What becomes of a connection released after these statements and answers. */
    const releasedAfter = (...steps: [string, Answer?][]) => {
      const { conn, run } = prepared();
      for (const [sql, answer] of steps) run(sql, answer);
      conn.release();
      return fate(conn);
    };
    const DESTROYED = { released: 0, destroyed: 1 };
    const POOLED = { released: 1, destroyed: 0 };
    /** A transaction that wrote, then lost its node (outside the primary component): its next statement and its ROLLBACK fail. */
    const HALF_DONE: [string, Answer?][] = [
      ['START TRANSACTION'],
      ['INSERT INTO idempotency_keys VALUES (?)', wrote],
      ['INSERT INTO comments VALUES (?)', { err: notPrimary() }],
      ['ROLLBACK', { err: notPrimary() }],
    ];

    it('destroys a connection whose transaction failed and whose ROLLBACK failed too (a Galera node that left the primary component)', () => {
      expect(releasedAfter(...HALF_DONE)).toEqual(DESTROYED);
    });

    it('pools a connection again once its ROLLBACK succeeded (a duplicate key inside a transaction, the usual 409), and after an error outside a transaction', () => {
      expect(
        releasedAfter(['START TRANSACTION'], ['INSERT INTO idempotency_keys VALUES (?)', { err: duplicate() }], ['ROLLBACK', { result: ok(false) }]),
      ).toEqual(POOLED);
      expect(releasedAfter(['INSERT INTO sites VALUES (?)', { err: duplicate() }])).toEqual(POOLED);
    });

    it('destroys a connection whose COMMIT failed, even after a ROLLBACK that succeeded: the commit’s outcome is unknown', () => {
      expect(
        releasedAfter(
          ['START TRANSACTION'],
          ['INSERT INTO comments VALUES (?)', wrote],
          ['COMMIT', { err: commitRefused() }],
          ['ROLLBACK', { result: ok(false) }],
        ),
      ).toEqual(DESTROYED);
      // The same for the trail sent with its COMMIT in one batch.
      const deadlock = Object.assign(new Error('Deadlock found'), { code: 'ER_LOCK_DEADLOCK', errno: 1213 });
      expect(
        releasedAfter(
          ['START TRANSACTION'],
          ['INSERT INTO comments VALUES (?)', wrote],
          ['INSERT INTO audit_log VALUES (?);\nCOMMIT', { err: deadlock }],
          ['ROLLBACK', { result: ok(false) }],
        ),
      ).toEqual(DESTROYED);
    });

    it('destroys a connection lost under a statement, and one released with its transaction still open', () => {
      expect(releasedAfter(['INSERT INTO sites VALUES (?)', { err: lost() }])).toEqual(DESTROYED);
      expect(releasedAfter(['START TRANSACTION'], ['INSERT INTO comments VALUES (?)', wrote])).toEqual(DESTROYED);
    });

    it('believes the server: an OK packet that says a transaction is open, or a ROLLBACK answered with one still open, keeps the connection out of the pool', () => {
      // Not a statement this code knows to open a transaction, but the server says one is open.
      expect(releasedAfter(['SET autocommit = 0', { result: ok(false) }], ['INSERT INTO sites VALUES (?)', { result: ok(true) }])).toEqual(DESTROYED);
      expect(releasedAfter(['START TRANSACTION'], ['UPDATE sites SET name = ?', { err: duplicate() }], ['ROLLBACK', { result: ok(true) }])).toEqual(DESTROYED);
    });

    it('pools a connection after a committed transaction, and after one that ended before its first statement (nothing was sent)', () => {
      expect(
        releasedAfter(
          ['START TRANSACTION'],
          ['INSERT INTO comments VALUES (?)', wrote],
          ['COMMIT', { result: ok(false) }],
          ['START TRANSACTION'],
          ['ROLLBACK'],
        ),
      ).toEqual(POOLED);
      // Released while a BEGIN was still held back: nothing open on the server either.
      expect(releasedAfter(['START TRANSACTION'])).toEqual(POOLED);
    });

    it('never sends a held-back BEGIN on a connection whose last transaction is open or in doubt: its statement fails with CONNECTION_IN_DOUBT', async () => {
      const { conn, run } = prepared();
      for (const [sql, answer] of HALF_DONE) run(sql, answer);
      const sent = conn.sent.length;
      // A caller that goes on with the same connection (it was not released) begins another transaction.
      run('START TRANSACTION');
      const refused = run('INSERT INTO comments VALUES (?)');
      await turn();
      expect(refused.mock.calls[0][0]).toMatchObject({ code: 'CONNECTION_IN_DOUBT' });
      expect(conn.sent).toHaveLength(sent);
      // Its ROLLBACK goes to the server; had it failed again, the connection would be destroyed.
      run('ROLLBACK', { err: notPrimary() });
      expect(conn.sent[sent]).toBe('ROLLBACK');
      conn.release();
      expect(fate(conn)).toEqual(DESTROYED);

      // Once a ROLLBACK succeeds and the server says no transaction is open, a BEGIN goes out again.
      const healed = prepared();
      for (const [sql, answer] of HALF_DONE.slice(0, -1)) healed.run(sql, answer);
      healed.run('ROLLBACK', { result: ok(false) });
      healed.run('START TRANSACTION');
      healed.run('SELECT 1');
      expect(healed.conn.sent[healed.conn.sent.length - 1]).toBe('START TRANSACTION;\nSELECT 1');
    });

    it('reads the server’s in-transaction flag from an OK packet or a batch’s last one, and nothing from rows', () => {
      expect(inTransactionOf(ok(true))).toBe(true);
      expect(inTransactionOf(ok(false))).toBe(false);
      expect(inTransactionOf([ok(true), ok(false)])).toBe(false);
      expect(inTransactionOf([{ id: 1, serverStatus: 1 }])).toBeUndefined();
      expect(inTransactionOf([ok(true), [{ id: 1 }]])).toBeUndefined();
      expect(inTransactionOf(undefined)).toBeUndefined();
    });
  });
});
