import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { BoolCol, GuidCol, IntCol, StrCol, TextCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/** The four kinds that share the ListItem shape (docs/list-items.md), as stored in `list_items.kind`. */
export const LIST_ITEM_KINDS = ['accountability', 'evaluationcriteria', 'projectscope', 'supervisoryscope'] as const;
export type ListItemKind = (typeof LIST_ITEM_KINDS)[number];

/**
 * Accountabilities, evaluation criteria, project scopes and supervisory scopes: one table, one
 * `kind` column. `ancestor_id` is an individual, or a project for project scopes. Lists read the
 * index (site, kind, ancestor, deleted, rank, name) in its order.
 */
@Entity('list_items')
@Index('ix_list_items_site_ancestor', ['siteId', 'kind', 'ancestorId', 'deleted', 'rank', 'name'])
@Index('ix_list_items_site_ancestor_name', ['siteId', 'kind', 'ancestorId', 'deleted', 'name'])
export class ListItemEntity extends GuidTenantEntity {
  @StrCol('kind', 20, { nullable: false })
  kind: ListItemKind;

  @GuidCol('ancestor_id')
  ancestorId: string;

  @IntCol('rank', { default: 0 })
  rank: number;

  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  @TextCol('description')
  description: string | null;

  @BoolCol('deleted', false)
  deleted: boolean;

  @BoolCol('deleted_by_ref', false)
  deletedByRef: boolean;
}
