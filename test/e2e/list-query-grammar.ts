import { operatorsOf, type Queryable, type QueryableField } from '../../src/http/wire/list-query.js';
import { bearer, DB_KIND, type TestApp } from './harness.js';

/**
 * The grammar test of queried lists (docs/queries.md), shared by the list-queries e2e files: every
 * operator on every kind of filterable field of a resource, with the same filter's meaning in
 * JavaScript to check a list's answer against the full list filtered.
 */
export type Json = Record<string, unknown>;
export type Value = string | number | boolean | null;

/** A filter's meaning in JavaScript, as docs/queries.md states it. */
export type Pred = (r: Json) => boolean;
export type Case = { filter: string; pred: Pred };
export const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);
export function comparison(f: QueryableField, op: string, value: Value): Pred {
  const norm = (v: unknown): unknown => {
    if (v === null || v === undefined) return null;
    if (f.kind === 'date') return new Date(v as string).getTime();
    if (f.kind === 'string' || f.kind === 'guid') return lower(v);
    return v;
  };
  const want = norm(value);
  return (r) => {
    const have = norm(r[f.name]);
    switch (op) {
      case 'pr':
        return have !== null && have !== '';
      case 'eq':
        return have === want;
      case 'ne':
        return have !== want;
    }
    if (have === null) return false;
    const [a, b] = [have as string | number, want as string | number];
    switch (op) {
      case 'co':
        return (a as string).includes(b as string);
      case 'sw':
        return (a as string).startsWith(b as string);
      case 'ew':
        return (a as string).endsWith(b as string);
      case 'gt':
        return a > b;
      case 'ge':
        return a >= b;
      case 'lt':
        return a < b;
      case 'le':
        return a <= b;
    }
    throw new Error(op);
  };
}
export const literal = (v: Value) => (v === null ? 'null' : typeof v === 'string' ? JSON.stringify(v) : String(v));

/** Values to compare a field with: taken from the data (some present, parts of them), and null. */
export function valuesFor(all: Json[], f: QueryableField, op: string): Value[] {
  const present = all.map((r) => r[f.name]).filter((v) => v !== null && v !== undefined) as (string | boolean)[];
  const pick = (k: number) => present[(k * 7) % present.length];
  if (f.kind === 'bool') return [true, false];
  if (f.kind === 'string' && ['co', 'sw', 'ew'].includes(op)) {
    // A prefix, a suffix and a middle part under every operator: each tells co, sw and ew apart.
    const s = String(pick(1));
    const u = String(pick(4));
    return [s.slice(0, 2).toUpperCase(), s.slice(-2), s.slice(1, 3), u.slice(0, 3), u.slice(-3), 'zzz', '%', '_'];
  }
  const vs: Value[] = [pick(1) as string, pick(5) as string];
  if ((op === 'eq' || op === 'ne') && f.nullable) vs.push(null);
  if (f.kind === 'string' && op === 'eq') vs.push(String(pick(2)).toUpperCase());
  return vs;
}

/** Every operator of every filterable field of a resource, with values from `all` (the grammar test's cases). */
export function grammarCases(queryable: Queryable, all: Json[]): Case[] {
  const cases: Case[] = [];
  for (const f of [...queryable.values()].filter((q) => q.filter)) {
    for (const op of operatorsOf(f.kind)) {
      if (op === 'pr') {
        cases.push({ filter: `${f.name} pr`, pred: comparison(f, 'pr', null) });
        continue;
      }
      for (const v of valuesFor(all, f, op)) cases.push({ filter: `${f.name} ${op} ${literal(v)}`, pred: comparison(f, op, v) });
    }
  }
  return cases;
}

/** A GET as the token's caller, in JSON or XML. */
export const getAs = (t: TestApp, path: string, token: string, xml = false) =>
  t
    .http()
    .get(path)
    .set('Authorization', bearer(token))
    .set('Accept', xml ? 'application/xml' : 'application/json');
export const ids = (rows: Json[]) => rows.map((r) => r.ID as string);
/** The IDs of an XML list of `element`s, in document order. */
export const xmlIdsOf = (text: string, element: string) =>
  [...text.matchAll(new RegExp(`<${element}>([\\s\\S]*?)</${element}>`, 'g'))].map((m) => /<ID>([^<]+)<\/ID>/.exec(m[1])![1]);

/**
 * Two values as the database orders them in a sort: nulls first; text by the column's collation
 * (case-insensitive on MySQL/MariaDB, binary on SQLite: docs/queries.md).
 */
export function sortCompare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  const [x, y] = DB_KIND === 'mysql' && typeof a === 'string' ? [lower(a) as string, lower(b) as string] : [a as string, b as string];
  return x < y ? -1 : x > y ? 1 : 0;
}

type Answered = { body: unknown; headers: Record<string, string> };

/**
 * Walks a list by cursor from `first` (`cursor=start`) while others write: after each page a new
 * record is inserted and the next of `churn` removed. Checks what a client relies on: no record
 * twice, every `stable` one (present throughout) seen, nothing that never existed, no total on a
 * cursor page. Answers every record that existed meanwhile, for the caller to clear.
 */
export async function cursorUnderChurn<Id extends string | number>(o: {
  get: (url: string) => Promise<Answered>;
  first: string;
  stable: Id[];
  churn: Id[];
  insert: () => Promise<Id>;
  remove: (id: Id) => Promise<unknown>;
  label?: Record<string, unknown>;
}): Promise<Set<Id>> {
  const everExisted = new Set<Id>([...o.stable, ...o.churn]);
  const churn = [...o.churn];
  const seen: Id[] = [];
  let url: string | null = o.first;
  while (url) {
    const res = await o.get(url);
    seen.push(...((res.body as Json[]).map((r) => r.ID) as Id[]));
    everExisted.add(await o.insert());
    const gone = churn.shift();
    if (gone !== undefined) await o.remove(gone);
    expect(res.headers['x-total-count']).toBeUndefined();
    const next = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1] ?? null;
    if (next) expect(next).toContain('cursor=');
    url = next;
  }
  const label = o.label ?? {};
  expect({ ...label, duplicates: seen.length - new Set(seen).size }).toEqual({ ...label, duplicates: 0 });
  for (const id of o.stable) expect({ ...label, id, seen: seen.includes(id) }).toEqual({ ...label, id, seen: true });
  for (const id of seen) expect({ ...label, id, existed: everExisted.has(id) }).toEqual({ ...label, id, existed: true });
  return everExisted;
}

/**
 * Each bad query on each list answers 400 naming the parameter and matching the message, as
 * problem details in JSON (and XML unless `jsonOnly`), never 500.
 */
export async function expectRefusals(
  get: (path: string, xml: boolean) => Promise<{ status: number; body: unknown; headers: Record<string, string> }>,
  lists: readonly string[],
  bad: readonly [query: string, field: string, message: RegExp][],
  jsonOnly = false,
): Promise<void> {
  for (const list of lists) {
    for (const [query, field, message] of bad) {
      for (const xml of jsonOnly ? [false] : [false, true]) {
        const res = await get(`${list}?limit=2&${query.replace(/ /g, '%20').replace(/"/g, '%22')}`, xml);
        expect({ list, query, status: res.status }).toEqual({ list, query, status: 400 });
        expect(res.headers['content-type']).toMatch(xml ? /application\/problem\+xml/ : /application\/problem\+json/);
        if (!xml) {
          const errors = (res.body as { errors: { field: string; message: string }[] }).errors;
          expect({ query, field: errors[0].field, message: errors[0].message }).toEqual({ query, field, message: expect.stringMatching(message) });
        }
      }
    }
  }
}
