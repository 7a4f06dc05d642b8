import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { GuidCol, IntCol } from '../columns.js';

/** Security setting of one operation: 0 Not Set, 1 Allow, 2 Deny (docs/authorization.md). */
export type PermissionState = 0 | 1 | 2;
export const NOT_SET = 0;
export const ALLOW = 1;
export const DENY = 2;
export const STATE_TEXT = ['Not Set', 'Allow', 'Deny'] as const;

/** The secured rows (spec RowType codes). */
export const ROW_TYPE = { organization: 4, department: 56, individual: 39, project: 15, dialog: 9, metric: 7 } as const;
export type RowType = (typeof ROW_TYPE)[keyof typeof ROW_TYPE];

/** PrincipalType: 1 a user (the individual's UserID), 2 a security group. */
export const PRINCIPAL_USER = 1;
export const PRINCIPAL_GROUP = 2;

/**
 * The ChildType values (docs/authorization.md) and the row type each covers; any other number is stored as 0 (the
 * wire's null: the row itself).
 */
export const CHILD_TYPE_COVERS: Readonly<Record<number, RowType>> = {
  19: ROW_TYPE.department,
  9: ROW_TYPE.dialog,
  25: ROW_TYPE.dialog,
  38: ROW_TYPE.dialog,
  7: ROW_TYPE.metric,
  16: ROW_TYPE.metric,
  58: ROW_TYPE.metric,
  4: ROW_TYPE.organization,
  15: ROW_TYPE.project,
};

/**
 * A Permission record: states for Create, Read, Update, Delete and Delegate granted to a user or
 * a security group on a row (and, with a ChildType, on every row of that type below it).
 */
@Entity('permissions')
@Index('ux_permissions_site_row_principal_child', ['siteId', 'rowId', 'principalId', 'childType'], { unique: true })
@Index('ix_permissions_site_principal', ['siteId', 'principalId'])
@Index('ix_permissions_site_row_order', ['siteId', 'rowType', 'rowId', 'principalType', 'principalId', 'childType'])
export class PermissionEntity extends GuidTenantEntity {
  @GuidCol('row_id')
  rowId: string;

  @IntCol('row_type')
  rowType: RowType;

  @GuidCol('principal_id')
  principalId: string;

  @IntCol('principal_type')
  principalType: number;

  /** 0 = the row itself (wire null), else one of CHILD_TYPE_COVERS' keys. */
  @IntCol('child_type', { default: 0 })
  childType: number;

  @IntCol('create_state', { default: 0 })
  createState: PermissionState;

  @IntCol('read_state', { default: 0 })
  readState: PermissionState;

  @IntCol('update_state', { default: 0 })
  updateState: PermissionState;

  @IntCol('delete_state', { default: 0 })
  deleteState: PermissionState;

  @IntCol('delegate_state', { default: 0 })
  delegateState: PermissionState;
}
