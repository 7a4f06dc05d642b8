import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m, tablesMigration } from './schema-helpers.js';

/**
 * Permission records and security groups (docs/authorization.md). `child_type` is 0 for "the row
 * itself" (the wire's null), so the unique index over (row, principal, child type) also holds for
 * top-level records: NULLs would never collide in a unique index.
 */
export const PermissionsSecurityGroups1732000001200 = tablesMigration('PermissionsSecurityGroups1732000001200', () => [
  m.tenantTable({
    name: 'security_groups',
    versioned: true,
    columns: [m.str('name', MIGRATED_LIMITS.name, false), m.text('description')],
    indices: [m.index('ix_security_groups_site_name', ['site_id', 'name'])],
  }),
  m.tenantTable({
    name: 'security_group_members',
    versioned: true,
    columns: [m.guid('group_id'), m.guid('individual_id')],
    indices: [
      m.index('ux_security_group_members_pair', ['site_id', 'group_id', 'individual_id'], true),
      m.index('ix_security_group_members_individual', ['site_id', 'individual_id']),
    ],
    foreignKeys: [
      m.belongsTo('fk_security_group_members_group', 'group_id', 'security_groups'),
      m.belongsTo('fk_security_group_members_individual', 'individual_id', 'individuals'),
    ],
  }),
  m.tenantTable({
    name: 'permissions',
    versioned: true,
    columns: [
      m.guid('row_id'),
      m.int('row_type'),
      m.guid('principal_id'),
      m.int('principal_type'),
      m.int('child_type', { default: 0 }),
      m.int('create_state', { default: 0 }),
      m.int('read_state', { default: 0 }),
      m.int('update_state', { default: 0 }),
      m.int('delete_state', { default: 0 }),
      m.int('delegate_state', { default: 0 }),
    ],
    indices: [
      m.index('ux_permissions_site_row_principal_child', ['site_id', 'row_id', 'principal_id', 'child_type'], true),
      m.index('ix_permissions_site_principal', ['site_id', 'principal_id']),
    ],
  }),
]);
