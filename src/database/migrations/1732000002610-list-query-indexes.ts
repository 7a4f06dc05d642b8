import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The indexes behind the fields lists may be filtered and sorted on (docs/queries.md): each starts
 * with site_id and the list's `deleted` flag, then the field, so a filter on it reads only the
 * index entries it selects and a sort on it walks the index in order and stops after the page.
 * LastName (ix_individuals_site_name), ID (ix_individuals_site_deleted, which InnoDB ends with the
 * primary key), PrimaryOrganizationID and PrimaryReportsTo had theirs already, and so had an
 * organization's Name (ix_organizations_site_type) and ParentID. An index built
 * beforehand (Galera RSU, docs/scaling.md) is found and kept.
 */
const INDEXES: readonly { table: string; name: string; columns: string[] }[] = [
  { table: 'individuals', name: 'ix_individuals_site_first_name', columns: ['site_id', 'deleted', 'first_name'] },
  { table: 'individuals', name: 'ix_individuals_site_email', columns: ['site_id', 'deleted', 'email'] },
  { table: 'individuals', name: 'ix_individuals_site_hire_date', columns: ['site_id', 'deleted', 'hire_date'] },
  { table: 'individuals', name: 'ix_individuals_site_updated', columns: ['site_id', 'deleted', 'updated'] },
  // Organizations and departments: the list's row type leads after the site, as in ix_organizations_site_type (Name).
  { table: 'organizations', name: 'ix_organizations_site_rank', columns: ['site_id', 'row_type', 'deleted', 'rank', 'name'] },
  { table: 'organizations', name: 'ix_organizations_site_updated', columns: ['site_id', 'row_type', 'deleted', 'updated'] },
];

export class ListQueryIndexes1732000002610 implements MigrationInterface {
  name = 'ListQueryIndexes1732000002610';

  async up(q: QueryRunner): Promise<void> {
    for (const { table, name, columns } of INDEXES) {
      const t = await q.getTable(table);
      if (t?.indices.some((i) => i.name === name)) continue;
      await q.createIndex(table, new TableIndex({ name, columnNames: columns }));
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { table, name } of [...INDEXES].reverse()) await q.dropIndex(table, name);
  }
}
