import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The index behind the basic roles' `sort=Name` (docs/queries.md): an individual's roles, listed
 * per individual and `deleted`, by Name. Rank (then Name), `deleted` and IndividualID had
 * ix_basic_roles_site_individual (site_id, individual_id, deleted, rank, name); ID is the primary key.
 * An index built beforehand with these columns (Galera RSU, docs/scaling.md) is found and kept.
 */
const INDEXES: readonly { table: string; name: string; columns: string[] }[] = [
  { table: 'basic_roles', name: 'ix_basic_roles_site_individual_name', columns: ['site_id', 'individual_id', 'deleted', 'name'] },
];

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export class BasicRoleListQueryIndexes1732000003000 implements MigrationInterface {
  name = 'BasicRoleListQueryIndexes1732000003000';

  async up(q: QueryRunner): Promise<void> {
    for (const { table, name, columns } of INDEXES) {
      const found = (await q.getTable(table))?.indices.find((i) => i.name === name);
      if (found && same(found.columnNames, columns)) continue;
      if (found) await q.dropIndex(table, name);
      await q.createIndex(table, new TableIndex({ name, columnNames: columns }));
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { table, name } of [...INDEXES].reverse()) await q.dropIndex(table, name);
  }
}
