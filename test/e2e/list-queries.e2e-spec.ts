import { RequestContext } from '../../src/common/context/request-context.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import { Organization } from '../../src/modules/organizations/dto/organization.dto.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { Individual } from '../../src/modules/individuals/dto/individual.dto.js';
import { ListQueries, operatorsOf } from '../../src/http/wire/list-query.js';
import { queriedBatches } from '../../src/database/list-query-sql.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { denyRead } from '../factories/permissions.js';
import { DB_KIND, startApp, TestApp } from './harness.js';
import { type Case, comparison, expectSorts, getAs, grammarCases, ids, type Json, lower, xmlIdsOf } from './list-query-grammar.js';

/**
 * `filter=`, `sort=`, `fields=` and `cursor=` on a list (docs/queries.md), on the list of
 * individuals: every operator on every kind of filterable field checked against the same filter
 * applied in JavaScript to the full list, in JSON and XML; tenancy and a Deny on Read applied
 * before the filter and the total; keyset paging while others insert and delete; 400 problems for
 * what cannot be answered.
 */
const LAST = ['Smith', 'smythe', 'Schmidt', 'Jones', 'Johnson', 'Brown', 'Miller', 'Davis', 'Garcia', 'Wilson', 'Moore', 'Taylor'];
const FIRST = ['Ada', 'Grace', 'alan', 'Edsger', 'Barbara', 'Donald', 'Ken', 'Dennis', 'Linus', 'Margaret'];

