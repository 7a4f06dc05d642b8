import { jest } from '@jest/globals';
import type { DataSource, EntityManager } from 'typeorm';
import { RequestContext } from '../common/context/request-context.js';
import { ServiceUnavailableError } from '../common/errors/errors.js';
import { TenantDb, TRANSACTION_ATTEMPTS } from './tenant-db.js';
import { sql } from './statements.js';
import { setTimeout as sleep } from 'node:timers/promises';

const UPDATE_A = sql('test.update-a', 'UPDATE a SET x = ?');
const UPDATE_B = sql('test.update-b', 'UPDATE b SET y = ?');

const deadlock = () => Object.assign(new Error('Deadlock found when trying to get lock'), { driverError: { code: 'ER_LOCK_DEADLOCK' } });

function fakeDataSource(type: 'mysql' | 'better-sqlite3', failures: unknown[] = []) {
  const managers: EntityManager[] = [];
  /** One pooled connection, as the pool hands it out again and again. */
  const connection = { id: 'conn-1' };
  const statements: string[] = [];
  const transaction = jest.fn((m: EntityManager) => m);
  const ds = {
    options: { type },
    manager: { name: 'pool' } as unknown as EntityManager,
    /** What the pool is asked outside transactions: whether this is a Galera node (a single server here). */
    asked: [] as string[],
    query: async (sql: string) => {
      ds.asked.push(sql);
      return [];
    },
    createQueryRunner: () => {
      const manager = { name: `tx${managers.length}`, query: async (sql: string) => void statements.push(sql) } as unknown as EntityManager;
      managers.push(manager);
      const runner = {
        manager,
        isTransactionActive: false,
        connect: async () => connection,
        query: async (sql: string) => void statements.push(sql),
        startTransaction: async () => {
          transaction(manager);
          runner.isTransactionActive = true;
          statements.push('START TRANSACTION');
        },
        commitTransaction: async () => {
          const failure = failures.shift();
          if (failure) throw failure; // fails at commit, after the callback ran
          runner.isTransactionActive = false;
          statements.push('COMMIT');
        },
        rollbackTransaction: async () => {
          runner.isTransactionActive = false;
          statements.push('ROLLBACK');
        },
        release: async () => undefined,
        // What the subscribers are told; commitTransaction() tells them too (not recorded here).
        broadcaster: { broadcast: async (event: string) => void statements.push(`(${event})`) },
      };
      return runner;
    },
  };
  return { ds: ds as unknown as DataSource, asked: ds.asked, transaction, managers, statements };
}

describe('TenantDb.transaction', () => {
  const ctx = () => RequestContext.system('00000000-0000-4000-8000-000000000001');

  it('binds the context to the transaction while the callback runs, and only then', async () => {
    const { ds, managers } = fakeDataSource('mysql');
    const sut = new TenantDb(ds);
    const c = ctx();
    const inside = await sut.transaction(c, async () => sut.managerOf(c));
    expect(inside).toBe(managers[0]);
    expect(sut.managerOf(c)).toBe(ds.manager);
    expect(sut.inTransaction(c)).toBe(false);
  });

  it('joins the outer transaction when called again with the same context', async () => {
    const { ds, transaction } = fakeDataSource('mysql');
    const sut = new TenantDb(ds);
    const c = ctx();
    await sut.transaction(c, () => sut.transaction(c, async () => 'nested'));
    expect(transaction).toHaveBeenCalledTimes(1);
  });

  it('runs a transaction that lost a deadlock again, and answers its result', async () => {
    const { ds, transaction } = fakeDataSource('mysql', [deadlock()]);
    const sut = new TenantDb(ds);
    await expect(sut.transaction(ctx(), async () => 'done')).resolves.toBe('done');
    expect(transaction).toHaveBeenCalledTimes(2);
  });

  it(`gives up after ${TRANSACTION_ATTEMPTS} lock conflicts with a 503 that says when to retry`, async () => {
    const { ds, transaction } = fakeDataSource('mysql', Array.from({ length: TRANSACTION_ATTEMPTS }, deadlock));
    const sut = new TenantDb(ds);
    const err = await sut.transaction(ctx(), async () => 'never').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect((err as ServiceUnavailableError).headers['Retry-After']).toBe('1');
    expect(transaction).toHaveBeenCalledTimes(TRANSACTION_ATTEMPTS);
  });

  it('does not retry other failures', async () => {
    const { ds, transaction } = fakeDataSource('mysql');
    const sut = new TenantDb(ds);
    await expect(
      sut.transaction(ctx(), async () => {
        throw new Error('validation');
      }),
    ).rejects.toThrow('validation');
    expect(transaction).toHaveBeenCalledTimes(1);
  });

  it('starts a transaction without a statement before it (the isolation level is the connection’s, bounded-mysql.ts)', async () => {
    const { ds, statements, asked } = fakeDataSource('mysql');
    const sut = new TenantDb(ds);
    await sut.transaction(ctx(), async () => 'one');
    await sut.transaction(ctx(), async () => 'two');
    expect(statements).toEqual(['START TRANSACTION', 'COMMIT', 'START TRANSACTION', 'COMMIT']);
    // Whether the trail may go with the COMMIT (not on Galera) is asked once, outside the transactions.
    expect(asked).toEqual(["SHOW VARIABLES LIKE 'wsrep_on'"]);
  });

  it('sends a write left for the commit (sqlAtCommit) in the COMMIT’s round trip on MySQL/MariaDB, in the order asked', async () => {
    const { ds, statements } = fakeDataSource('mysql');
    const sut = new TenantDb(ds);
    const c = ctx();
    await sut.transaction(c, async () => {
      sut.sqlAtCommit(c, UPDATE_A, [1]);
      sut.sqlAtCommit(c, UPDATE_B, [2]);
      // Not sent yet: the callback goes on without waiting for it.
      expect(statements).toEqual(['START TRANSACTION']);
    });
    // The subscribers hear of the commit, as after commitTransaction() (the caller cache drops a caller read meanwhile).
    expect(statements).toEqual(['START TRANSACTION', 'UPDATE a SET x = ?;\nUPDATE b SET y = ?;\nCOMMIT', '(AfterTransactionCommit)']);
  });

  it('runs a write left for the commit just before the COMMIT on SQLite, and refuses one outside a transaction', async () => {
    const { ds, statements } = fakeDataSource('better-sqlite3');
    const sut = new TenantDb(ds);
    const c = ctx();
    await sut.transaction(c, async () => sut.sqlAtCommit(c, UPDATE_A, [1]));
    expect(statements).toEqual(['START TRANSACTION', 'UPDATE a SET x = ?', 'COMMIT']);
    expect(() => sut.sqlAtCommit(ctx(), UPDATE_A, [1])).toThrow('inside TenantDb.transaction');
  });

  it('rolls back a transaction whose callback fails', async () => {
    const { ds, statements } = fakeDataSource('better-sqlite3');
    const sut = new TenantDb(ds);
    await expect(sut.transaction(ctx(), () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(statements).toEqual(['START TRANSACTION', 'ROLLBACK']);
  });

  it('runs SQLite transactions one at a time (one connection cannot hold two)', async () => {
    const { ds } = fakeDataSource('better-sqlite3');
    const sut = new TenantDb(ds);
    const events: string[] = [];
    const work = (name: string) =>
      sut.transaction(ctx(), async () => {
        events.push(`${name} begin`);
        await sleep(20);
        events.push(`${name} end`);
      });
    await Promise.all([work('a'), work('b')]);
    expect(events).toEqual(['a begin', 'a end', 'b begin', 'b end']);
  });
});
