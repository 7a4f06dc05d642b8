import type { DataSource } from 'typeorm';
import { pingDatabase } from './ping.js';

/** A data source of the given type whose queries answer as `answer` says, recording what was sent. */
function fakeDataSource(type: string, answer: (sql: string) => Promise<unknown>) {
  const sent: string[] = [];
  const ds = {
    options: { type },
    query: (sql: string) => {
      sent.push(sql);
      return answer(sql);
    },
  } as unknown as DataSource;
  return { ds, sent };
}

const unknownVariable = () => Promise.reject(Object.assign(new Error("Unknown system variable 'wsrep_sync_wait'"), { code: 'ER_UNKNOWN_SYSTEM_VARIABLE' }));

describe('the readiness ping', () => {
  it('on MariaDB asks without the causal wait, so a Galera pause does not make it late', async () => {
    const { ds, sent } = fakeDataSource('mariadb', () => Promise.resolve([{ 1: 1 }]));
    await expect(pingDatabase(ds)).resolves.toBe(true);
    expect(sent).toEqual(['SET STATEMENT wsrep_sync_wait = 0 FOR SELECT 1']);
  });

  it('on MySQL, and SQLite, sends SELECT 1', async () => {
    for (const type of ['mysql', 'better-sqlite3']) {
      const { ds, sent } = fakeDataSource(type, () => Promise.resolve([]));
      await expect(pingDatabase(ds)).resolves.toBe(true);
      expect(sent).toEqual(['SELECT 1']);
    }
  });

  it('on a MariaDB built without Galera falls back to SELECT 1, and keeps to it', async () => {
    const { ds, sent } = fakeDataSource('mariadb', (sql) => (sql.startsWith('SET STATEMENT') ? unknownVariable() : Promise.resolve([])));
    await expect(pingDatabase(ds)).resolves.toBe(true);
    await expect(pingDatabase(ds)).resolves.toBe(true);
    expect(sent).toEqual(['SET STATEMENT wsrep_sync_wait = 0 FOR SELECT 1', 'SELECT 1', 'SELECT 1']);
  });

  it('answers false when the database fails the ping or does not answer in time', async () => {
    const failing = fakeDataSource('mariadb', () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })));
    await expect(pingDatabase(failing.ds)).resolves.toBe(false);
    expect(failing.sent).toHaveLength(1);
    const silent = fakeDataSource('mysql', () => new Promise(() => undefined));
    await expect(pingDatabase(silent.ds, 50)).resolves.toBe(false);
  });
});
