import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The indexes behind the fields of the lists that took `filter=` and `sort=` after individuals,
 * departments and organizations (docs/queries.md; 1732000002610 has theirs): each starts with
 * site_id and the list's own scope, then the field, so a filter on it reads only the index entries
 * it selects and a sort on it walks the index in order and stops after the page.
 *
 * Goals (an individual's, in a period): DueDate and ID had ix_goals_site_individual_period
 * (InnoDB ends it with the primary key). Tasks, listed for the site and per assignee: the
 * assignee's ix_tasks_site_assigned gains `created` (DueDate's order continues with creation, as
 * the plain list's does) and each list's scope gets Name and Completed; ID, Kind, AncestorID and
 * DialogID had theirs (primary key, ix_tasks_site_ancestor, ix_tasks_site_dialog). Projects, listed
 * for the site and per owner: DueDate and CompletedDate in each scope; Name, OwnerID and
 * OrganizationID had theirs (ix_projects_site_name, _owner, _org). Periods: StartDate (its order
 * continues with the ID; ix_periods_site_dates has EndDate between), EndDate, Name, Closed and
 * Updated. Metrics, listed for the site and per individual or project: Is8020 and Target in each
 * scope; Name, Kind and AncestorID had ix_metrics_site_name and ix_metrics_site_ancestor. Core
 * values: Name; Rank (then Name) had ix_core_values_site_rank. An index built
 * beforehand with these columns (Galera RSU, docs/scaling.md) is found and kept.
 */
const INDEXES: readonly { table: string; name: string; columns: string[] }[] = [
  { table: 'goals', name: 'ix_goals_site_individual_name', columns: ['site_id', 'individual_id', 'period_id', 'name'] },
  { table: 'goals', name: 'ix_goals_site_individual_completed', columns: ['site_id', 'individual_id', 'period_id', 'completed', 'due_date'] },
  { table: 'tasks', name: 'ix_tasks_site_assigned', columns: ['site_id', 'assigned_to_id', 'deleted', 'due_date', 'created'] },
  { table: 'tasks', name: 'ix_tasks_site_assigned_name', columns: ['site_id', 'assigned_to_id', 'deleted', 'name'] },
  { table: 'tasks', name: 'ix_tasks_site_assigned_completed', columns: ['site_id', 'assigned_to_id', 'deleted', 'completed', 'due_date'] },
  { table: 'tasks', name: 'ix_tasks_site_due', columns: ['site_id', 'deleted', 'due_date', 'created'] },
  { table: 'tasks', name: 'ix_tasks_site_name', columns: ['site_id', 'deleted', 'name'] },
  { table: 'tasks', name: 'ix_tasks_site_completed', columns: ['site_id', 'deleted', 'completed', 'due_date'] },
  { table: 'projects', name: 'ix_projects_site_due', columns: ['site_id', 'deleted', 'due_date'] },
  { table: 'projects', name: 'ix_projects_site_completed', columns: ['site_id', 'deleted', 'completed_date'] },
  { table: 'projects', name: 'ix_projects_site_owner_due', columns: ['site_id', 'owner_id', 'deleted', 'due_date'] },
  { table: 'projects', name: 'ix_projects_site_owner_completed', columns: ['site_id', 'owner_id', 'deleted', 'completed_date'] },
  { table: 'periods', name: 'ix_periods_site_end', columns: ['site_id', 'end_date'] },
  { table: 'periods', name: 'ix_periods_site_name', columns: ['site_id', 'name'] },
  { table: 'periods', name: 'ix_periods_site_start', columns: ['site_id', 'start_date'] },
  { table: 'periods', name: 'ix_periods_site_closed', columns: ['site_id', 'closed', 'start_date'] },
  { table: 'periods', name: 'ix_periods_site_updated', columns: ['site_id', 'updated'] },
  { table: 'metrics', name: 'ix_metrics_site_8020', columns: ['site_id', 'deleted', 'is_8020', 'name'] },
  { table: 'metrics', name: 'ix_metrics_site_target', columns: ['site_id', 'deleted', 'target'] },
  { table: 'metrics', name: 'ix_metrics_site_ancestor_8020', columns: ['site_id', 'kind', 'ancestor_id', 'deleted', 'is_8020', 'name'] },
  { table: 'core_values', name: 'ix_core_values_site_name', columns: ['site_id', 'deleted', 'name'] },
  { table: 'metrics', name: 'ix_metrics_site_ancestor_target', columns: ['site_id', 'kind', 'ancestor_id', 'deleted', 'target'] },
];

/** The columns an index had before this migration, where it changes one (restored by down). */
const BEFORE: Readonly<Record<string, string[]>> = {
  ix_tasks_site_assigned: ['site_id', 'assigned_to_id', 'deleted', 'due_date'],
};
const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export class MoreListQueryIndexes1732000002620 implements MigrationInterface {
  name = 'MoreListQueryIndexes1732000002620';

  async up(q: QueryRunner): Promise<void> {
    for (const { table, name, columns } of INDEXES) {
      const found = (await q.getTable(table))?.indices.find((i) => i.name === name);
      if (found && same(found.columnNames, columns)) continue;
      if (found) await q.dropIndex(table, name);
      await q.createIndex(table, new TableIndex({ name, columnNames: columns }));
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { table, name } of [...INDEXES].reverse()) {
      await q.dropIndex(table, name);
      if (BEFORE[name]) await q.createIndex(table, new TableIndex({ name, columnNames: BEFORE[name] }));
    }
  }
}