describe(`list queries (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  let hidden: TestPerson;
  /** Every individual of acme, as the administrator reads them with deleted=2 (the truth filters are checked against). */
  let all: Json[];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const people: Partial<IndividualEntity>[] = [];
    for (let i = 0; i < 48; i++) {
      people.push({
        firstName: FIRST[i % FIRST.length],
        lastName: `${LAST[i % LAST.length]}${i % 5 === 0 ? '' : String.fromCharCode(97 + (i % 7))}`,
        email: i % 6 === 0 ? null : `p${String(i).padStart(2, '0')}@${i % 2 ? 'acme' : 'example'}.test`,
        hireDate: i % 4 === 0 ? null : new Date(Date.UTC(2020 + (i % 6), i % 12, 1 + (i % 27))),
        primaryOrganizationId: acme.orgId,
        primaryTitle: 'Staff',
        primaryReportsTo: i % 3 === 0 ? acme.admin.individualId : null,
        deleted: i % 9 === 0,
        // The HR system's keys (a few people have none), unique in the site.
        externalId: i % 7 === 0 ? null : `HR-${String(i).padStart(3, '0')}${i % 2 ? 'x' : ''}`,
      });
    }
    for (const p of people) await db.repo(ctx, IndividualEntity).insert(p);
    // Another site with the same names: never seen from acme.
    for (let i = 0; i < 6; i++) await createPerson(t, globex, { firstName: 'Ada', lastName: 'Smith' });
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    hidden = await createPerson(t, acme, { firstName: 'Hid', lastName: 'Smithden' });
    await denyRead(t, acme.admin.token, hidden.individualId, member.userId);
    all = (await get('/v4/individuals?deleted=2&limit=5000', acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBe(48 + 3);
  });
  afterAll(() => t?.close());

  const xmlIds = (text: string) => xmlIdsOf(text, 'Individual');

  // ------------------------------------------------------------------ the grammar, against JavaScript

  const filterable = [...Individual.queryable.values()].filter((f) => f.filter);
  const cases: Case[] = [];
  beforeAll(() => {
    cases.push(...grammarCases(Individual.queryable, all));
    // Composites: and, or, not, parentheses, case-insensitive names and operators.
    const by = (name: string) => Individual.queryable.get(name.toLowerCase())!;
    const sm = comparison(by('LastName'), 'sw', 'sm');
    const del = comparison(by('Deleted'), 'eq', false);
    const mail = comparison(by('Email'), 'co', 'acme');
    const hired = comparison(by('HireDate'), 'ge', '2023-01-01T00:00:00Z');
    cases.push(
      { filter: 'LastName sw "Sm" and Deleted eq false', pred: (r) => sm(r) && del(r) },
      { filter: 'lastname SW "sm" or Email co "acme"', pred: (r) => sm(r) || mail(r) },
      { filter: 'not (LastName sw "Sm") and (Email co "acme" or HireDate ge "2023-01-01")', pred: (r) => !sm(r) && (mail(r) || hired(r)) },
      { filter: 'not (HireDate ge "2023-01-01")', pred: (r) => !hired(r) },
      { filter: '(LastName sw "Sm" or Email co "acme") and not (Deleted eq true)', pred: (r) => (sm(r) || mail(r)) && del(r) },
    );
  });

  it('covers every operator of every kind of filterable field', () => {
    const kinds = new Set(filterable.map((f) => f.kind));
    expect([...kinds].sort()).toEqual(['bool', 'date', 'guid', 'string']);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
  });

  it('answers every filter as the same filter applied in JavaScript to the full list, in JSON and XML, with its total', async () => {
    expect(cases.length).toBeGreaterThan(60);
    for (const c of cases) {
      const expected = all.filter(c.pred).map((r) => r.ID as string);
      const q = `/v4/individuals?deleted=2&limit=5000&filter=${encodeURIComponent(c.filter)}`;
      const json = await get(q, acme.admin.token);
      expect({ filter: c.filter, status: json.status }).toEqual({ filter: c.filter, status: 200 });
      // The list's own order (LastName, FirstName, ID) is kept: the same sequence as the full list filtered.
      expect({ filter: c.filter, ids: ids(json.body as Json[]) }).toEqual({ filter: c.filter, ids: expected });
      expect({ filter: c.filter, total: json.headers['x-total-count'] }).toEqual({ filter: c.filter, total: String(expected.length) });
      const xml = await get(q, acme.admin.token, true).expect(200);
      expect({ filter: c.filter, ids: xmlIds(xml.text) }).toEqual({ filter: c.filter, ids: expected });
    }
  });

  it('pages a filtered list by offset with its total and Link', async () => {
    const filter = encodeURIComponent('Email co "acme"');
    const expected = all.filter((r) => r.Deleted === false && typeof r.Email === 'string' && r.Email.includes('acme')).map((r) => r.ID);
    const first = await get(`/v4/individuals?limit=5&filter=${filter}`, acme.admin.token).expect(200);
    expect(first.headers['x-total-count']).toBe(String(expected.length));
    expect(ids(first.body as Json[])).toEqual(expected.slice(0, 5));
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1];
    const second = await get(next, acme.admin.token).expect(200);
    expect(ids(second.body as Json[])).toEqual(expected.slice(5, 10));
  });

  // ------------------------------------------------------------------ tenancy and permissions

  it('never shows or counts another site’s records or one a Deny hides, whatever the filter', async () => {
    const smiths = encodeURIComponent('LastName sw "Smith"');
    const asMember = await get(`/v4/individuals?filter=${smiths}`, member.token).expect(200);
    const seen = ids(asMember.body as Json[]);
    const expected = all.filter((r) => r.Deleted === false && String(r.LastName).toLowerCase().startsWith('smith') && r.ID !== hidden.individualId);
    expect(seen).toEqual(ids(expected));
    expect(asMember.headers['x-total-count']).toBe(String(expected.length));
    // The administrator sees the hidden one; the member neither sees nor counts it, by ID or by name.
    expect((await get(`/v4/individuals?filter=${smiths}`, acme.admin.token).expect(200)).headers['x-total-count']).toBe(String(expected.length + 1));
    for (const f of [`ID eq "${hidden.individualId}"`, 'FirstName eq "Hid"', 'LastName eq "Smithden" or LastName eq "Ber"']) {
      const res = await get(`/v4/individuals?filter=${encodeURIComponent(f)}`, member.token).expect(200);
      expect(ids(res.body as Json[])).not.toContain(hidden.individualId);
      expect(res.headers['x-total-count']).toBe(String((res.body as Json[]).length));
    }
    // Another site's people, by their own ids and by the names both sites share.
    const theirs = (await get('/v4/individuals', globex.admin.token).expect(200)).body as Json[];
    for (const f of [`ID eq "${theirs[0].ID as string}"`, 'FirstName eq "Ada" and LastName eq "Smith"']) {
      const res = await get(`/v4/individuals?deleted=2&filter=${encodeURIComponent(f)}`, acme.admin.token).expect(200);
      expect(ids(res.body as Json[]).some((id) => theirs.some((r) => r.ID === id))).toBe(false);
    }
    const cursor = await get(`/v4/individuals?cursor=start&filter=${smiths}&limit=2`, member.token).expect(200);
    expect(cursor.headers['x-total-count']).toBeUndefined();
  });

  // ------------------------------------------------------------------ sort and fields

  it('sorts by the declared fields, in JSON and XML, ID ending every order', async () => {
    const cmp = (a: unknown, b: unknown) => {
      if (a === b) return 0;
      if (a === null || a === undefined) return -1;
      if (b === null || b === undefined) return 1;
      // The column's collation: case-insensitive on MySQL/MariaDB, binary on SQLite (docs/queries.md).
      const [x, y] = DB_KIND === 'mysql' ? [lower(a) as string, lower(b) as string] : [a as string, b as string];
      return x < y ? -1 : x > y ? 1 : 0;
    };
    const byDate = (v: unknown) => (v === null ? null : new Date(v as string).getTime());
    const sorts: [string, (a: Json, b: Json) => number][] = [
      [
        '-HireDate,LastName',
        (a, b) => -cmp(byDate(a.HireDate), byDate(b.HireDate)) || cmp(a.LastName, b.LastName) || cmp(a.FirstName, b.FirstName) || cmp(a.ID, b.ID),
      ],
      ['Email', (a, b) => cmp(a.Email, b.Email) || cmp(a.ID, b.ID)],
      ['-FirstName', (a, b) => -cmp(a.FirstName, b.FirstName) || -cmp(a.ID, b.ID)],
      ['LastName', (a, b) => cmp(a.LastName, b.LastName) || cmp(a.FirstName, b.FirstName) || cmp(a.ID, b.ID)],
    ];
    await expectSorts((path, xml) => get(path, acme.admin.token, xml), '/v4/individuals?deleted=2&limit=5000', all, sorts, 'Individual');
  });

  it('answers only the fields asked for, ID always, in declared order (JSON) and ordinal order (XML)', async () => {
    const json = await get('/v4/individuals?fields=UserName,LastName&limit=3', acme.admin.token).expect(200);
    for (const r of json.body as Json[]) expect(Object.keys(r)).toEqual(['ID', 'LastName', 'UserName']);
    const first = (json.body as Json[])[0];
    expect(first).toEqual({
      ID: all.find((r) => r.ID === first.ID)!.ID,
      LastName: all.find((r) => r.ID === first.ID)!.LastName,
      UserName: all.find((r) => r.ID === first.ID)!.UserName,
    });
    const xml = await get('/v4/individuals?fields=UserName,HireDate,lastname,LastCommentDate&limit=3', acme.admin.token, true).expect(200);
    const items = [...xml.text.matchAll(/<Individual>([\s\S]*?)<\/Individual>/g)].map((m) => [...m[1].matchAll(/<([A-Za-z]+)[ />]/g)].map((e) => e[1]));
    expect(items.length).toBe(3);
    // Ordinal order; LastCommentDate in its DataContract form (a nil here).
    for (const names of items)
      expect(names.filter((n) => !['DateTime', 'OffsetMinutes'].includes(n))).toEqual(['HireDate', 'ID', 'LastCommentDate', 'LastName', 'UserName']);
    const onlyId = await get('/v4/individuals?fields=ID&limit=2&cursor=start', acme.admin.token).expect(200);
    for (const r of onlyId.body as Json[]) expect(Object.keys(r)).toEqual(['ID']);
  });

  // ------------------------------------------------------------------ cursors

  it('pages with a cursor while others insert and delete: every record present throughout exactly once', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const insert = (i: number) =>
      db.repo(ctx, IndividualEntity).insert({
        firstName: FIRST[i % FIRST.length],
        lastName: `Cur${String.fromCharCode(97 + (i % 26))}${i}`,
        email: i % 5 === 0 ? null : `c${i}@churn.test`,
        hireDate: i % 3 === 0 ? null : new Date(Date.UTC(2021, i % 12, 1 + (i % 20))),
        primaryOrganizationId: acme.orgId,
        primaryTitle: 'Churn',
      });
    for (const sort of ['', '-HireDate,LastName', 'Email', '-Updated']) {
      const stable: string[] = [];
      const churn: string[] = [];
      for (let i = 0; i < 40; i++) stable.push((await insert(i)).id);
      for (let i = 40; i < 60; i++) churn.push((await insert(i)).id);
      const everExisted = new Set([...stable, ...churn]);
      const seen: string[] = [];
      let url: string | null = `/v4/individuals?limit=7&cursor=start&filter=${encodeURIComponent('LastName sw "Cur"')}${sort ? `&sort=${sort}` : ''}`;
      let k = 100;
      while (url) {
        const res: { body: unknown; headers: Record<string, string> } = await get(url, acme.admin.token).expect(200);
        seen.push(...ids(res.body as Json[]));
        // Between pages: a new record, a deleted one (soft: it leaves the live list) and a removed one.
        const added = await insert(k++);
        everExisted.add(added.id);
        const gone = churn.shift();
        if (gone) await db.repo(ctx, IndividualEntity).update(gone, { deleted: true });
        const link = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''));
        url = link ? link[1] : null;
        if (link) expect(link[1]).toContain('cursor=');
        expect(res.headers['x-total-count']).toBeUndefined();
      }
      expect({ sort, duplicates: seen.length - new Set(seen).size }).toEqual({ sort, duplicates: 0 });
      for (const id of stable) expect({ sort, id, seen: seen.includes(id) }).toEqual({ sort, id, seen: true });
      for (const id of seen) expect(everExisted.has(id)).toBe(true);
      // Clean the slate for the next order: the churn rows take no part in the rest of the file.
      for (const id of [...everExisted]) await db.repo(ctx, IndividualEntity).update(id, { deleted: true });
    }
  });

  it('walks the same pages by cursor as by offset when nothing changes, in JSON and XML', async () => {
    const base = `/v4/individuals?deleted=2&limit=6&sort=${encodeURIComponent('-HireDate,LastName')}&filter=${encodeURIComponent('LastName sw "S" or LastName sw "J"')}`;
    const full = ids((await get(base.replace('limit=6', 'limit=5000'), acme.admin.token).expect(200)).body as Json[]);
    for (const xml of [false, true]) {
      const seen: string[] = [];
      let url: string | null = `${base}&cursor=start`;
      while (url) {
        const res: { body: unknown; text: string; headers: Record<string, string> } = await get(url, acme.admin.token, xml).expect(200);
        seen.push(...(xml ? xmlIds(res.text) : ids(res.body as Json[])));
        url = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1] ?? null;
      }
      expect(seen).toEqual(full);
    }
  });

  // ------------------------------------------------------------------ refusals

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const start = await get('/v4/individuals?limit=2&cursor=start', acme.admin.token).expect(200);
    const cursor = new URL(/<([^>]+)>/.exec(String(start.headers.link))![1], 'http://x').searchParams.get('cursor')!;
    const [payload, mac] = cursor.split('.');
    const flipped = payload.slice(0, -2) + (payload.at(-2) === 'A' ? 'B' : 'A') + payload.at(-1);
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: .*LastName/],
      ['filter=UserDefined1 eq "x"', 'filter', /Unknown field UserDefined1|not filterable/],
      ['filter=LastName xx "x"', 'filter', /Unknown operator xx/],
      ['filter=LastName gt 3', 'filter', /takes a quoted string/],
      ['filter=Deleted co "x"', 'filter', /operator co does not apply to Deleted/],
      ['filter=ID eq "not-a-guid"', 'filter', /UUID/],
      ['filter=HireDate gt "soon"', 'filter', /date/],
      ['filter=LastName gt null', 'filter', /null/],
      ['filter=(LastName eq "x"', 'filter', /cannot be read/],
      ['filter=emails[type eq "work"]', 'filter', /sub-attributes/],
      [`filter=${Array.from({ length: 17 }, (_, i) => `LastName eq "${i}"`).join(' or ')}`, 'filter', /at most 16/],
      ['sort=Nope', 'sort', /Unknown field Nope.*sortable/],
      ['sort=PrimaryReportsTo', 'sort', /not sortable/],
      ['sort=LastName,-LastName', 'sort', /twice/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      [`cursor=${payload}.${mac.slice(0, -1)}${mac.at(-1) === 'A' ? 'B' : 'A'}`, 'cursor', /not one this list gave/],
      [`cursor=${flipped}.${mac}`, 'cursor', /not one this list gave/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
      [`cursor=${cursor}&filter=LastName sw "S"`, 'cursor', /another list, another site, or other parameters \(filter, sort/],
      [`cursor=${cursor}&sort=-LastName`, 'cursor', /other parameters \(filter, sort/],
      [`cursor=${cursor}&deleted=1`, 'cursor', /other parameters/],
      [`cursor=${cursor}&offset=5`, 'offset', /not taken with cursor/],
    ];
    for (const [query, field, message] of bad) {
      for (const xml of [false, true]) {
        const res = await get(`/v4/individuals?limit=2&${query.replace(/ /g, '%20').replace(/"/g, '%22')}`, acme.admin.token, xml);
        expect({ query, status: res.status }).toEqual({ query, status: 400 });
        expect(res.headers['content-type']).toMatch(xml ? /application\/problem\+xml/ : /application\/problem\+json/);
        if (!xml) {
          const errors = (res.body as { errors: { field: string; message: string }[] }).errors;
          expect({ query, field: errors[0].field }).toEqual({ query, field });
          expect(errors[0].message).toMatch(message);
        }
      }
    }
    // The cursor of another site: 400, not that site's rows.
    const theirs = await get('/v4/individuals?limit=1&cursor=start', globex.admin.token).expect(200);
    const theirCursor = /<([^>]+)>/.exec(String(theirs.headers.link))![1].split('?')[1];
    expect((await get(`/v4/individuals?${theirCursor}`, acme.admin.token)).status).toBe(400);
  });

  it('binds a cursor to its list: sent to another list it is a 400 naming cursor, never a 500 or a page of that list', async () => {
    const start = await get('/v4/individuals?limit=1&cursor=start', acme.admin.token).expect(200);
    const cursor = new URL(/<([^>]+)>/.exec(String(start.headers.link))![1], 'http://x').searchParams.get('cursor')!;
    // Lists whose order has other keys (a 500 before the cursor was bound to its list) and lists
    // with the same keys (before, a page of theirs from the individual's position).
    const others = [
      '/v4/departments',
      '/v4/organizations',
      '/v4/corevalues',
      '/v4/tasks',
      '/v4/periods',
      '/v4/metrics',
      '/v4/projects',
      '/v4/dialogs',
      '/v4/securitygroups',
      '/v4/apitokens',
      '/v4/me/goals',
      `/v4/individuals/${acme.admin.individualId}/goals`,
      '/v4/audit',
      '/v4/sites',
      `/v4/sites/${acme.siteId}/individuals`,
    ];
    for (const path of others) {
      for (const xml of [false, true]) {
        const res = await get(`${path}?limit=1&cursor=${encodeURIComponent(cursor)}`, acme.admin.token, xml);
        expect({ path, xml, status: res.status }).toEqual({ path, xml, status: 400 });
        if (!xml) expect({ path, field: (res.body as { errors: { field: string }[] }).errors[0].field }).toEqual({ path, field: 'cursor' });
      }
    }
    // The same list with other page parameters (limit, fields, tz) continues: they only shape the page.
    const more = await get(`/v4/individuals?limit=3&fields=ID,LastName&tz=Europe/Oslo&cursor=${encodeURIComponent(cursor)}`, acme.admin.token).expect(200);
    const all = await get('/v4/individuals?limit=4&cursor=start', acme.admin.token).expect(200);
    expect((more.body as Json[]).map((r) => r.ID)).toEqual((all.body as Json[]).slice(1).map((r) => r.ID));
  });

  it('refuses filter, sort, fields and cursor on a list that does not take them yet, instead of ignoring them', async () => {
    for (const q of ['filter=Name%20eq%20%22x%22', 'sort=Name', 'fields=ID', 'cursor=start']) {
      // A record's history: its own paging by `before` (docs/audit.md), no queries.
      const res = await get(`/v4/individuals/${acme.admin.individualId}/history?${q}`, acme.admin.token);
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
      expect((res.body as { errors: { message: string }[] }).errors[0].message).toMatch(/does not take/);
    }
  });

  it('takes the same queries on /sites/{siteid}/individuals', async () => {
    const f = encodeURIComponent('LastName sw "Sm" and Deleted eq false');
    const a = await get(`/v4/individuals?filter=${f}&fields=ID,LastName`, acme.admin.token).expect(200);
    const b = await get(`/v4/sites/${acme.siteId}/individuals?filter=${f}&fields=ID,LastName`, acme.admin.token).expect(200);
    expect(b.body).toEqual(a.body);
  });
});

