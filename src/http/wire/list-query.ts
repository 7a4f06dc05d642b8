import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Type } from '@nestjs/common';
import { ValidationError } from '../../common/errors/errors.js';
import { COMPARISONS, type Comparison, type FilterNode, FilterSyntaxError, parseFilter } from '../../common/query/filter-grammar.js';
import { parseInputDate } from '../../common/dates.js';
import { isGuid, type WireKind, wireFields } from './wire.js';

/**
 * `filter=`, `sort=`, `fields=` and `cursor=` of a list (docs/queries.md), read against what the
 * list's resource declares on its fields (`query: { filter, sort }` in `resource()`), into a
 * ListQuery a reader runs: the filter checked field by field (400 naming an unknown field, an
 * operator the field's type does not take, a value of the wrong type), the sort keys, the fields
 * answered and the keyset position of a cursor. What a query costs in the database is said by
 * src/database/list-query-sql.ts, which compiles it.
 */

/** How a field may be queried, declared on the field (`resource()`, docs/queries.md). */
export interface FieldQuery {
  /** `filter=` may compare it: an index starting with site_id serves it. */
  filter?: boolean;
  /** `sort=` may order by it: an index starting with site_id holds that order. */
  sort?: boolean;
  /** Properties the order continues with before the ID, as the field's index holds them (LastName: FirstName). */
  then?: readonly string[];
}

const PARTIAL_ANSWERS = Symbol('pms:partial-answers');

/** Marks a response class answered by queried lists, whose `fields=` leaves members out (resource() does, for a resource with queryable fields). */
export function markPartialAnswers(cls: Function): void {
  Reflect.defineMetadata(PARTIAL_ANSWERS, true, cls);
}

/** Whether queried lists answer this class, so its members but ID may be absent (the XML Schema says so: src/openapi/xsd.ts). */
export function answersPartially(cls: Function): boolean {
  return Reflect.getMetadata(PARTIAL_ANSWERS, cls) === true;
}

/** A field a list may be queried on. */
export interface QueryableField {
  /** The wire name (`LastName`). */
  readonly name: string;
  readonly kind: WireKind;
  /** The entity property holding it (`lastName`). */
  readonly property: string;
  readonly nullable: boolean;
  readonly filter: boolean;
  readonly sort: boolean;
  readonly then: readonly string[];
}

/** The queryable fields of a resource, by lower-cased wire name (names are matched case-insensitively). */
export type Queryable = ReadonlyMap<string, QueryableField>;

/** A checked condition of a filter, values in the field's own type (dates as Date). */
export type Condition =
  | { op: 'and' | 'or'; of: Condition[] }
  | { op: 'not'; of: Condition }
  | { op: 'pr'; field: QueryableField }
  | { op: Comparison; field: QueryableField; value: string | number | boolean | Date | null };

export interface SortKey {
  readonly field: QueryableField;
  readonly desc: boolean;
}

/** A value of a keyset position: what the database answered for a sort column (dates as Date). */
export type KeyValue = string | number | boolean | Date | null;

export interface ListQuery {
  readonly filter: Condition | null;
  /** The sort keys asked for (empty: the list's own order); the reader continues with `then` and the ID. */
  readonly sort: readonly SortKey[];
  /** The wire names answered, ID first and then in declared order; null for all. */
  readonly fields: readonly string[] | null;
  /** Keyset paging: null (offset paging), 'start', or the position after which the page starts. */
  readonly cursor: null | 'start' | readonly KeyValue[];
  /** The site, the filter, the sort and `deleted` (a hash): what a queried list's total is kept by. */
  readonly binding: string;
  /** The request's URL: with `binding`, what a cursor is bound to (cursorBindingOf), hashed only when a cursor is read or made. */
  readonly url: string;
}

/**
 * Set (never from a request: no body or query string makes a symbol key) on the query an export
 * reads ahead with: a cursor with an offset, which a request may not combine (see ListQueries.read).
 * The export checks what it reads that way against the page before it (docs/exports.md).
 */
export const READ_AHEAD: unique symbol = Symbol('pms:read-ahead');

