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
 * lock-wait timeout, or SQLite's busy answer.
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
