import { MigrationInterface, QueryRunner, TableColumn, TableForeignKey } from 'typeorm';

/**
 * Optimistic concurrency and owned references (docs/architecture.md, "How a write runs"):
 * - every mutable table gets `version`, bumped by each UPDATE; If-Match is checked against it
 *   in the UPDATE's own WHERE, and the ETag is derived from it;
 * - foreign keys where a row really belongs to another and both dialects can enforce it.
 *   Foreign key names are fixed here and in the entities (`fk_…`), so the schema-drift test
 *   compares like with like.
 */
export const VERSIONED_TABLES = [
  'sites',
  'individuals',
  'organizations',
  'organization_members',
  'periods',
  'comments',
  'list_items',
  'projects',
  'project_due_date_changes',
  'goals',
  'colors',
  'core_values',
  'commitments',
];

export const FOREIGN_KEYS: { table: string; name: string; column: string; references: string }[] = [
  { table: 'goals', name: 'fk_goals_period', column: 'period_id', references: 'periods' },
  { table: 'commitments', name: 'fk_commitments_period', column: 'period_id', references: 'periods' },
  { table: 'project_due_date_changes', name: 'fk_project_due_changes_project', column: 'project_id', references: 'projects' },
  { table: 'organization_members', name: 'fk_members_individual', column: 'individual_id', references: 'individuals' },
  { table: 'organization_members', name: 'fk_members_organization', column: 'organization_id', references: 'organizations' },
];

export class RowVersionsForeignKeys1732000000600 implements MigrationInterface {
  name = 'RowVersionsForeignKeys1732000000600';

  async up(q: QueryRunner): Promise<void> {
    for (const table of VERSIONED_TABLES) {
      await q.addColumn(table, new TableColumn({ name: 'version', type: 'integer', isNullable: false, default: 1 }));
    }
    for (const table of [...new Set(FOREIGN_KEYS.map((f) => f.table))]) {
      await q.createForeignKeys(
        table,
        FOREIGN_KEYS.filter((f) => f.table === table).map(
          (f) =>
            new TableForeignKey({
              name: f.name,
              columnNames: [f.column],
              referencedTableName: f.references,
              referencedColumnNames: ['id'],
              onDelete: 'RESTRICT',
              onUpdate: 'RESTRICT',
            }),
        ),
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const f of [...FOREIGN_KEYS].reverse()) await q.dropForeignKey(f.table, f.name);
    for (const table of [...VERSIONED_TABLES].reverse()) await q.dropColumn(table, 'version');
  }
}
