import { InputField, WireField, WireType } from '../../../common/http/wire.js';
import { SoftDeletedWire, WireAudit, softDeleteOf } from '../../../common/http/wire-audit.js';
import type { ListItemEntity } from '../list-item.entity.js';

/** Description has no limit in the spec; 10,000 characters keeps it inside a MySQL TEXT column. */
export const LIST_ITEM_DESCRIPTION_MAX = 10000;

/**
 * The spec's ListItem: accountability, evaluation criterion, project scope and supervisory scope.
 * Fields in the spec's table order (JSON); XML writes them in ordinal order.
 */
@WireType('ListItem')
@WireAudit({ softDelete: true })
export class ListItemDto extends SoftDeletedWire {
  @WireField('guid', { access: 'ReqUpd', description: 'Id of the item.' })
  ID: string;

  @WireField('guid', {
    access: 'ReqCre',
    description:
      'The owner of the item: a live individual of the site (accountability, evaluation criteria, supervisory scope) or a live project (project scope). Ignored on update (changing it would move the item).',
  })
  AncestorID: string;

  @WireField('int', { access: 'Req', description: 'Sort order within the owner’s list (lists are ordered by Rank, then Name).' })
  Rank: number;

  @WireField('string', { access: 'Req', max: 255, description: 'Must not be blank.' })
  Name: string;

  @WireField('string', { nullable: true, access: 'Req', max: LIST_ITEM_DESCRIPTION_MAX, description: 'May be empty, but must be present (not null).' })
  Description: string | null;

  @WireField('guid', { access: 'RO', description: 'The site (tenant) of the item.' })
  SiteID: string;

  static from(e: ListItemEntity): ListItemDto {
    return Object.assign(new ListItemDto(), {
      ID: e.id,
      AncestorID: e.ancestorId,
      Rank: e.rank,
      Name: e.name,
      Description: e.description,
      SiteID: e.siteId,
      ...softDeleteOf(e),
    });
  }
}

export class CreateListItemDto {
  @InputField('guid', { description: 'Optional; generated when absent or all zeros; 409 id-taken when already used.' })
  ID?: string | null;

  @InputField('guid', { required: true, description: 'A live individual of the site, or a live project for project scopes.' })
  AncestorID: string;

  @InputField('int', { required: true })
  Rank: number;

  @InputField('string', { required: true, max: 255, min: 1 })
  Name: string;

  @InputField('string', { required: true, max: LIST_ITEM_DESCRIPTION_MAX })
  Description: string;
}

/** AncestorID is not declared: on update it is ignored (changing it would move the item). */
export class UpdateListItemDto {
  @InputField('guid', { required: true, description: 'Must equal the id in the path.' })
  ID: string;

  @InputField('int', { required: true })
  Rank: number;

  @InputField('string', { required: true, max: 255, min: 1 })
  Name: string;

  @InputField('string', { required: true, max: LIST_ITEM_DESCRIPTION_MAX })
  Description: string;
}
