import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m } from './schema-helpers.js';

/**
 * The records of a period (docs/dialogs-tasks-roles-assessments.md): basic roles and their
 * ratings in dialogs, dialogs, follow-up tasks, assessments and their ratings.
 */
export class DialogsRolesAssessments1732000001000 implements MigrationInterface {
  name = 'DialogsRolesAssessments1732000001000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'basic_roles',
        columns: [
          m.guidPk(),
          ...m.tenant(),
          m.version(),
          m.guid('individual_id'),
          m.str('name', MIGRATED_LIMITS.name, false),
          m.text('description'),
          m.int('rank', { default: 0 }),
          m.int('dialogs_per_period', { default: 1 }),
          m.bool('deleted'),
          m.bool('deleted_by_ref'),
        ],
        indices: [m.index('ix_basic_roles_site_individual', ['site_id', 'individual_id', 'deleted', 'rank', 'name'])],
        foreignKeys: [m.belongsTo('fk_basic_roles_individual', 'individual_id', 'individuals')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'dialogs',
        columns: [
          m.guidPk(),
          ...m.tenant(),
          m.version(),
          m.str('kind', 20, false),
          m.guid('ancestor_id'),
          m.guid('leader_id'),
          m.int('period_id'),
          m.date('scheduled_date', false),
          m.date('occurred_date'),
          m.text('notes'),
          m.bool('deleted'),
          m.bool('deleted_by_ref'),
        ],
        indices: [
          m.index('ix_dialogs_site_leader', ['site_id', 'leader_id', 'period_id', 'scheduled_date']),
          m.index('ix_dialogs_site_ancestor', ['site_id', 'kind', 'ancestor_id', 'period_id']),
          m.index('ix_dialogs_site_period', ['site_id', 'period_id', 'scheduled_date']),
        ],
        foreignKeys: [m.belongsTo('fk_dialogs_period', 'period_id', 'periods')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'basic_role_dialogs',
        columns: [m.guidPk(), ...m.tenant(), m.version(), m.guid('basic_role_id'), m.guid('dialog_id'), m.int('rating', { nullable: true }), m.text('comment')],
        indices: [
          m.index('ux_basic_role_dialogs_pair', ['site_id', 'basic_role_id', 'dialog_id'], true),
          m.index('ix_basic_role_dialogs_site_dialog', ['site_id', 'dialog_id']),
        ],
        foreignKeys: [
          m.belongsTo('fk_basic_role_dialogs_role', 'basic_role_id', 'basic_roles'),
          m.belongsTo('fk_basic_role_dialogs_dialog', 'dialog_id', 'dialogs'),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'tasks',
        columns: [
          m.guidPk(),
          ...m.tenant(),
          m.version(),
          m.guid('dialog_id', true),
          m.str('kind', 20, false),
          m.guid('ancestor_id'),
          m.guid('assigned_to_id'),
          m.str('name', MIGRATED_LIMITS.name, false),
          m.date('due_date'),
          m.bool('completed'),
          m.date('completed_date'),
          m.bool('deleted'),
          m.bool('deleted_by_ref'),
        ],
        indices: [
          m.index('ix_tasks_site_assigned', ['site_id', 'assigned_to_id', 'deleted', 'due_date']),
          m.index('ix_tasks_site_dialog', ['site_id', 'dialog_id']),
          m.index('ix_tasks_site_ancestor', ['site_id', 'kind', 'ancestor_id']),
          m.index('ix_tasks_site_created', ['site_id', 'created']),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'assessments',
        columns: [m.guidPk(), ...m.tenant(), m.version(), m.str('kind', 20, false), m.guid('subject_id'), m.guid('assessor_id'), m.int('period_id')],
        indices: [
          m.index('ix_assessments_site_subject', ['site_id', 'subject_id', 'period_id', 'created']),
          m.index('ix_assessments_site_period', ['site_id', 'period_id', 'kind']),
          m.index('ix_assessments_site_assessor', ['site_id', 'assessor_id']),
        ],
        foreignKeys: [m.belongsTo('fk_assessments_period', 'period_id', 'periods')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'assessment_ratings',
        columns: [
          m.guidPk(),
          ...m.tenant(),
          m.version(),
          m.guid('assessment_id'),
          m.int('position'),
          m.str('item_kind', 20, false),
          m.guid('item_id', true),
          m.int('rating'),
        ],
        indices: [
          m.index('ix_assessment_ratings_site_assessment', ['site_id', 'assessment_id', 'position']),
          m.index('ix_assessment_ratings_site_item', ['site_id', 'item_kind', 'item_id']),
        ],
        foreignKeys: [m.belongsTo('fk_assessment_ratings_assessment', 'assessment_id', 'assessments')],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['assessment_ratings', 'assessments', 'tasks', 'basic_role_dialogs', 'dialogs', 'basic_roles']) await q.dropTable(table);
  }
}
