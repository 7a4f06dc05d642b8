import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The index behind the colors' `filter=Name` and `sort=Name` (docs/queries.md): a site's colors by
 * Name. Rank (then MinPercent) and MinPercent had ix_colors_site_rank (site_id, rank, min_percent);
 * ID is the primary key.
 * An index built beforehand with these columns (Galera RSU, docs/scaling.md) is found and kept.
 */
const INDEXES: readonly { table: string; name: string; columns: string[] }[] = [{ table: 'colors', name: 'ix_colors_site_name', columns: ['site_id', 'name'] }];

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export class ColorListQueryIndexes1732000003010 implements MigrationInterface {
  name = 'ColorListQueryIndexes1732000003010';

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
