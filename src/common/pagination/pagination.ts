import { InputField, type WireResultMeta } from '../http/wire.js';

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
