import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable, isPrimaryKeyViolation, isRetryableConflict, isUniqueViolation, isLostConnection, isPlainRead } from './db-errors.js';

const driver = (code: string, message: string) => new QueryFailedError('INSERT …', [], Object.assign(new Error(message), { code }));

describe('database error classification', () => {
  it('tells a primary-key clash from another unique key on MySQL/MariaDB, which use one code for both', () => {
    const pkMariaDb = driver('ER_DUP_ENTRY', "Duplicate entry '6f9619ff-8b86-4d01-b42d-00c04fc964ff' for key 'PRIMARY'");
    const pkMySql8 = driver('ER_DUP_ENTRY', "Duplicate entry '6f9619ff' for key 'organization_members.PRIMARY'");
    const otherKey = driver('ER_DUP_ENTRY', "Duplicate entry 's-i-o' for key 'ux_members_site_individual_org'");
    expect([pkMariaDb, pkMySql8, otherKey].map(isUniqueViolation)).toEqual([true, true, true]);
    expect([pkMariaDb, pkMySql8, otherKey].map(isPrimaryKeyViolation)).toEqual([true, true, false]);
  });

  it('reads SQLite’s distinct codes', () => {
    const pk = driver('SQLITE_CONSTRAINT_PRIMARYKEY', 'UNIQUE constraint failed: comments.id');
    const other = driver('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: users.user_name_key');
    expect([isPrimaryKeyViolation(pk), isPrimaryKeyViolation(other)]).toEqual([true, false]);
    expect([isUniqueViolation(pk), isUniqueViolation(other)]).toEqual([true, true]);
  });

  it('ignores everything else', () => {
    expect(isUniqueViolation(driver('ER_PARSE_ERROR', 'syntax'))).toBe(false);
    expect(isUniqueViolation(new Error('plain'))).toBe(false);
    expect(isPrimaryKeyViolation(null)).toBe(false);
  });
});