/** The departments and organizations (one table, one row type per list): an int field (Rank) among them. */
describe(`list queries on departments and organizations (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let all: Json[];
  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const xmlIds = (text: string) => xmlIdsOf(text, 'Organization');

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    const db = t.app.get(TenantDb);
    const parents: string[] = [];
    for (const [site, n] of [
      [acme, 36],
      [globex, 5],
    ] as const) {
      const ctx = RequestContext.system(site.siteId);
      for (let i = 0; i < n; i++) {
        const row = await db.repo(ctx, OrganizationEntity).insert({
          name: `${['Sales', 'support', 'Research', 'Finance', 'Legal', 'ops'][i % 6]}${i % 4 ? String.fromCharCode(97 + (i % 5)) : ''}`,
          description: null,
          rowType: i % 7 === 0 ? 4 : 56,
          parentId: site === acme && i % 3 === 0 ? (parents[i % 2] ?? site.orgId) : null,
          managerId: null,
          rank: (i * 5) % 9,
          deleted: i % 8 === 0,
          externalId: i % 5 === 0 ? null : `U-${site === acme ? 'a' : 'g'}${String(i).padStart(2, '0')}`,
        });
        if (site === acme && parents.length < 2) parents.push(row.id);
      }
    }
    all = (await get('/v4/departments?deleted=2&limit=5000', acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBeGreaterThan(25);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (an int among them) as JavaScript does, in JSON and XML, with its total', async () => {
    const cases = grammarCases(Organization.queryable, all);
    expect([...new Set([...Organization.queryable.values()].filter((f) => f.filter).map((f) => f.kind))].sort()).toEqual([
      'bool',
      'date',
      'guid',
      'int',
      'string',
    ]);
    const rank = Organization.queryable.get('rank')!;
    cases.push({
      filter: 'Rank ge 3 and (Name sw "s" or not (Rank eq 4))',
      pred: (r) => comparison(rank, 'ge', 3)(r) && (String(r.Name).toLowerCase().startsWith('s') || !comparison(rank, 'eq', 4)(r)),
    });
    for (const c of cases) {
      const expected = ids(all.filter(c.pred));
      const q = `/v4/departments?deleted=2&limit=5000&filter=${encodeURIComponent(c.filter)}`;
      const json = await get(q, acme.admin.token);
      expect({ filter: c.filter, status: json.status, ids: ids(json.body as Json[]) }).toEqual({ filter: c.filter, status: 200, ids: expected });
      expect({ filter: c.filter, total: json.headers['x-total-count'] }).toEqual({ filter: c.filter, total: String(expected.length) });
      expect({ filter: c.filter, ids: xmlIds((await get(q, acme.admin.token, true).expect(200)).text) }).toEqual({ filter: c.filter, ids: expected });
    }
  });

  it('keeps each list to its row type and site, sorts by Rank (then Name) or Updated, and pages by cursor', async () => {
    const orgs = ids((await get('/v4/organizations?deleted=2&limit=5000', acme.admin.token).expect(200)).body as Json[]);
    const filtered = ids(
      (await get(`/v4/organizations?deleted=2&limit=5000&filter=${encodeURIComponent('Rank ge 0')}`, acme.admin.token).expect(200)).body as Json[],
    );
    expect(filtered).toEqual(orgs);
    expect(filtered.some((id) => all.some((d) => d.ID === id))).toBe(false);
    const cmp = (a: unknown, b: unknown) => {
      const [x, y] = DB_KIND === 'mysql' && typeof a === 'string' ? [lower(a) as string, lower(b) as string] : [a as string, b as string];
      return x < y ? -1 : x > y ? 1 : 0;
    };
    const expected = ids([...all].sort((a, b) => -cmp(a.Rank, b.Rank) || -cmp(a.Name, b.Name) || -cmp(a.ID, b.ID)));
    const seen: string[] = [];
    let url: string | null = '/v4/departments?deleted=2&limit=4&sort=-Rank&cursor=start';
    while (url) {
      const res: { body: unknown; headers: Record<string, string> } = await get(url, acme.admin.token).expect(200);
      seen.push(...ids(res.body as Json[]));
      url = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1] ?? null;
    }
    expect(seen).toEqual(expected);
    const byUpdated = ids((await get('/v4/departments?deleted=2&limit=5000&sort=Updated', acme.admin.token).expect(200)).body as Json[]);
    expect(byUpdated).toEqual(
      ids([...all].sort((a, b) => cmp(new Date(a.Updated as string).getTime(), new Date(b.Updated as string).getTime()) || cmp(a.ID, b.ID))),
    );
    const theirs = (await get(`/v4/departments?filter=${encodeURIComponent('Name sw "S"')}`, globex.admin.token).expect(200)).body as Json[];
    expect(theirs.some((r) => all.some((d) => d.ID === r.ID))).toBe(false);
    // The reader a streamed export reuses: every record the query selects, by keyset batches, in the list's order.
    const ctx = RequestContext.system(acme.siteId);
    const query = t.app.get(ListQueries).read(ctx, Organization, { filter: 'Rank ge 2 or Name co "a"', sort: '-Updated', deleted: 2 });
    const streamed: string[] = [];
    const batches = queriedBatches(t.app.get(TenantDb), ctx, OrganizationEntity, { equal: { rowType: 56 } }, query, [], 5);
    for await (const rows of batches) {
      expect(rows.length).toBeLessThanOrEqual(5);
      streamed.push(...rows.map((r) => r.id));
    }
    const listed = (
      await get(`/v4/departments?deleted=2&limit=5000&sort=-Updated&filter=${encodeURIComponent('Rank ge 2 or Name co "a"')}`, acme.admin.token).expect(200)
    ).body as Json[];
    expect(streamed).toEqual(ids(listed));
    expect(streamed.length).toBeGreaterThan(10);
    const bad = await get('/v4/departments?filter=Description%20eq%20%22x%22', acme.admin.token).expect(400);
    expect((bad.body as { errors: { message: string }[] }).errors[0].message).toMatch(
      /Unknown field Description.*filterable: ID, ParentID, Name, Rank, ExternalID, Deleted, Updated/,
    );
  });
});
