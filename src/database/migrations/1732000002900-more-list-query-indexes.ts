import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The indexes behind the fields of the lists that took `filter=` and `sort=` after those of
 * 1732000002800 (docs/queries.md): each starts with site_id and the list's own scope, then the
 * field, so a filter on it reads only the index entries it selects and a sort on it walks the index
 * in order and stops after the page.
 *
 * Department memberships, listed per department and per individual (only those not taken down with
 * either end, `deleted_by_ref`): Title in each scope; ID, IndividualID and OrganizationID had theirs
 * (primary key, ux_members_site_individual_org, ix_members_site_org).
 * Permissions, listed for the site (an administrator), by principal (anyone else) and per row: the
 * plain list's order (RowType, RowID, PrincipalType, PrincipalID, ChildType), which RowType sorts by
 * and which a row's list walks after its type and id; RowID and PrincipalID had theirs
 * (ux_permissions_site_row_principal_child, ix_permissions_site_principal).
 * Commitments, listed per level and record in a period (and a dashboard's level: several records):
 * Rank then Name (the list's own order; ix_commitments_site_ancestor ended at Rank), Name, DueDate
 * and Completed in that scope; ID is the primary key. Assessments, listed for the site in a period:
 * Created (the list's own order); a subject's had ix_assessments_site_subject (SubjectID, PeriodID,
 * Created), Kind ix_assessments_site_period and AssessorID ix_assessments_site_assessor.
 * An index built beforehand with these columns (Galera RSU, docs/scaling.md) is found and kept.
 */
const INDEXES: readonly { table: string; name: string; columns: string[] }[] = [
  { table: 'organization_members', name: 'ix_members_site_org_title', columns: ['site_id', 'organization_id', 'deleted_by_ref', 'title'] },
  { table: 'organization_members', name: 'ix_members_site_individual_title', columns: ['site_id', 'individual_id', 'deleted_by_ref', 'title'] },
  {
    table: 'permissions',
    name: 'ix_permissions_site_row_order',
    columns: ['site_id', 'row_type', 'row_id', 'principal_type', 'principal_id', 'child_type'],
  },
  { table: 'commitments', name: 'ix_commitments_site_ancestor_rank', columns: ['site_id', 'type', 'ancestor_id', 'period_id', 'rank', 'name'] },
  { table: 'commitments', name: 'ix_commitments_site_ancestor_name', columns: ['site_id', 'type', 'ancestor_id', 'period_id', 'name'] },
  { table: 'commitments', name: 'ix_commitments_site_ancestor_due', columns: ['site_id', 'type', 'ancestor_id', 'period_id', 'due_date'] },
  { table: 'assessments', name: 'ix_assessments_site_period_created', columns: ['site_id', 'period_id', 'created'] },
  { table: 'commitments', name: 'ix_commitments_site_ancestor_completed', columns: ['site_id', 'type', 'ancestor_id', 'period_id', 'completed'] },
];

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export class MoreListQueryIndexes1732000002900 implements MigrationInterface {
  name = 'MoreListQueryIndexes1732000002900';

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
