import { Table } from 'typeorm';
import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m, tablesMigration } from './schema-helpers.js';

/** Sites, login accounts, individuals, organizations, memberships and periods. */
export const Foundation1732000000000 = tablesMigration('Foundation1732000000000', () => [
  new Table({
    name: 'sites',
    columns: [
      m.guidPk(),
      m.str('name', MIGRATED_LIMITS.name, false),
      m.bool('performance_management', true),
      m.date('created', false),
      m.guid('created_by', true),
      m.date('updated', false),
      m.guid('updated_by', true),
    ],
  }),
  new Table({
    name: 'users',
    columns: [
      m.guidPk(),
      m.guid('site_id'),
      m.str('user_name', MIGRATED_LIMITS.name, false),
      m.str('user_name_key', MIGRATED_LIMITS.name, false),
      m.str('email', MIGRATED_LIMITS.name),
      m.str('password_hash', MIGRATED_LIMITS.name),
      m.bool('is_global_admin'),
      m.date('created', false),
      m.date('updated', false),
    ],
    indices: [m.index('ux_users_user_name_key', ['user_name_key'], true), m.index('ix_users_site', ['site_id'])],
  }),
  m.tenantTable({
    name: 'individuals',
    columns: [
      m.guid('user_id', true),
      m.bool('is_admin'),
      m.str('prefix', MIGRATED_LIMITS.affix),
      m.str('suffix', MIGRATED_LIMITS.affix),
      m.str('first_name', MIGRATED_LIMITS.personName, false),
      m.str('last_name', MIGRATED_LIMITS.personName, false),
      m.str('user_defined1', MIGRATED_LIMITS.name),
      m.str('user_defined2', MIGRATED_LIMITS.name),
      m.str('user_defined3', MIGRATED_LIMITS.name),
      m.str('user_defined4', MIGRATED_LIMITS.name),
      m.str('email', MIGRATED_LIMITS.name),
      m.guid('primary_organization_id', true),
      m.str('primary_title', MIGRATED_LIMITS.name),
      m.guid('primary_reports_to', true),
      m.date('hire_date'),
      m.bool('send_eval_survey'),
    ],
    softDelete: true,
    indices: [
      m.index('ix_individuals_site_name', ['site_id', 'deleted', 'last_name', 'first_name']),
      m.index('ix_individuals_site_reports_to', ['site_id', 'primary_reports_to']),
      m.index('ix_individuals_site_org', ['site_id', 'primary_organization_id']),
      m.index('ux_individuals_user', ['user_id'], true),
    ],
  }),
  m.tenantTable({
    name: 'organizations',
    columns: [
      m.guid('parent_id', true),
      m.str('name', MIGRATED_LIMITS.name, false),
      m.text('description'),
      m.int('row_type', { default: 56 }),
      m.guid('manager_id', true),
      m.int('rank', { default: 0 }),
    ],
    softDelete: true,
    indices: [
      m.index('ix_organizations_site_type', ['site_id', 'row_type', 'deleted', 'name']),
      m.index('ix_organizations_site_parent', ['site_id', 'parent_id']),
    ],
  }),
  m.tenantTable({
    name: 'organization_members',
    columns: [m.guid('individual_id'), m.guid('organization_id'), m.str('title', MIGRATED_LIMITS.name)],
    softDelete: 'byRef',
    indices: [
      m.index('ux_members_site_individual_org', ['site_id', 'individual_id', 'organization_id'], true),
      m.index('ix_members_site_org', ['site_id', 'organization_id']),
    ],
  }),
  m.tenantTable({
    name: 'periods',
    id: 'int',
    columns: [m.str('name', MIGRATED_LIMITS.name, false), m.date('start_date', false), m.date('end_date', false), m.bool('closed')],
    indices: [m.index('ix_periods_site_dates', ['site_id', 'start_date', 'end_date'])],
  }),
]);
