import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m, tablesMigration } from './schema-helpers.js';

/** ListItem kinds (accountability, evaluation criteria, project scope, supervisory scope) and projects. */
export const ListItemsProjects1732000000400 = tablesMigration('ListItemsProjects1732000000400', () => [
  m.tenantTable({
    name: 'list_items',
    columns: [
      m.str('kind', 20, false),
      m.guid('ancestor_id'),
      m.int('rank', { default: 0 }),
      m.str('name', MIGRATED_LIMITS.name, false),
      m.text('description'),
    ],
    softDelete: true,
    indices: [m.index('ix_list_items_site_ancestor', ['site_id', 'kind', 'ancestor_id', 'deleted', 'rank', 'name'])],
  }),
  m.tenantTable({
    name: 'projects',
    columns: [
      m.str('name', MIGRATED_LIMITS.name, false),
      m.text('description'),
      m.guid('owner_id'),
      m.guid('organization_id', true),
      m.date('start_date'),
      m.date('due_date'),
      m.date('completed_date'),
      m.int('due_date_changes', { default: 0 }),
    ],
    softDelete: true,
    indices: [
      m.index('ix_projects_site_name', ['site_id', 'deleted', 'name']),
      m.index('ix_projects_site_owner', ['site_id', 'owner_id', 'deleted', 'name']),
      m.index('ix_projects_site_org', ['site_id', 'organization_id']),
    ],
  }),
  m.tenantTable({
    name: 'project_due_date_changes',
    columns: [m.guid('project_id'), m.date('previous_due_date'), m.date('new_due_date')],
    indices: [
      m.index('ix_project_due_changes_site_project', ['site_id', 'project_id', 'created']),
      m.index('ix_project_due_changes_site_created', ['site_id', 'created']),
    ],
  }),
]);
