import { ValidationError } from '../../common/errors/errors.js';
import { InputField, type WireResultMeta, wireResultOf } from './wire.js';

export const DEFAULT_LIMIT = 500;
export const MAX_LIMIT = 5000;

/** `limit` / `offset` of every list (docs/http-and-xml.md). */
export class PageQuery {
  @InputField('int', { minValue: 1, maxValue: MAX_LIMIT, description: `Page size, default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}.` })
  limit?: number;

  @InputField('int', { minValue: 0, description: 'Number of records to skip, default 0.' })
  offset?: number;
}

/** `deleted`: 0 not deleted (default), 1 deleted, 2 all. */
export class DeletedQuery extends PageQuery {
  @InputField('int', { enum: [0, 1, 2], description: '0 = not deleted (default), 1 = deleted, 2 = all.' })
  deleted?: number;
}

/**
 * A list that takes `filter`, `sort`, `fields` and `cursor` (docs/queries.md) beside `limit` and
 * `offset`: a list of records that are not soft-deleted (goals); QueriedListQuery adds `deleted`.
 * The fields each list may be filtered and sorted on are said in its operation's description
 * (`queryNotes`).
 */
export class QueriedPageQuery extends PageQuery {
  @InputField('string', {
    max: 2000,
    description:
      'A filter in the SCIM grammar (RFC 7644 §3.4.2.2) over the list’s own field names: `LastName sw "Sm" and Deleted eq false`. Operators `eq ne co sw ew gt ge lt le pr`, joined with `and`, `or`, `not` and parentheses; at most 16 comparisons. Only the fields the operation lists as filterable (400 naming the field otherwise). docs/queries.md.',
  })
  filter?: string;

  @InputField('string', {
    max: 200,
    description:
      'Sort keys, comma-separated, `-` for descending: `sort=-HireDate,LastName` (at most 3; only the fields the operation lists as sortable). The ID ends every order.',
  })
  sort?: string;

  @InputField('string', {
    max: 2000,
    description: 'The fields to answer, comma-separated: `fields=ID,UserName`. ID is always included; JSON and XML keep the declared (XML: ordinal) order.',
  })
  fields?: string;

  @InputField('string', {
    max: 4096,
    description:
      'Keyset paging: `cursor=start` for the first page, then the `Link: rel="next"` of each answer, which carries the next cursor. Stable while others write: a record present throughout is answered exactly once. Opaque; bound to the list it was given for (its path, so the record a sub-list hangs under, and its parameters but `cursor`, `offset`, `limit`, `fields` and `tz`: `filter`, `sort`, `deleted`, `period`…) and to the site: 400 otherwise. Not combined with `offset`; answers carry no X-Total-Count.',
  })
  cursor?: string;
}

/** A queried list of soft-deleted records: `filter`, `sort`, `fields` and `cursor` beside `deleted`, `limit` and `offset`. */
export class QueriedListQuery extends QueriedPageQuery {
  @InputField('int', { enum: [0, 1, 2], description: '0 = not deleted (default), 1 = deleted, 2 = all.' })
  deleted?: number;
}

export function pageOf(q: PageQuery): { take: number; skip: number } {
  return { take: q.limit ?? DEFAULT_LIMIT, skip: q.offset ?? 0 };
}

/** A filter on the Deleted flag for a `deleted` query value. */
export function deletedFilter(deleted: number | undefined): { deleted?: boolean } {
  if (deleted === 1) return { deleted: true };
  if (deleted === 2) return {};
  return { deleted: false };
}

/**
 * One page of a list. Controllers return it as is; the response interceptor writes the items as
 * the collection and adds `X-Total-Count` and, when more remain, `Link: <…>; rel="next"`.
 */
export class Page<T> {
  constructor(
    readonly items: T[],
    readonly total: number,
    readonly limit: number,
    readonly offset: number,
  ) {}

  get hasNext(): boolean {
    return this.offset + this.items.length < this.total;
  }

  map<U>(fn: (item: T) => U): Page<U> {
    return new Page(this.items.map(fn), this.total, this.limit, this.offset);
  }

