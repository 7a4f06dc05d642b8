import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m, tablesMigration } from './schema-helpers.js';

/**
 * The records of a period (docs/dialogs-tasks-roles-assessments.md): basic roles and their
 * ratings in dialogs, dialogs, follow-up tasks, assessments and their ratings.
 */
export const DialogsRolesAssessments1732000001000 = tablesMigration('DialogsRolesAssessments1732000001000', () => [
  m.tenantTable({
    name: 'basic_roles',
    versioned: true,
    columns: [
      m.guid('individual_id'),
      m.str('name', MIGRATED_LIMITS.name, false),
      m.text('description'),
      m.int('rank', { default: 0 }),
      m.int('dialogs_per_period', { default: 1 }),
    ],
    softDelete: true,
    indices: [m.index('ix_basic_roles_site_individual', ['site_id', 'individual_id', 'deleted', 'rank', 'name'])],
    foreignKeys: [m.belongsTo('fk_basic_roles_individual', 'individual_id', 'individuals')],
  }),
  m.tenantTable({
    name: 'dialogs',
    versioned: true,
    columns: [
      m.str('kind', 20, false),
      m.guid('ancestor_id'),
      m.guid('leader_id'),
      m.int('period_id'),
      m.date('scheduled_date', false),
      m.date('occurred_date'),
      m.text('notes'),
    ],
    softDelete: true,
    indices: [
      m.index('ix_dialogs_site_leader', ['site_id', 'leader_id', 'period_id', 'scheduled_date']),
      m.index('ix_dialogs_site_ancestor', ['site_id', 'kind', 'ancestor_id', 'period_id']),
      m.index('ix_dialogs_site_period', ['site_id', 'period_id', 'scheduled_date']),
    ],
    foreignKeys: [m.belongsTo('fk_dialogs_period', 'period_id', 'periods')],
  }),
  m.tenantTable({
    name: 'basic_role_dialogs',
    versioned: true,
    columns: [m.guid('basic_role_id'), m.guid('dialog_id'), m.int('rating', { nullable: true }), m.text('comment')],
    indices: [
      m.index('ux_basic_role_dialogs_pair', ['site_id', 'basic_role_id', 'dialog_id'], true),
      m.index('ix_basic_role_dialogs_site_dialog', ['site_id', 'dialog_id']),
    ],
    foreignKeys: [
      m.belongsTo('fk_basic_role_dialogs_role', 'basic_role_id', 'basic_roles'),
      m.belongsTo('fk_basic_role_dialogs_dialog', 'dialog_id', 'dialogs'),
    ],
  }),
  m.tenantTable({
    name: 'tasks',
    versioned: true,
    columns: [
      m.guid('dialog_id', true),
      m.str('kind', 20, false),
      m.guid('ancestor_id'),
      m.guid('assigned_to_id'),
      m.str('name', MIGRATED_LIMITS.name, false),
      m.date('due_date'),
      m.bool('completed'),
      m.date('completed_date'),
    ],
    softDelete: true,
    indices: [
      m.index('ix_tasks_site_assigned', ['site_id', 'assigned_to_id', 'deleted', 'due_date']),
      m.index('ix_tasks_site_dialog', ['site_id', 'dialog_id']),
      m.index('ix_tasks_site_ancestor', ['site_id', 'kind', 'ancestor_id']),
      m.index('ix_tasks_site_created', ['site_id', 'created']),
    ],
  }),
  m.tenantTable({
    name: 'assessments',
    versioned: true,
    columns: [m.str('kind', 20, false), m.guid('subject_id'), m.guid('assessor_id'), m.int('period_id')],
    indices: [
      m.index('ix_assessments_site_subject', ['site_id', 'subject_id', 'period_id', 'created']),
      m.index('ix_assessments_site_period', ['site_id', 'period_id', 'kind']),
      m.index('ix_assessments_site_assessor', ['site_id', 'assessor_id']),
    ],
    foreignKeys: [m.belongsTo('fk_assessments_period', 'period_id', 'periods')],
  }),
  m.tenantTable({
    name: 'assessment_ratings',
    versioned: true,
    columns: [m.guid('assessment_id'), m.int('position'), m.str('item_kind', 20, false), m.guid('item_id', true), m.int('rating')],
    indices: [
      m.index('ix_assessment_ratings_site_assessment', ['site_id', 'assessment_id', 'position']),
      m.index('ix_assessment_ratings_site_item', ['site_id', 'item_kind', 'item_id']),
    ],
    foreignKeys: [m.belongsTo('fk_assessment_ratings_assessment', 'assessment_id', 'assessments')],
  }),
]);
