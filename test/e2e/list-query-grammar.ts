import type { IncomingMessage } from 'node:http';
import { parse as parseCsv } from 'csv-parse/sync';
import type { Response } from 'supertest';
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
    if (f.kind === 'date' || f.kind === 'dateTimeOffset') return new Date(v as string).getTime();
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
/** The keys of a list's records: their ID, or the member a list without ID is keyed by (the audit trail's Seq). */
export const ids = (rows: Json[], key = 'ID') => rows.map((r) => r[key] as string);

/** The three export types every queried list streams (docs/exports.md). */
export const EXPORT_TYPES = ['text/csv', 'application/x-ndjson', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'] as const;

/**
 * The list's whole answer in each export type, as bytes read as latin1 text (the XLSX zipped), for
 * a search of what must never appear in any of them (a secret, a hash).
 */
export async function exportTexts(t: TestApp, path: string, token: string): Promise<string[]> {
  const out: string[] = [];
  for (const accept of EXPORT_TYPES) {
    const res = await t.http().get(path).set('Authorization', bearer(token)).set('Accept', accept).buffer(true).parse(rawBody).expect(200);
    out.push((res.body as Buffer).toString('latin1'));
  }
  return out;
}

/** The IDs (or another key member) of an XML list of `element`s, in document order. */
export const xmlIdsOf = (text: string, element: string, key = 'ID') =>
  [...text.matchAll(new RegExp(`<${element}>([\\s\\S]*?)</${element}>`, 'g'))].map((m) => new RegExp(`<${key}>([^<]+)</${key}>`).exec(m[1])![1]);

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
  /** The member that identifies a record (default ID). */
  key?: string;
}): Promise<Set<Id>> {
  const everExisted = new Set<Id>([...o.stable, ...o.churn]);
  const churn = [...o.churn];
  const seen: Id[] = [];
  let url: string | null = o.first;
  while (url) {
    const res = await o.get(url);
    seen.push(...((res.body as Json[]).map((r) => r[o.key ?? 'ID']) as Id[]));
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
 * `cursorUnderChurn` for each order of a list: `stable` records made first stay throughout, `churn`
 * more are removed one per page while a new one is made per page; then every record the walk made
 * is removed, so the next order starts from the same slate. `first` is the first page's URL
 * without its `sort`.
 */
export async function cursorsUnderChurn<Id extends string | number>(o: {
  get: (url: string) => Promise<Answered>;
  first: string;
  sorts: readonly string[];
  stable: number;
  churn: number;
  insert: (i: number) => Promise<Id>;
  remove: (id: Id) => Promise<unknown>;
  label?: Record<string, unknown>;
  key?: string;
}): Promise<void> {
  for (const sort of o.sorts) {
    const stable: Id[] = [];
    const churn: Id[] = [];
    for (let i = 0; i < o.stable; i++) stable.push(await o.insert(i));
    for (let i = o.stable; i < o.stable + o.churn; i++) churn.push(await o.insert(i));
    const removed = new Set<Id>();
    let k = 100;
    const everExisted = await cursorUnderChurn({
      get: o.get,
      first: `${o.first}${sort ? `&sort=${sort}` : ''}`,
      stable,
      churn,
      insert: () => o.insert(k++),
      remove: async (id) => {
        await o.remove(id);
        removed.add(id);
      },
      label: { ...o.label, sort },
      key: o.key,
    });
    for (const id of everExisted) if (!removed.has(id)) await o.remove(id);
  }
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

/**
 * An administrators' list asked by everyone else: anonymous is 401, and each caller given is 403
 * with no total (the count of what a filter would select is not told either).
 */
export async function expectRefusedUncounted(t: TestApp, paths: readonly string[], callers: readonly (readonly [who: string, token: string])[]): Promise<void> {
  for (const path of paths) {
    expect({ path, status: (await t.http().get(path)).status }).toEqual({ path, status: 401 });
    for (const [who, token] of callers) {
      const res = await getAs(t, path, token);
      expect({ path, who, status: res.status, total: res.headers['x-total-count'] }).toEqual({ path, who, status: 403, total: undefined });
    }
  }
}

/** An answer as the checks below read it. */
type Got = { status: number; body: unknown; text: string; headers: Record<string, string> };
type Get = (path: string, xml: boolean) => Promise<Got>;
const withQuery = (list: string, query: string) => `${list}${list.includes('?') ? '&' : '?'}${query}`;

/**
 * A list no one writes meanwhile, walked by cursor in each order (`sorts`: `''` or `'&sort=…'`),
 * `pageSize` records a page: every record exactly once, in the order one page of the whole list
 * answers, and no total on a cursor page.
 */
export async function expectCursorWalks(get: (url: string) => Promise<Answered>, list: string, pageSize: number, sorts: readonly string[]): Promise<void> {
  for (const sort of sorts) {
    const seen: string[] = [];
    let url: string | null = withQuery(list, `limit=${pageSize}&cursor=start${sort}`);
    while (url) {
      const res: Answered = await get(url);
      expect(res.headers['x-total-count']).toBeUndefined();
      seen.push(...ids(res.body as Json[]));
      url = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1] ?? null;
    }
    const full = ids((await get(withQuery(list, `limit=5000&filter=${encodeURIComponent('ID pr')}${sort}`))).body as Json[]);
    expect({ list, sort, seen }).toEqual({ list, sort, seen: full });
  }
}

/**
 * Each filter case on each list (a path with its own parameters, e.g. `deleted=2&limit=5000`):
 * the JSON answer is exactly `all` filtered by the case's meaning in JavaScript, in the list's
 * order, with that total; the XML answer the same IDs (`element` is the record's XML element).
 */
export async function expectFilterCases(
  get: Get,
  lists: readonly string[],
  cases: readonly Case[],
  all: readonly Json[],
  element: string,
  key = 'ID',
): Promise<void> {
  for (const c of cases) {
    const expected = ids(all.filter(c.pred), key);
    for (const list of lists) {
      const path = withQuery(list, `filter=${encodeURIComponent(c.filter)}`);
      const json = await get(path, false);
      expect({ list, filter: c.filter, status: json.status, ids: json.status === 200 ? ids(json.body as Json[], key) : json.body }).toEqual({
        list,
        filter: c.filter,
        status: 200,
        ids: expected,
      });
      expect({ list, filter: c.filter, total: json.headers['x-total-count'] }).toEqual({ list, filter: c.filter, total: String(expected.length) });
    }
    const xml = await get(withQuery(lists[0], `filter=${encodeURIComponent(c.filter)}`), true);
    // XML writes an integer ID as text.
    expect({ filter: c.filter, status: xml.status, ids: xmlIdsOf(xml.text, element, key) }).toEqual({
      filter: c.filter,
      status: 200,
      ids: expected.map(String),
    });
  }
}

/** Each `sort=` on a list answers `all` in that order (`order` as the database orders: see sortCompare), in JSON and XML. */
export async function expectSorts(
  get: Get,
  list: string,
  all: readonly Json[],
  sorts: readonly [sort: string, order: (a: Json, b: Json) => number][],
  element: string,
  key = 'ID',
): Promise<void> {
  for (const [sort, order] of sorts) {
    const expected = ids([...all].sort(order), key);
    const path = withQuery(list, `sort=${encodeURIComponent(sort)}`);
    const json = await get(path, false);
    expect({ sort, status: json.status, ids: ids(json.body as Json[], key) }).toEqual({ sort, status: 200, ids: expected });
    expect({ sort, ids: xmlIdsOf((await get(path, true)).text, element, key) }).toEqual({ sort, ids: expected.map(String) });
  }
}

/**
 * `fields=`: in JSON each record holds the members `json` asks for, ID first then in declared
 * order (`jsonKeys`), with the full record's values; in XML the members `xml` asks for, in ordinal
 * order (`xmlNames`).
 */
export async function expectFields(
  get: Get,
  list: string,
  all: readonly Json[],
  element: string,
  json: [fields: string, keys: string[]],
  xml: [fields: string, names: string[]],
  key = 'ID',
): Promise<void> {
  const answered = await get(withQuery(list, `fields=${json[0]}&limit=3`), false);
  expect((answered.body as Json[]).length).toBe(3);
  for (const r of answered.body as Json[]) {
    expect(Object.keys(r)).toEqual(json[1]);
    const full = all.find((a) => a[key] === r[key])!;
    expect(r).toEqual(Object.fromEntries(json[1].map((k) => [k, full[k]])));
  }
  const text = (await get(withQuery(list, `fields=${xml[0]}&limit=3`), true)).text;
  const items = [...text.matchAll(new RegExp(`<${element}>([\\s\\S]*?)</${element}>`, 'g'))].map((m) =>
    [...m[1].matchAll(/<([A-Za-z0-9]+)[ />]/g)].map((e) => e[1]),
  );
  expect(items.length).toBe(3);
  for (const names of items) expect(names).toEqual(xml[1]);
}

/** A cell of a CSV or XLSX export as docs/exports.md says a JSON member becomes: null empty, objects as their JSON text, text that starts a formula behind a quote. */
/** A supertest parser that collects an answer's bytes whatever its type (supertest parses only the types it knows). */
export const rawBody = (res: Response, done: (err: Error | null, body: Buffer) => void): void => {
  const stream = res as unknown as IncomingMessage;
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
};

export type Cell = string | number | boolean | null;
export function expectedCell(v: unknown): Cell {
  if (v === null || v === undefined) return null;
  const text = typeof v === 'object' ? JSON.stringify(v) : v;
  if (typeof text === 'string') return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return text as number | boolean;
}
export const asCsvText = (c: Cell) => (c === null ? '' : String(c));

/**
 * The CSV export of a queried list (docs/exports.md; `path` without limit or offset) holds exactly
 * the rows and columns of its JSON list for the same query: the columns in ordinal order, each
 * cell as expectedCell says. Answers the number of rows.
 */
export async function expectCsvLikeJson(t: TestApp, path: string, token: string, file: string, limit = 5000): Promise<number> {
  const all = (await getAs(t, withQuery(path, `limit=${limit}`), token).expect(200)).body as Json[];
  expect({ path, some: all.length > 0 }).toEqual({ path, some: true });
  const columns = Object.keys(all[0]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const csv = await t.http().get(path).set('Authorization', bearer(token)).set('Accept', 'text/csv').buffer(true);
  expect({ path, status: csv.status }).toEqual({ path, status: 200 });
  expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(csv.headers['content-disposition']).toBe(`attachment; filename="${file}.csv"`);
  const rows = parseCsv(csv.text, { relax_column_count: false }) as string[][];
  expect({ path, rows }).toEqual({ path, rows: [columns, ...all.map((r) => columns.map((c) => asCsvText(expectedCell(r[c]))))] });
  return all.length;
}
