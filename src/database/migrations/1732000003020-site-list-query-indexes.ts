import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The index behind the sites' `filter=Name` and `sort=Name` (docs/queries.md), the global
 * administrator's list of every site by Name. The sites table is not a tenant table (its id is every
 * other table's site_id), so this index does not start with site_id; ID is the primary key.
 * An index built beforehand with these columns (Galera RSU, docs/scaling.md) is found and kept.
 */
const INDEXES: readonly { table: string; name: string; columns: string[] }[] = [{ table: 'sites', name: 'ix_sites_name', columns: ['name'] }];

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export class SiteListQueryIndexes1732000003020 implements MigrationInterface {
  name = 'SiteListQueryIndexes1732000003020';

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
