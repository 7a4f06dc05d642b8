import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The indexes behind the fields of the archive lists, which take `filter=` and `sort=`
 * (docs/queries.md): each starts with site_id and the record the archives are filed under, then
 * the field, so a filter on it reads only the index entries it selects and a sort on it walks the
 * index in order and stops after the page: Name. PeriodID had ix_archives_site_ancestor, ItemID
 * ix_archives_site_item, and ID is the primary key. (The lists' own order, PeriodID descending then
 * Name ascending, mixes directions: it sorts the record's archives once read.)
 * An index built beforehand with these columns (Galera RSU, docs/scaling.md) is found and kept.
 */
const INDEXES: readonly { table: string; name: string; columns: string[] }[] = [
  { table: 'archives', name: 'ix_archives_site_ancestor_name', columns: ['site_id', 'ancestor_id', 'name'] },
];

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export class ArchiveListQueryIndexes1732000003130 implements MigrationInterface {
  name = 'ArchiveListQueryIndexes1732000003130';

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
