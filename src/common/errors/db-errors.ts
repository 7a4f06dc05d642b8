/**
 * Recognising database errors the same way everywhere: both drivers report unique-key clashes
 * with their own codes, and MySQL/MariaDB use one code (ER_DUP_ENTRY) for every unique key, so a
 * primary-key clash is told apart by the key name in the message.
 */
const UNIQUE_CODES = new Set(['ER_DUP_ENTRY', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

/** The driver's error code of an error (TypeORM wraps it in driverError). */
export function dbErrorCode(e: unknown): string | undefined {
  const err = e as { code?: unknown; driverError?: { code?: unknown }; cause?: { code?: unknown } } | null;
  const code = err?.driverError?.code ?? err?.code ?? err?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

function dbErrorMessage(e: unknown): string {
  const err = e as { message?: unknown; driverError?: { message?: unknown } } | null;
  return String(err?.driverError?.message ?? err?.message ?? '');
}

/** Any unique-key clash (a concurrent request won the race for the same key). */
export function isUniqueViolation(e: unknown): boolean {
  const code = dbErrorCode(e);
  return code !== undefined && UNIQUE_CODES.has(code);
}

/** A clash on the primary key (the record id) only, not on another unique index. */
export function isPrimaryKeyViolation(e: unknown): boolean {
  const code = dbErrorCode(e);
  if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return true;
  return code === 'ER_DUP_ENTRY' && /for key '(?:[\w$]+\.)?PRIMARY'/.test(dbErrorMessage(e));
}

/**
 * A transaction lost to a concurrent one and may simply be run again: a MySQL/MariaDB deadlock or
 * lock-wait timeout (on a Galera cluster also a certification failure: a conflicting write
 * committed first through another node, reported at commit as the same deadlock, 1213), or
 * SQLite's busy answer.
 */
const RETRYABLE_CODES = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED']);

export function isRetryableConflict(e: unknown): boolean {
  const code = dbErrorCode(e);
  return code !== undefined && RETRYABLE_CODES.has(code);
}

/** A foreign key refused the write: the referenced row is gone, or a row still references it. */
export function isForeignKeyViolation(e: unknown): boolean {
  const code = dbErrorCode(e);
  return (
    code === 'SQLITE_CONSTRAINT_FOREIGNKEY' ||
    code === 'ER_NO_REFERENCED_ROW_2' ||
    code === 'ER_ROW_IS_REFERENCED_2' ||
    code === 'ER_NO_REFERENCED_ROW' ||
    code === 'ER_ROW_IS_REFERENCED'
  );
}

/**
 * A `.catch` handler for a write whose referenced row may vanish between the check and the
 * write (a concurrent delete): the foreign key refuses the write, and the caller answers as its
 * own check would have.
 */
export function onForeignKeyViolation(answer: () => Error): (e: unknown) => never {
  return (e: unknown): never => {
    if (isForeignKeyViolation(e)) throw answer();
    throw e;
  };
}

/**
 * Codes meaning the database cannot serve the request right now, so the answer is 503 with
 * Retry-After (docs/operations.md): it is unreachable, lost the connection, stopped a statement at
 * its time limit, timed out a lock wait, or the pool has no connection to give in time.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  // Galera: the node is not part of the primary component, or not synced yet ("WSREP has not yet
  // prepared node for application use", 1047): another node will answer the retry.
  'ER_UNKNOWN_COM_ERROR',
  // A COMMIT the node refused: on Galera "Not connected to Primary Component" (the node left the
  // cluster between the transaction's last statement and its COMMIT); nothing was committed there.
  'ER_ERROR_DURING_COMMIT',
  // The server ended the session (idle too long, or killed) or its network failed under a statement.
  'ER_CLIENT_INTERACTION_TIMEOUT',
  'ER_NEW_ABORTING_CONNECTION',
  'ER_NET_READ_ERROR',
  'ER_NET_READ_INTERRUPTED',
  'ER_NET_ERROR_ON_WRITE',
  'ER_NET_WRITE_INTERRUPTED',
  // bounded-mysql.ts: a transaction not begun on a connection whose last one is open or in doubt.
  'CONNECTION_IN_DOUBT',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_LOCK_DEADLOCK',
  // MySQL: max_execution_time exceeded; a statement stopped by KILL QUERY.
  'ER_QUERY_TIMEOUT',
  'ER_QUERY_INTERRUPTED',
  'ER_STATEMENT_TIMEOUT',
  'POOL_ACQUIRE_TIMEOUT',
  'POOL_QUEUE_LIMIT',
  'POOL_CLOSED',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
]);

/**
 * MariaDB's numbers mysql2 has no code name for (its names are MySQL's): max_statement_time
 * exceeded (1969), "Connection was killed" (1927); and 1047 and 1180 by number as well.
 */
const UNAVAILABLE_ERRNOS = new Set([1969, 1927, 1047, 1180]);

/**
 * Drivers that report a lost connection or a full pool without a code; and Galera's own words for
 * a node that is not (or no longer) part of the primary component, whatever error carries them.
 */
const UNAVAILABLE_MESSAGE =
  /database connection is not open|connection is not established|pool is closed|queue limit reached|connection is in closed state|can't add new command when connection is in closed state|connection lost|not connected to primary component|wsrep has not yet prepared node/i;

const UNAVAILABLE_NAMES = new Set(['CannotConnectAlreadyConnectedError', 'ConnectionIsNotSetError', 'DriverNotInitialized']);

/** The database is unreachable, too slow or saturated: the request may be retried later. */
export function isDatabaseUnavailable(e: unknown): boolean {
  const code = dbErrorCode(e);
  if (code !== undefined && UNAVAILABLE_CODES.has(code)) return true;
  const err = e as { errno?: unknown; driverError?: { errno?: unknown } } | null;
  const errno = err?.driverError?.errno ?? err?.errno;
  if (typeof errno === 'number' && UNAVAILABLE_ERRNOS.has(errno)) return true;
  if (UNAVAILABLE_MESSAGE.test(dbErrorMessage(e))) return true;
  // mysql2 marks `fatal` every error after which the connection is unusable (its socket failed).
  const driverError = (e as { driverError?: unknown } | null)?.driverError ?? e;
  if ((driverError as { fatal?: unknown } | null)?.fatal === true) return true;
  const name = (e as { name?: unknown } | null)?.name;
  return typeof name === 'string' && UNAVAILABLE_NAMES.has(name);
}

/** Codes of a connection the server side closed or reset under a statement (the socket is gone). */
const LOST_CONNECTION_CODES = new Set(['PROTOCOL_CONNECTION_LOST', 'ECONNRESET', 'EPIPE']);

/**
 * The statement failed because its pooled connection was dead, not because of the statement: the
 * proxy or the server closed the connection (mysql2 marks such errors `fatal`), or the statement
 * was given to a connection already found closed. Nothing ran, or the server dropped the session
 * with whatever ran in it; the same read on another connection may succeed (docs/operations.md,
 * "A connection closed under a read").
 */
export function isLostConnection(e: unknown): boolean {
  const err = (e as { driverError?: unknown } | null)?.driverError ?? e;
  const fatal = (err as { fatal?: unknown } | null)?.fatal === true;
  if (!fatal) return false;
  const code = dbErrorCode(err);
  if (code !== undefined && LOST_CONNECTION_CODES.has(code)) return true;
  return /connection is in closed state/i.test(dbErrorMessage(err));
}

/** MariaDB's settings for one statement (`SET STATEMENT name = value, … FOR <statement>`), before that statement. */
const STATEMENT_SETTINGS = /^\s*SET\s+STATEMENT\s+\w+\s*=\s*(?:'[^']*'|[\w.-]+)(?:\s*,\s*\w+\s*=\s*(?:'[^']*'|[\w.-]+))*\s+FOR\s+/i;

/**
 * A statement that only reads and holds no lock (a plain SELECT or SHOW, also under MariaDB's
 * `SET STATEMENT … FOR`, as the readiness ping is), so running it again on another connection,
 * outside any transaction, cannot do anything twice.
 */
export function isPlainRead(sql: string): boolean {
  const statement = sql.replace(STATEMENT_SETTINGS, '');
  return /^\s*\(?\s*(?:SELECT|SHOW)\b/i.test(statement) && !/\bFOR\s+(?:UPDATE|SHARE)\b|\bLOCK\s+IN\s+SHARE\s+MODE\b|\bGET_LOCK\s*\(/i.test(statement);
}
