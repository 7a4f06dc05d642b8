import { TableColumnOptions, TableForeignKeyOptions, TableIndexOptions } from 'typeorm';

/**
 * Column builders for migrations, matching src/database/columns.ts, so one migration serves
 * SQLite and MySQL/MariaDB alike (the schema-drift e2e test holds the two in step).
 */
export const m = {
  guidPk: (): TableColumnOptions => ({ name: 'id', type: 'varchar', length: '36', isPrimary: true }),
  intPk: (): TableColumnOptions => ({ name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' }),
  guid: (name: string, nullable = false): TableColumnOptions => ({ name, type: 'varchar', length: '36', isNullable: nullable }),
  str: (name: string, length: number, nullable = true): TableColumnOptions => ({ name, type: 'varchar', length: String(length), isNullable: nullable }),
  text: (name: string, nullable = true): TableColumnOptions => ({ name, type: 'text', isNullable: nullable }),
  int: (name: string, opts: { nullable?: boolean; default?: number } = {}): TableColumnOptions => ({
    name,
    type: 'integer',
    isNullable: opts.nullable ?? false,
    default: opts.default,
  }),
  decimal: (name: string, nullable = true): TableColumnOptions => ({ name, type: 'decimal', precision: 18, scale: 4, isNullable: nullable }),
  bool: (name: string, def = false): TableColumnOptions => ({ name, type: 'boolean', default: def ? 1 : 0 }),
  date: (name: string, nullable = true): TableColumnOptions => ({ name, type: 'datetime', precision: 3, isNullable: nullable }),
  /** site_id plus the audit columns every tenant table carries. */
  tenant: (): TableColumnOptions[] => [
    { name: 'site_id', type: 'varchar', length: '36', isNullable: false },
    { name: 'created', type: 'datetime', precision: 3, isNullable: false },
    { name: 'created_by', type: 'varchar', length: '36', isNullable: true },
    { name: 'updated', type: 'datetime', precision: 3, isNullable: false },
    { name: 'updated_by', type: 'varchar', length: '36', isNullable: true },
  ],
  index: (name: string, columnNames: string[], isUnique = false): TableIndexOptions => ({ name, columnNames, isUnique }),
  /** The row version every mutable table carries (bumped by each UPDATE; ETag and If-Match; docs/architecture.md). */
  version: (): TableColumnOptions => ({ name: 'version', type: 'integer', isNullable: false, default: 1 }),
  /** A foreign key of a row that really belongs to another (docs/architecture.md, "How a write runs"). */
  belongsTo: (name: string, column: string, table: string): TableForeignKeyOptions => ({
    name,
    columnNames: [column],
    referencedTableName: table,
    referencedColumnNames: ['id'],
    onDelete: 'RESTRICT',
    onUpdate: 'RESTRICT',
  }),
};
