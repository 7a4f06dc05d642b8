import type { RouteDoc } from '../../http/pipeline/routes.js';
import type { ListItemKindInfo } from './list-item-kinds.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { ListItem } from './dto/list-item.dto.js';

/**
 * The OpenAPI texts of the ListItem routes, written once for the four kinds so every controller
 * documents the same rules in the same words.
 */
const owner = (k: ListItemKindInfo) => (k.ancestor === 'individual' ? 'individual' : 'project');

const READ_RULE = (k: ListItemKindInfo) =>
  k.ancestor === 'individual'
    ? 'Readable by the individual, anyone up their reporting chain (PrimaryReportsTo), and administrators; others get 403.'
    : 'Every member of the site reads project scopes.';

const WRITE_RULE = (k: ListItemKindInfo) =>
  k.ancestor === 'individual'
    ? 'Allowed for the individual (AncestorID), anyone up their reporting chain, and administrators; others get 403.'
    : 'Allowed for the project owner, anyone the owner reports to, and administrators; others get 403.';

const LIST_NOTE = `Answers a List (XML root List with ListItem children), ordered by Rank, then Name; paged with limit/offset, X-Total-Count and Link. ${queryNotes(ListItem)}`;

/** The operation texts of the ListItem routes, by route, for a kind. */
export const listItemDoc = {
  listFor: (k: ListItemKindInfo): RouteDoc => ({
    summary: `List the ${k.plural} of ${k.ancestor === 'individual' ? 'an individual' : 'a project'}`,
    description: `${LIST_NOTE} deleted: 0 live (default), 1 deleted, 2 all. 404 when the ${owner(k)} is not one of the site. ${READ_RULE(k)}`,
  }),
  listMine: (k: ListItemKindInfo): RouteDoc => ({
    summary: k.ancestor === 'individual' ? `List the caller’s own ${k.plural}` : 'List the scopes of every project the caller owns',
    description: `${LIST_NOTE} deleted: 0 live (default), 1 deleted, 2 all. ${
      k.ancestor === 'individual' ? '' : 'Items of several projects come in one list; AncestorID tells them apart. '
    }A caller without an individual record in the site gets an empty List.`,
  }),
  get: (k: ListItemKindInfo): RouteDoc => ({
    summary: `Read one ${k.label.toLowerCase()} (as a List of one)`,
    description: `As the spec says, the answer is a List holding the one item, deleted or not. An id of another kind or of another site is 404. ${READ_RULE(k)}`,
  }),
  getFor: (k: ListItemKindInfo): RouteDoc => ({
    summary: `Read one ${k.label.toLowerCase()} of ${k.ancestor === 'individual' ? 'an individual' : 'a project'} (as a List of one)`,
    description: `A List holding the one item; 404 when the ${owner(k)} is unknown or the item belongs to another ${owner(k)}. ${READ_RULE(k)}`,
  }),
  create: (k: ListItemKindInfo): RouteDoc => ({
    summary: `Create a ${k.label.toLowerCase()}`,
    description: `AncestorID, Rank, Name and Description are required; AncestorID must be a live ${owner(k)} of the site (else 400 naming it). ID is optional (used if free, else 409 id-taken). Read-only fields are ignored. ${WRITE_RULE(k)}`,
  }),
  bulk: (k: ListItemKindInfo): RouteDoc => ({
    summary: `Create, update and upsert up to 1,000 ${k.plural}`,
    description:
      `Each Record is the body of POST /${k.path} (create) or of PUT /${k.path}/{id} (update), each held to its rule. ${WRITE_RULE(k)} ` +
      `List items have no ExternalID: an update names its item by ID, an upsert without one creates. ` +
      (k.ancestor === 'individual'
        ? 'ExternalRefs.AncestorID names the owning individual by their ExternalID instead of their ID.'
        : 'The owner is a project, which has no ExternalID: ExternalRefs.AncestorID is 400.'),
  }),
  update: (k: ListItemKindInfo): RouteDoc => ({
    summary: `Update a ${k.label.toLowerCase()}`,
    description: `ID (equal to the path id), Rank, Name and Description are required. AncestorID and read-only fields are ignored, so the whole object a client read back may be sent. A deleted item is 409 (code deleted); If-Match is honoured (412). ${WRITE_RULE(k)}`,
  }),
  remove: (k: ListItemKindInfo): RouteDoc => ({
    summary: `Delete a ${k.label.toLowerCase()} (soft delete)`,
    description: `Sets Deleted; the item stays readable by id and with deleted=1 or 2. Idempotent. Answers an empty object. ${WRITE_RULE(k)}`,
  }),
  undelete: (k: ListItemKindInfo): RouteDoc => ({
    summary: `Undelete a ${k.label.toLowerCase()}`,
    description: `Clears Deleted and answers a List holding the restored item. Idempotent. An item taken down with its ${owner(k)} (DeletedByRef) is 409 (code deleted): undelete the ${owner(k)} instead. ${WRITE_RULE(k)}`,
  }),
};

/** The texts of a kind's PATCH, for its PatchRoute (which declares the method, path, body types and shared rules). */
export const listItemPatchDoc = (k: ListItemKindInfo): { summary: string; description: string } => ({
  summary: `Change some fields of a ${k.label.toLowerCase()}`,
  description: `Rank, Name and Description as on PUT (Name not blank); AncestorID is ignored. A deleted item is 409 (code deleted). ${WRITE_RULE(k)}`,
});

/** A List of ListItems (XML root List), as reads and undelete answer (docs/list-items.md). */
export const AS_LIST = { collection: true, root: 'List' } as const;
