import type { Condition, KeyValue, ListQuery, Queryable, QueryableField, SortKey } from './list-query.js';

/**
 * A checked ListQuery (list-query.ts) answered over a small, fixed list held in memory instead of a
 * table: a list that is not stored rows (the default colors, docs/queries.md, "Lists not stored").
 * The same meaning as the SQL of list-query-sql.ts: text compared case-insensitively, `co`, `sw`,
 * `ew` literal, a comparison with a null member false (but `ne` of a nullable one, and `not`),
 * null first ascending and last descending, the key (`ID`) ending every order, a cursor the
 * position after the last row of a page. Text is ordered case-insensitively, as MySQL/MariaDB's
 * collation orders the stored lists. Items are read by their wire names.
 */

type Item = Readonly<Record<string, unknown>>;

/** A member's value as the query compares it: dates as epoch ms, text lower-cased, undefined as null. */
function comparable(v: unknown): string | number | boolean | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'string') return v.toLowerCase();
  return v as number | boolean;
}

function matches(item: Item, node: Condition): boolean {
  switch (node.op) {
    case 'and':
      return node.of.every((c) => matches(item, c));
    case 'or':
      return node.of.some((c) => matches(item, c));
    case 'not':
      return !matches(item, node.of);
    case 'pr': {
      const v = item[node.field.name];
      return v !== null && v !== undefined && (node.field.kind !== 'string' || v !== '');
    }
  }
  const have = comparable(item[node.field.name]);
  const want = comparable(node.value);
  if (want === null) return node.op === 'eq' ? have === null : have !== null;
  if (have === null) return node.op === 'ne' && node.field.nullable;
  switch (node.op) {
    case 'eq':
      return have === want;
    case 'ne':
      return have !== want;
    case 'co':
      return String(have).includes(String(want));
    case 'sw':
      return String(have).startsWith(String(want));
    case 'ew':
      return String(have).endsWith(String(want));
    case 'gt':
      return have > want;
    case 'ge':
      return have >= want;
    case 'lt':
      return have < want;
    case 'le':
      return have <= want;
    default:
      throw new Error('an operator the grammar does not have');
  }
}

/** The wire names of the page's order: each key, the fields its `then` names, the key field last. */
function orderOf(queryable: Queryable, keys: readonly SortKey[], key: QueryableField): { name: string; desc: boolean }[] {
  const byProperty = new Map([...queryable.values()].map((f) => [f.property, f]));
  const out: { name: string; desc: boolean }[] = [];
  let desc = false;
  const push = (f: QueryableField | undefined) => {
    if (!f) throw new Error('a sort continues with a field the resource does not declare queryable');
    if (!out.some((o) => o.name === f.name)) out.push({ name: f.name, desc });
  };
  for (const k of keys) {
    desc = k.desc;
    push(k.field);
    for (const p of k.field.then) push(byProperty.get(p));
  }
  push(key);
  return out;
}

/** Null first ascending, last descending, as the databases order. */
function compareValues(a: unknown, b: unknown): number {
  const [x, y] = [comparable(a), comparable(b)];
  if (x === y) return 0;
  if (x === null) return -1;
  if (y === null) return 1;
  return x < y ? -1 : 1;
}

function compareTo(item: Item, position: readonly KeyValue[], order: readonly { name: string; desc: boolean }[]): number {
  for (let i = 0; i < order.length; i++) {
    const c = compareValues(item[order[i].name], position[i]);
    if (c) return order[i].desc ? -c : c;
  }
  return 0;
}

/**
 * One page of `items` for `query`: filtered, in the query's order (or `fallback`, the list's own),
 * after the cursor's position or `skip` items; the total filtered (-1 with a cursor) and the
 * position after the page when another item follows. `key` is the field that identifies an item.
 */
export function queryInMemory<T extends object>(
  items: readonly T[],
  queryable: Queryable,
  key: QueryableField,
  query: ListQuery,
  fallback: readonly SortKey[],
  take: number,
  skip: number,
): { rows: T[]; total: number; next: KeyValue[] | null } {
  const order = orderOf(queryable, query.sort.length ? query.sort : fallback, key);
  const at = (item: T) => item as Item;
  const position = (item: T): KeyValue[] => order.map((o) => (at(item)[o.name] ?? null) as KeyValue);
  const selected = (query.filter ? items.filter((i) => matches(at(i), query.filter!)) : [...items]).sort((a, b) => compareTo(at(a), position(b), order));
  const after = Array.isArray(query.cursor) ? selected.filter((i) => compareTo(at(i), query.cursor as KeyValue[], order) > 0) : selected;
  const from = query.cursor === null ? skip : 0;
  const rows = after.slice(from, from + take);
  const last = rows[rows.length - 1];
  return {
    rows,
    total: query.cursor === null ? selected.length : -1,
    next: after.length > from + take && last ? position(last) : null,
  };
}
