import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m } from './schema-helpers.js';

/** ListItem kinds (accountability, evaluation criteria, project scope, supervisory scope) and projects. */
export class ListItemsProjects1732000000400 implements MigrationInterface {
  name = 'ListItemsProjects1732000000400';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'list_items',
        columns: [
          m.guidPk(),
          ...m.tenant(),
          m.str('kind', 20, false),
          m.guid('ancestor_id'),
          m.int('rank', { default: 0 }),
          m.str('name', MIGRATED_LIMITS.name, false),
          m.text('description'),
          m.bool('deleted'),
          m.bool('deleted_by_ref'),
        ],
        indices: [m.index('ix_list_items_site_ancestor', ['site_id', 'kind', 'ancestor_id', 'deleted', 'rank', 'name'])],
      }),
    );
    await q.createTable(
      new Table({
        name: 'projects',
        columns: [
          m.guidPk(),
          ...m.tenant(),
          m.str('name', MIGRATED_LIMITS.name, false),
          m.text('description'),
          m.guid('owner_id'),
          m.guid('organization_id', true),
          m.date('start_date'),
          m.date('due_date'),
          m.date('completed_date'),
          m.int('due_date_changes', { default: 0 }),
          m.bool('deleted'),
          m.bool('deleted_by_ref'),
        ],
        indices: [
          m.index('ix_projects_site_name', ['site_id', 'deleted', 'name']),
          m.index('ix_projects_site_owner', ['site_id', 'owner_id', 'deleted', 'name']),
          m.index('ix_projects_site_org', ['site_id', 'organization_id']),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'project_due_date_changes',
        columns: [m.guidPk(), ...m.tenant(), m.guid('project_id'), m.date('previous_due_date'), m.date('new_due_date')],
        indices: [
          m.index('ix_project_due_changes_site_project', ['site_id', 'project_id', 'created']),
          m.index('ix_project_due_changes_site_created', ['site_id', 'created']),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['project_due_date_changes', 'projects', 'list_items']) await q.dropTable(t, true);
  }
}
