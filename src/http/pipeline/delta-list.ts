import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { AnswersDeltas } from './route-stages.js';

/**
 * Lists asked with `updatedSince` (docs/delta-sync.md, "Every list"): each list route states what
 * its changes are, in its `ListRoute` declaration, and one stage answers every such request with
 * the list's records changed since then, read the way `GET /v4/sync/{kind}` reads them, still of
 * the list's own type (no union in a list's answer: deletions are the sync route's tombstones).
 * Without `updatedSince` the route's handler runs as before.
 */
export const DELTA_LIST = 'pms:delta-list';

/** The text of the `updatedSince` parameter, on the sync route and on every list. */
export const UPDATED_SINCE =
  'Where to continue: the `X-Sync-Cursor` of the previous answer (`seq-<n>`), or, to start, an ISO 8601 instant (records changed at or after it), or `seq-0` for everything the change log still holds. 410 when the log no longer reaches back that far: read the list in full, then sync from its `X-Sync-Cursor`.';

/** What a list route answers with `updatedSince`, as a ListRoute declares it. */
export type DeltaDecl =
  /** The changes of a collection (a path of `/v4/sync/{kind}`); with `fields`, only the records whose field names the list's parent (or the caller, under `me/`). */
  | { kind: string; fields?: readonly string[]; parentKind?: string }
  /** A list whose records no field of theirs ties to it (a membership, several owners): a 400 naming what to use instead. */
  | { refuse: string }
  /** Not a list of records (a List-of-one read, built-in values, counts): no `updatedSince`. */
  | null;

/** The declaration as the interceptor reads it: where the parent, the caller or the site comes from. */
export type DeltaList =
  | {
      kind: string;
      /** `sites/:siteid/…`: the site named by this path parameter (the caller's own, or any for a global administrator). */
      site?: string;
      /** A sub-list: the parent read first (404/403 as its GET), then only records whose `fields` name it. */
      parent?: { of: string; param: string; fields: readonly string[]; at: string };
      /** `me/…`: only records whose `fields` name the caller's individual. */
      mine?: readonly string[];
    }
  | { refuse: string };

/** The whole collection `kind` (a path of `/v4/sync/{kind}`). */
export const changesOf = (kind: string): DeltaDecl => ({ kind });
/** A sub-list of `kind`: the records whose `fields` (any of them) name the parent of the path (`individuals/:id/…`), or the caller (`me/…`). */
export const changesUnder = (kind: string, fields: readonly string[], parentKind?: string): DeltaDecl => ({ kind, fields, parentKind });
/** Why the lists of credentials (API tokens, identity providers, webhooks) answer no changes (docs/security.md, "Secrets"). */
export const CREDENTIALS_NOT_SYNCED = 'Credentials and their configuration are not served as changes: read the list itself (administrators).';
/** A list that cannot be answered as changes: a 400 whose message says what to use. */
export const changesRefused = (use: string): DeltaDecl => ({ refuse: use });

/** How a sub-list's records are tied to its parent: the parent's collection and the fields that name it. */
export interface SubList {
  of: string;
  fields: readonly string[];
}

/**
 * The sub-lists of each collection, as the list routes declare them (kind → the parent's first
 * path segment, or `me`): what `GET /v4/sync/{kind}?parent=` accepts, so the changes of a person's
 * goals, tombstones included, are asked from the sync route (docs/delta-sync.md).
 */
const SUB_LISTS = new Map<string, Map<string, SubList>>();

function registerSubList(kind: string, parent: string, sub: SubList): void {
  const of = SUB_LISTS.get(kind) ?? new Map<string, SubList>();
  const known = of.get(parent);
  if (known && (known.of !== sub.of || known.fields.join() !== sub.fields.join()))
    throw new Error(`ListRoute ${parent}/…/${kind}: two sub-lists under one parent tie their records by different fields`);
  of.set(parent, sub);
  SUB_LISTS.set(kind, of);
}

/** The sub-list of collection `kind` under `parent` (a parent collection's path segment, or `me`), as its list route declares it. */
export function subListOf(kind: string, parent: string): SubList | undefined {
  return SUB_LISTS.get(kind)?.get(parent);
}

/** The parents collection `kind` has sub-lists under (`individuals`, `me`…), sorted. */
export function subListParents(kind: string): string[] {
  return [...(SUB_LISTS.get(kind)?.keys() ?? [])].sort();
}

/** Reads where the parent, the caller or the site comes from out of the route's path (`/` under a controller's own prefix is its collection). */
export function deltaOf(path: string, decl: DeltaDecl): DeltaList | null {
  if (decl === null) return null;
  if ('refuse' in decl) return decl;
  const clean = path.replace(/^\/+|\/+$/g, '');
  const segments = clean === '' ? [] : clean.split('/');
  const param = (i: number) => (segments[i]?.startsWith(':') ? segments[i].slice(1) : null);
  if (segments[0] === 'sites' && param(1) && segments.length === 3) return { kind: decl.kind, site: param(1)! };
  if (!decl.fields) {
    if (segments.length > 1) throw new Error(`ListRoute ${path}: a list under a parent names the fields that tie its records to it`);
    return { kind: decl.kind };
  }
  if (segments[0] === 'me' && segments.length === 2) {
    registerSubList(decl.kind, 'me', { of: 'me', fields: decl.fields });
    return { kind: decl.kind, mine: decl.fields };
  }
  if (param(1) && segments.length === 3) {
    const of = decl.parentKind ?? segments[0];
    registerSubList(decl.kind, segments[0], { of, fields: decl.fields });
    return { kind: decl.kind, parent: { of, param: param(1)!, fields: decl.fields, at: segments[0] } };
  }
  throw new Error(`ListRoute ${path}: a sub-list is {parent}/:{param}/{list} or me/{list}`);
}

/** The metadata, the stage that answers it (route-stages.ts) and the OpenAPI parameter of a list's `updatedSince`. */
export function DeltaListDocs(delta: DeltaList): MethodDecorator {
  const description =
    'refuse' in delta
      ? `Not answered by this list: 400. ${delta.refuse}`
      : `Answers only the records of this list created or changed since then, of the list's own type, each once in commit order of its newest change; records deleted since then are left out (their tombstones are answered by \`GET /v4/sync/${delta.kind}${delta.parent ? `?parent=${delta.parent.at}/{${delta.parent.param}}` : delta.mine ? '?parent=me' : ''}\`, typed \`SyncEntry\`). The next cursor is in \`X-Sync-Cursor\` and, while a page is full, \`Link: rel="next"\` names the next page (docs/delta-sync.md); no \`X-Total-Count\`. Only \`limit\` may be combined with it. ${UPDATED_SINCE}`;
  return applyDecorators(SetMetadata(DELTA_LIST, delta), AnswersDeltas(), ApiQuery({ name: 'updatedSince', required: false, type: String, description }));
}