describe('database unavailability', () => {
  it('recognises a stopped statement, a full or slow pool and a lost connection', () => {
    const mariaDbTimeout = new QueryFailedError(
      'SELECT …',
      [],
      Object.assign(new Error('Query execution was interrupted (max_statement_time exceeded)'), { errno: 1969 }),
    );
    const mysqlTimeout = driver('ER_QUERY_TIMEOUT', 'Query execution was interrupted, maximum statement execution time exceeded');
    const queueFull = new Error('Queue limit reached.');
    const acquire = Object.assign(new Error('No database connection became available within 5000 ms'), { code: 'POOL_ACQUIRE_TIMEOUT' });
    const lost = driver('PROTOCOL_CONNECTION_LOST', 'Connection lost: The server closed the connection.');
    expect([mariaDbTimeout, mysqlTimeout, queueFull, acquire, lost].map(isDatabaseUnavailable)).toEqual([true, true, true, true, true]);
  });

  it('counts a Galera node outside the primary component as unavailable, and a certification failure as a retryable conflict', () => {
    const notReady = driver('ER_UNKNOWN_COM_ERROR', 'WSREP has not yet prepared node for application use');
    const certification = driver('ER_LOCK_DEADLOCK', 'Deadlock found when trying to get lock; try restarting transaction');
    expect(isDatabaseUnavailable(notReady)).toBe(true);
    expect(isRetryableConflict(certification)).toBe(true);
  });

  it('counts a COMMIT the node refused after it left the cluster, a killed session and a connection in doubt as unavailable', () => {
    const commitRefused = new QueryFailedError(
      'COMMIT',
      [],
      Object.assign(new Error('Got error 6 "No such device or address" during COMMIT'), { code: 'ER_ERROR_DURING_COMMIT', errno: 1180 }),
    );
    const wsrepWords = driver('ER_ERROR_DURING_COMMIT', 'Not connected to Primary Component');
    const killed = new QueryFailedError('SELECT …', [], Object.assign(new Error('Connection was killed'), { errno: 1927, sqlState: '70100' }));
    const inDoubt = new QueryFailedError('INSERT …', [], Object.assign(new Error('in doubt'), { code: 'CONNECTION_IN_DOUBT' }));
    const socketFailed = new QueryFailedError('INSERT …', [], Object.assign(new Error('read ETIMEDOUT-like failure'), { fatal: true }));
    expect([commitRefused, wsrepWords, killed, inDoubt, socketFailed].map(isDatabaseUnavailable)).toEqual([true, true, true, true, true]);
  });

  it('leaves programming and data errors alone', () => {
    expect(isDatabaseUnavailable(driver('ER_PARSE_ERROR', 'syntax'))).toBe(false);
    expect(isDatabaseUnavailable(driver('ER_DUP_ENTRY', "Duplicate entry 'x' for key 'PRIMARY'"))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});

describe('a read that lost its connection', () => {
  const fatal = (message: string, code?: string) => Object.assign(new Error(message), { fatal: true, ...(code ? { code } : {}) });

  it('recognises a connection the server or a proxy closed or reset, and a statement given to a connection already closed', () => {
    expect(isLostConnection(fatal('Connection lost: The server closed the connection.', 'PROTOCOL_CONNECTION_LOST'))).toBe(true);
    expect(isLostConnection(fatal('read ECONNRESET', 'ECONNRESET'))).toBe(true);
    expect(isLostConnection(fatal('write EPIPE', 'EPIPE'))).toBe(true);
    expect(isLostConnection(fatal("Can't add new command when connection is in closed state"))).toBe(true);
    // TypeORM wraps the driver's error.
    expect(isLostConnection({ driverError: fatal('Connection lost', 'PROTOCOL_CONNECTION_LOST') })).toBe(true);
  });

  it('leaves statement errors, timeouts and errors the driver did not mark fatal alone', () => {
    expect(isLostConnection(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(false);
    expect(isLostConnection(fatal('Query inactivity timeout', 'PROTOCOL_SEQUENCE_TIMEOUT'))).toBe(false);
    expect(isLostConnection(Object.assign(new Error('syntax'), { code: 'ER_PARSE_ERROR' }))).toBe(false);
    expect(isLostConnection(null)).toBe(false);
  });

  it('counts plain SELECT and SHOW as reads, never a write or a read that takes locks', () => {
    expect(isPlainRead('SELECT `s`.`id` FROM `sites` `s` WHERE `s`.`id` = ?')).toBe(true);
    expect(isPlainRead('  (SELECT 1) UNION (SELECT 2)')).toBe(true);
    expect(isPlainRead("SHOW VARIABLES LIKE 'wsrep_on'")).toBe(true);
    expect(isPlainRead('SELECT id FROM goals WHERE site_id = ? FOR UPDATE')).toBe(false);
    expect(isPlainRead('SELECT id FROM goals WHERE site_id = ? FOR SHARE')).toBe(false);
    expect(isPlainRead('SELECT id FROM goals LOCK IN SHARE MODE')).toBe(false);
    expect(isPlainRead("SELECT GET_LOCK('x', 1)")).toBe(false);
    expect(isPlainRead('UPDATE goals SET name = ? WHERE id = ?')).toBe(false);
    expect(isPlainRead('INSERT INTO comments SELECT * FROM x')).toBe(false);
    expect(isPlainRead('')).toBe(false);
    // MariaDB's per-statement settings in front (the readiness ping's, src/database/ping.ts).
    expect(isPlainRead('SET STATEMENT wsrep_sync_wait = 0 FOR SELECT 1')).toBe(true);
    expect(isPlainRead("set statement max_statement_time=1.5, tx_isolation='READ-COMMITTED' for SHOW STATUS")).toBe(true);
    expect(isPlainRead('SET STATEMENT wsrep_sync_wait = 0 FOR SELECT id FROM goals FOR UPDATE')).toBe(false);
    expect(isPlainRead('SET STATEMENT wsrep_sync_wait = 0 FOR UPDATE goals SET name = ?')).toBe(false);
    expect(isPlainRead('SET SESSION wsrep_sync_wait = 0')).toBe(false);
  });
});
