import { ID_DOC, LIMITS, field, resource, trim } from '../../../http/wire/resource.js';
import type { ListItemEntity } from '../../../database/entities/list-item.entity.js';
import { declareExamples } from '../../../http/wire/examples.js';
import { bulkRequestOf, type BulkRequest } from '../../../http/wire/bulk.js';

/** Description has no documented limit (docs/list-items.md); 10,000 characters keeps it inside a MySQL TEXT column. */
export const LIST_ITEM_DESCRIPTION_MAX = 10000;

/**
 * ListItem (docs/list-items.md): accountability, evaluation criterion, project scope and supervisory scope,
 * every field declared once (docs/adding-a-resource.md). AncestorID is not an update input:
 * changing it would move the item, so an update ignores it.
 */
export const ListItem = resource<ListItemEntity>()('ListItem', {
  audit: 'softDelete',
  // Lists may filter on Deleted (docs/queries.md); the fields say their own.
  auditQuery: { Deleted: { filter: true } },
  fields: {
    ID: field.guid('ReqUpd', {
      query: { filter: true },
      description: 'Id of the item.',
      create: { description: ID_DOC.create },
      update: { description: ID_DOC.update },
    }),
    AncestorID: field.fixed.guid(
      'The owner of the item: a live individual of the site (accountability, evaluation criteria, supervisory scope) or a live project (project scope). Ignored on update (changing it would move the item).',
      'A live individual of the site, or a live project for project scopes.',
      { query: { filter: true } },
    ),
    // Then Name, as the plain list orders them.
    Rank: field.int('Req', {
      query: { filter: true, sort: true, then: ['name'] },
      description: 'Sort order within the owner’s list (lists are ordered by Rank, then Name).',
    }),
    Name: field.string('Req', { query: { filter: true, sort: true }, max: LIMITS.name, min: 1, write: trim, description: 'Must not be blank.' }),
    Description: field.string('Req', { nullable: true, max: LIST_ITEM_DESCRIPTION_MAX, description: 'May be empty, but must be present (not null).' }),
    SiteID: field.guid('RO', { description: 'The site (tenant) of the item.' }),
  },
});

export const { Response: ListItemDto, Create: CreateListItemDto, Update: UpdateListItemDto } = ListItem;
export type ListItemDto = InstanceType<typeof ListItemDto>;
export type CreateListItemDto = InstanceType<typeof CreateListItemDto>;
export type UpdateListItemDto = InstanceType<typeof UpdateListItemDto>;

/**
 * The body of POST /{accountabilities|evaluationcriteria|supervisoryscopes|projectscopes}/bulk
 * (docs/bulk.md), one class for the four kinds: an individual owner may be named by ExternalID.
 */
export const BulkListItems = bulkRequestOf('ListItem', { create: 'CreateListItemDto', update: 'UpdateListItemDto', refs: ['AncestorID'] });
export type BulkListItems = BulkRequest;

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  BulkRequestOfListItem: {
    body: {
      Items: [
        { Op: 'create', Record: { AncestorID: 'ANCESTOR_ID', Rank: 1, Name: 'Customer satisfaction', Description: 'Keep the yearly CSAT above 4.5' } },
        { Op: 'create', Record: { Rank: 2, Name: 'Renewals', Description: 'Renew 95 % of contracts' }, ExternalRefs: { AncestorID: 'HR-1001' } },
      ],
    },
  },
  PatchListItemDto: { body: { Description: 'Keep the yearly CSAT above 4.7' } },
  CreateListItemDto: { body: { AncestorID: 'ANCESTOR_ID', Rank: 1, Name: 'Customer satisfaction', Description: 'Keep the yearly CSAT above 4.5' } },
  UpdateListItemDto: { body: { ID: 'PATH_ID', Rank: 2, Name: 'Customer satisfaction', Description: 'Keep the yearly CSAT above 4.6' } },
});
