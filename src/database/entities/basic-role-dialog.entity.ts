import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { IntCol, TextCol, GuidRef } from '../columns.js';
import { DialogEntity } from './dialog.entity.js';
import { BasicRoleEntity } from './basic-role.entity.js';

/**
 * How a basic role fared in one dialog: a rating 1–5 (or none yet) and a comment. One record per
 * (basic role, dialog) — the unique index makes concurrent PUTs of one pair leave one row. A
 * dialog's list is read in order of creation, Rating (then creation) or Updated, each from its
 * index (migration 1732000003210, docs/queries.md).
 */
@Entity('basic_role_dialogs')
@Index('ux_basic_role_dialogs_pair', ['siteId', 'basicRoleId', 'dialogId'], { unique: true })
@Index('ix_basic_role_dialogs_site_dialog_created', ['siteId', 'dialogId', 'created'])
@Index('ix_basic_role_dialogs_site_dialog_rating', ['siteId', 'dialogId', 'rating', 'created'])
@Index('ix_basic_role_dialogs_site_dialog_updated', ['siteId', 'dialogId', 'updated'])
export class BasicRoleDialogEntity extends GuidTenantEntity {
  @GuidRef(() => BasicRoleEntity, 'fk_basic_role_dialogs_role', 'basic_role_id')
  basicRoleId: string;

  @GuidRef(() => DialogEntity, 'fk_basic_role_dialogs_dialog', 'dialog_id')
  dialogId: string;

  @IntCol('rating', { nullable: true })
  rating: number | null;

  @TextCol('comment')
  comment: string | null;
}
