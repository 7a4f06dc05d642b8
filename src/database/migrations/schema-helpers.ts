import { MigrationInterface, QueryRunner, Table, TableColumn, TableColumnOptions, TableForeignKeyOptions, TableIndexOptions } from 'typeorm';

/** A tenant table as `m.tenantTable` builds it: its name and own columns, and what it carries besides. */
export interface TenantTableOptions {
  name: string;
  /** A generated integer id (Goal, Color, Commitment, Period); a guid id otherwise. */
  id?: 'guid' | 'int';
  /** The row version after the audit columns (tables created after migration 1732000000600, which added it to the older ones). */
  versioned?: boolean;
  /** The table's own columns, between the shared ones and the soft-delete flags. */
  columns: TableColumnOptions[];
  /** Soft-deletable rows end with `deleted` and `deleted_by_ref`; `byRef` rows (memberships) are only taken down with their owner. */
  softDelete?: boolean | 'byRef';
  indices?: TableIndexOptions[];
  foreignKeys?: TableForeignKeyOptions[];
}

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
  /**
   * A tenant table, its columns in the order every one of them has: the id, `site_id` and the audit
   * columns, the row version (when `versioned`), its own columns, then the soft-delete flags.
   */
  tenantTable: (t: TenantTableOptions): Table =>
    new Table({
      name: t.name,
      columns: [
        t.id === 'int' ? m.intPk() : m.guidPk(),
        ...m.tenant(),
        ...(t.versioned ? [m.version()] : []),
        ...t.columns,
        ...(t.softDelete === true ? [m.bool('deleted')] : []),
        ...(t.softDelete ? [m.bool('deleted_by_ref')] : []),
      ],
      indices: t.indices,
      foreignKeys: t.foreignKeys,
    }),
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

/**
 * A migration that creates tables: `up` creates them in the order given, `down` drops them in the
 * reverse order (each with its indexes and foreign keys). `name` is the migration's name as TypeORM
 * records it (`<Name><13-digit timestamp>`); `tables` may ask the query runner for the dialect.
 */
export function tablesMigration(name: string, tables: (q: QueryRunner) => Table[]): new () => MigrationInterface {
  return class implements MigrationInterface {
    name = name;

    async up(q: QueryRunner): Promise<void> {
      for (const table of tables(q)) await q.createTable(table);
    }

    async down(q: QueryRunner): Promise<void> {
      for (const table of tables(q).reverse()) await q.dropTable(table.name, true);
    }
  };
}

/** A migration that adds one column to an existing table; its revert drops the column. */
export function columnMigration(name: string, table: string, column: TableColumnOptions): new () => MigrationInterface {
  return class implements MigrationInterface {
    name = name;

    async up(q: QueryRunner): Promise<void> {
      await q.addColumn(table, new TableColumn(column));
    }

    async down(q: QueryRunner): Promise<void> {
      await q.dropColumn(table, column.name);
    }
  };
}