/** The parameters of a list as its query class holds them. */
export interface ListQueryParams {
  filter?: string;
  sort?: string;
  fields?: string;
  cursor?: string;
  deleted?: number;
}

/** Whether a list request asks for anything beyond limit/offset/deleted. */
export function asksQuery(q: ListQueryParams): boolean {
  return q.filter !== undefined || q.sort !== undefined || q.fields !== undefined || q.cursor !== undefined;
}

/** The most sort keys one request may name. */
export const MAX_SORT_KEYS = 3;

/** Operators each kind of field takes (docs/queries.md). */
const OPERATORS: Partial<Record<WireKind, readonly string[]>> = {
  string: ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le', 'pr'],
  guid: ['eq', 'ne', 'pr'],
  int: ['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'pr'],
  decimal: ['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'pr'],
  date: ['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'pr'],
  dateTimeOffset: ['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'pr'],
  bool: ['eq', 'ne', 'pr'],
};
export const operatorsOf = (kind: WireKind): readonly string[] => OPERATORS[kind] ?? [];

const bad = (field: string, message: string) => new ValidationError([{ field, message }]);

function names(q: Queryable, use: 'filter' | 'sort'): string {
  const list = [...q.values()].filter((f) => f[use]).map((f) => f.name);
  return list.length ? list.join(', ') : 'none';
}

/** The fields of a list's filter, checked against its declaration. */
function checkFilter(text: string, q: Queryable): Condition {
  let tree: FilterNode;
  try {
    tree = parseFilter(text);
  } catch (e) {
    if (e instanceof FilterSyntaxError) throw bad('filter', e.message);
    throw e;
  }
  const field = (path: string): QueryableField => {
    const f = q.get(path.toLowerCase());
    if (!f) throw bad('filter', `Unknown field ${path} (filterable: ${names(q, 'filter')})`);
    if (!f.filter) throw bad('filter', `${f.name} is not filterable: no index serves it (filterable: ${names(q, 'filter')})`);
    return f;
  };
  const walk = (node: FilterNode): Condition => {
    switch (node.op) {
      case 'and':
      case 'or':
        return { op: node.op, of: node.filters.map(walk) };
      case 'not':
        return { op: 'not', of: walk(node.filter) };
      case '[]':
        throw bad('filter', `${node.attrPath}[…]: value filters on sub-attributes are a SCIM form; lists compare their own fields`);
      case 'pr': {
        const f = field(node.attrPath);
        return { op: 'pr', field: f };
      }
      default: {
        const f = field(node.attrPath);
        const op = node.op.toLowerCase() as Comparison;
        if (!COMPARISONS.includes(op) || !operatorsOf(f.kind).includes(op)) {
          throw bad('filter', `The operator ${node.op} does not apply to ${f.name} (a ${f.kind}; it takes ${operatorsOf(f.kind).join(', ')})`);
        }
        return { op, field: f, value: valueOf(f, op, node.compValue) };
      }
    }
  };
  return walk(tree);
}

/** A comparison's value in the field's type; null only with eq and ne. */
function valueOf(f: QueryableField, op: Comparison, v: unknown): string | number | boolean | Date | null {
  if (v === null) {
    if (op === 'eq' || op === 'ne') return null;
    throw bad('filter', `${f.name} ${op} null: only eq and ne compare with null`);
  }
  switch (f.kind) {
    case 'string':
      if (typeof v !== 'string') throw bad('filter', `${f.name} ${op} takes a quoted string`);
      return v;
    case 'guid':
      if (typeof v !== 'string' || !isGuid(v.toLowerCase())) throw bad('filter', `${f.name} ${op} takes a quoted UUID`);
      return v.toLowerCase();
    case 'int':
    case 'decimal':
      if (typeof v !== 'number' || !Number.isFinite(v) || (f.kind === 'int' && !Number.isSafeInteger(v))) {
        throw bad('filter', `${f.name} ${op} takes a number${f.kind === 'int' ? ' (an integer)' : ''}`);
      }
      return v;
    case 'bool':
      if (typeof v !== 'boolean') throw bad('filter', `${f.name} ${op} takes true or false`);
      return v;
    case 'date':
    case 'dateTimeOffset': {
      const d = typeof v === 'string' ? parseInputDate(v) : undefined;
      if (!(d instanceof Date) || Number.isNaN(d.getTime()))
        throw bad('filter', `${f.name} ${op} takes a quoted date, e.g. "2026-01-31" or "2026-01-31T12:00:00Z"`);
      return d;
    }
    default:
      throw bad('filter', `${f.name} cannot be compared`);
  }
}

function checkSort(text: string, q: Queryable): SortKey[] {
  const parts = text.split(',').map((s) => s.trim());
  if (parts.length > MAX_SORT_KEYS) throw bad('sort', `At most ${MAX_SORT_KEYS} sort keys`);
  const seen = new Set<string>();
  return parts.map((part) => {
    const desc = part.startsWith('-');
    const name = desc || part.startsWith('+') ? part.slice(1) : part;
    const f = q.get(name.toLowerCase());
    if (!name) throw bad('sort', 'An empty sort key (write sort=-DueDate,Name)');
    if (!f) throw bad('sort', `Unknown field ${name} (sortable: ${names(q, 'sort')})`);
    if (!f.sort) throw bad('sort', `${f.name} is not sortable: no index holds that order (sortable: ${names(q, 'sort')})`);
    if (seen.has(f.name)) throw bad('sort', `${f.name} is named twice`);
    seen.add(f.name);
    return { field: f, desc };
  });
}

/** The wire names asked for, ID first, then in the resource's declared order. */
function checkFields(text: string, type: Type<unknown>): string[] {
  const declared = wireFields(type).map((f) => f.name);
  const byLower = new Map(declared.map((n) => [n.toLowerCase(), n]));
  const asked = new Set<string>();
  for (const raw of text.split(',')) {
    const name = raw.trim();
    if (!name) continue;
    const found = byLower.get(name.toLowerCase());
    if (!found) throw bad('fields', `Unknown field ${name} (fields: ${declared.join(', ')})`);
    asked.add(found);
  }
  if (byLower.has('id')) asked.add(byLower.get('id')!);
  return declared.filter((n) => asked.has(n));
}

// ---------------------------------------------------------------------------- cursors

/**
 * A cursor is `<payload>.<mac>`, both base64url: the payload the keyset position (the last row's
 * sort values and ID) with the binding of the query it was made for; the mac an HMAC-SHA256 of it
 * under a key derived from the service's secret. A cursor changed by a byte, made for another
 * site, another filter, sort or `deleted`, or by another deployment is 400.
 */
export class CursorCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHash('sha256').update(`pms:list-cursor:${secret}`).digest();
  }

  encode(binding: string, position: readonly KeyValue[]): string {
    const values = position.map((v) => (v instanceof Date ? { d: v.toISOString() } : v));
    const payload = Buffer.from(JSON.stringify({ b: binding, k: values })).toString('base64url');
    return `${payload}.${this.mac(payload)}`;
  }

  decode(binding: string, cursor: string): KeyValue[] {
    const [payload, mac, extra] = cursor.split('.');
    const invalid = () => bad('cursor', 'The cursor is not one this list gave for this query (take the Link rel="next" of the previous page as it is)');
    if (!payload || !mac || extra !== undefined || cursor.length > 4096) throw invalid();
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
    let parsed: { b?: unknown; k?: unknown };
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { b?: unknown; k?: unknown };
    } catch {
      throw invalid();
    }
    if (parsed.b !== binding || !Array.isArray(parsed.k))
      throw bad(
        'cursor',
        'The cursor was made for another list, another site, or other parameters (filter, sort, deleted, period…): start again with cursor=start',
      );
    return parsed.k.map((v: unknown) =>
      v && typeof v === 'object' && typeof (v as { d?: unknown }).d === 'string' ? new Date((v as { d: string }).d) : (v as KeyValue),
    );
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url').slice(0, 32);
  }
}

/**
 * The ListQuery of a request on a list of `type` whose queryable fields are `queryable`, for the
 * caller's site: 400 (a validation problem naming the parameter) for anything it cannot answer.
 */
export function readListQuery(siteId: string, type: Type<unknown>, queryable: Queryable, q: ListQueryParams, cursors: CursorCodec, url = ''): ListQuery {
  const filter = q.filter !== undefined && q.filter.trim() !== '' ? checkFilter(q.filter, queryable) : null;
  const sort = q.sort !== undefined && q.sort.trim() !== '' ? checkSort(q.sort, queryable) : [];
  const fields = q.fields !== undefined && q.fields.trim() !== '' ? checkFields(q.fields, type) : null;
  const binding = createHash('sha256')
    .update(JSON.stringify([siteId, q.filter?.trim() ?? '', sort.map((k) => `${k.desc ? '-' : ''}${k.field.name}`), q.deleted ?? 0]))
    .digest('base64url')
    .slice(0, 22);
  let cursor: ListQuery['cursor'] = null;
  if (q.cursor !== undefined) cursor = q.cursor === '' || q.cursor === 'start' ? 'start' : cursors.decode(cursorBindingOf(binding, url), q.cursor);
  return { filter, sort, fields, cursor, binding, url };
}

/** What a cursor is bound to: the query's binding and the list it pages, its path and its other parameters (listScopeOf). */
function cursorBindingOf(binding: string, url: string): string {
  return `${binding}:${createHash('sha256').update(listScopeOf(url)).digest('base64url').slice(0, 22)}`;
}

/** The parameters of a list request that only say which page and how it is written: a cursor may continue with others. */
const PAGE_PARAMETERS = new Set(['cursor', 'offset', 'limit', 'fields', 'tz']);

/**
 * The list a cursor is bound to (docs/queries.md, "Cursors"): the request's path (the collection,
 * and the record it hangs under: `/v4/individuals/{id}/goals`) and its parameters but those of
 * the page (PAGE_PARAMETERS), decoded and in one order. The `Link: rel="next"` repeats them, so its
 * cursor continues; the same cursor sent to another list, another record's list or with another
 * `period` is a 400.
 */
export function listScopeOf(url: string): string {
  const at = url.indexOf('?');
  const path = at < 0 ? url : url.slice(0, at);
  if (at < 0) return path;
  const kept = [...new URLSearchParams(url.slice(at + 1))]
    .filter(([name]) => !PAGE_PARAMETERS.has(name))
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return JSON.stringify([path, kept]);
}

/**
 * What a list's service asks (provided once, with the service's secret): the ListQuery of a
 * request, and the cursor of the position after a page.
 */
export class ListQueries {
  private readonly cursors: CursorCodec;

  constructor(secret: string) {
    this.cursors = new CursorCodec(secret);
  }

  /** The checked query of a request on a list of `resource` in the caller's site (400 for what it cannot answer). */
  read(
    ctx: { readonly siteId: string; readonly url?: string },
    resource: { readonly Response: Type<unknown>; readonly queryable: Queryable },
    q: ListQueryParams & { offset?: number },
  ): ListQuery {
    const query = readListQuery(ctx.siteId, resource.Response, resource.queryable, q, this.cursors, ctx.url);
    if (query.cursor !== null && q.offset && !(q as { [READ_AHEAD]?: boolean })[READ_AHEAD])
      throw bad('offset', 'offset is not taken with cursor: the cursor says where the page starts');
    return query;
  }

  /** The cursor of the next page (the position after a page's last row), or null on the last page. */
  next(query: ListQuery, position: readonly KeyValue[] | null): string | null {
    return position ? this.cursors.encode(cursorBindingOf(query.binding, query.url), position) : null;
  }
}

/** The sentence of a queried list's operation description naming its filterable and sortable fields (docs/openapi.md). */
export function queryNotes(resource: { readonly queryable: Queryable }): string {
  const list = (use: 'filter' | 'sort') =>
    [...resource.queryable.values()]
      .filter((f) => f[use])
      .map((f) => `${f.name} (${f.kind})`)
      .join(', ') || 'none';
  return `Filterable with \`filter=\`: ${list('filter')}. Sortable with \`sort=\`: ${list('sort')}. \`fields=\` takes any member; \`cursor=start\` pages by keyset (docs/queries.md).`;
}
