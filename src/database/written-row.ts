import type { EntityMetadata } from 'typeorm';
import { isInstant } from './kept-sql.js';
import { columnOf } from './hydrate.js';

type Column = EntityMetadata['columns'][number];

/** MySQL's INT range (the `integer` columns). */
const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
/** MySQL's TEXT: 65,535 bytes. */
const TEXT_BYTES = 65535;

/**
 * The row an UPDATE leaves, known without reading it back (docs/performance.md, "Writes: fewer
 * round trips"): the locked row as it stood, the values set, the audit columns and the version
 * bumped. Answers null — read the row back — as soon as one value might not be stored exactly as
 * given, whatever the server's SQL mode: a string that is not well-formed UTF-16 (stored with a
 * replacement character) or longer than its column, a number that is not an integer of the INT
 * range or has more decimals than its column's scale, a date outside the years 1000-9999, a value
 * of another type than its column's, a column type or transformer not listed here, or an SQL
 * expression (`ScopedRepository.plus`).
 */
export function rowAsWritten(metadata: EntityMetadata, before: Record<string, unknown>, set: Record<string, unknown>): Record<string, unknown> | null {
  const after: Record<string, unknown> = { ...before };
  for (const property in set) {
    const column = columnOf(metadata, property);
    const value = set[property];
    if (!column || column.relationMetadata || column.embeddedMetadata || column.isGenerated || column.isVirtual || !storedExactly(column, value)) return null;
    after[property] = value;
  }
  if (typeof before.version !== 'number') return null;
  after.version = before.version + 1;
  return after;
}

/** No lone surrogate (String.prototype.isWellFormed, Node 20; typed here until the project's lib has it). */
const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Whether the database gives back exactly `value` for `column` (see rowAsWritten). */
function storedExactly(column: Column, value: unknown): boolean {
  if (value === null) return column.isNullable;
  const type = typeof column.type === 'string' ? column.type : '';
  if (column.transformer && type !== 'decimal') return false;
  switch (type) {
    case 'varchar':
      return typeof value === 'string' && wellFormed(value) && (!column.length || value.length <= Number(column.length));
    case 'text':
      return typeof value === 'string' && wellFormed(value) && (value.length * 3 <= TEXT_BYTES || Buffer.byteLength(value, 'utf8') <= TEXT_BYTES);
    case 'integer':
    case 'int':
      return typeof value === 'number' && Number.isInteger(value) && value >= INT_MIN && value <= INT_MAX;
    case 'boolean':
      return typeof value === 'boolean';
    case 'datetime':
      return isInstant(value) && (column.precision ?? 0) >= 3;
    case 'decimal': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return false;
      const scale = column.scale ?? 0;
      const digits = (column.precision ?? 10) - scale;
      return Math.abs(value) < 10 ** digits && Number(value.toFixed(scale)) === value;
    }
    default:
      return false;
  }
}