  static of<T>(items: T[], total: number, q: PageQuery): Page<T> {
    const { take, skip } = pageOf(q);
    return new Page(items, total, take, skip);
  }

  /**
   * A list of the caller's own records (`me`: the caller's individual in the site): an empty page
   * for a caller without one (docs/identity-and-tenancy.md).
   */
  static mine<T>(me: string | null | undefined, q: PageQuery, list: (me: string) => Promise<Page<T>>): Promise<Page<T>> {
    return me ? list(me) : Promise.resolve(Page.of([], 0, q));
  }

  /**
   * A page of rows, each answered as its resource answers it: `Page.wire(rows, total, q, Task)`;
   * `extras`, what the resource's derived fields read beyond the row, the same for every row.
   */
  static wire<R, T, X>(rows: R[], total: number, q: PageQuery, resource: { toWire(row: R, extras?: X): T }, extras?: X): Page<T> {
    return Page.of(rows, total, q).map((r) => resource.toWire(r, extras));
  }
}

/**
 * A page of a queried list (QueriedListQuery): the fields answered (null: all) and, for keyset
 * paging, the cursor of the next page (the writer puts it in `Link: rel="next"` instead of an
 * offset) and no total.
 */
export class QueriedPage<T> extends Page<T> {
  constructor(
    items: T[],
    total: number,
    limit: number,
    offset: number,
    readonly fields: readonly string[] | null,
    /** Keyset paging: the cursor of the next page, null on the last one; undefined when paged by offset. */
    readonly nextCursor?: string | null,
  ) {
    super(items, total, limit, offset);
  }

  override get hasNext(): boolean {
    return this.nextCursor === undefined ? super.hasNext : this.nextCursor !== null;
  }

  override map<U>(fn: (item: T) => U): QueriedPage<U> {
    return new QueriedPage(this.items.map(fn), this.total, this.limit, this.offset, this.fields, this.nextCursor);
  }
}

/**
 * A page paged by a key instead of an offset (the audit trail newest first, delta sync by change
 * sequence): `next` holds the query parameters that fetch the next page (the response's
 * `Link: rel="next"`), null on the last page; `headers` are added to the answer (e.g. the sync
 * cursor); `wire` says how its items are written when not as the route declares (a list asked with
 * `updatedSince` answers SyncEntry items). No X-Total-Count: a keyset page does not count the whole list.
 */
export class KeysetPage<T> extends Page<T> {
  constructor(
    items: T[],
    limit: number,
    readonly next: Record<string, string> | null,
    readonly headers: Record<string, string> = {},
    readonly wire: WireResultMeta | null = null,
  ) {
    super(items, -1, limit, 0);
  }

  override get hasNext(): boolean {
    return this.next !== null;
  }
}

/** The query parameters only a queried list takes (QueriedPageQuery, QueriedListQuery). */
const QUERY_PARAMS = ['filter', 'sort', 'fields', 'cursor'] as const;
const takesQuery = new WeakMap<Function, boolean>();

/**
 * Refuses (400) `filter`, `sort`, `fields` or `cursor` on a route whose handler does not take a
 * QueriedListQuery: such a list would silently answer everything (docs/queries.md). Called by the
 * guard for every request; costs a lookup when none of the four is present. Lists of records only
 * (routes that answer a collection).
 */
export function refuseUnqueried(query: Record<string, unknown> | undefined, ctrl: Function, handler: Function): void {
  if (!query) return;
  const asked = QUERY_PARAMS.find((p) => query[p] !== undefined);
  // Only lists of records: SCIM's own lists read their `filter` themselves.
  if (!asked || !wireResultOf(handler)?.collection) return;
  let takes = takesQuery.get(handler);
  if (takes === undefined) {
    const types = (Reflect.getMetadata('design:paramtypes', ctrl.prototype as object, handler.name) ?? []) as unknown[];
    takes = types.some((t) => typeof t === 'function' && (t === QueriedPageQuery || t.prototype instanceof QueriedPageQuery));
    takesQuery.set(handler, takes);
  }
  if (!takes) throw new ValidationError([{ field: asked, message: `This route does not take ${asked}= (docs/queries.md lists the lists that do)` }]);
}
