import { randomBytes } from 'node:crypto';
import { apiTokenHash } from '../../src/auth/api-token.js';
import { RequestContext } from '../../src/common/context/request-context.js';
import { ApiTokenEntity } from '../../src/database/entities/api-token.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { ApiToken } from '../../src/modules/api-tokens/dto/api-token.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { bearer, DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  cursorsUnderChurn,
  expectCsvLikeJson,
  expectFields,
  expectFilterCases,
  expectRefusals,
  expectSorts,
  expectRefusedUncounted,
  exportTexts,
  getAs,
  grammarCases,
  ids,
  type Json,
  sortCompare,
} from './list-query-grammar.js';

/**
 * `filter=`, `sort=`, `fields=` and `cursor=` on the API token list (`GET /v4/apitokens`,
 * docs/queries.md), administrators only and never a token. Every operator on every filterable field
 * (guid, string, date) against the same filter in JavaScript, in JSON and XML; another site's tokens
 * before the filter and the total; the roles; the secrets and their hashes, which no filter, sort,
 * field selection or export reads or probes; keyset paging while others insert and delete; the CSV
 * export; 400 problems.
 */
describe(`list queries on API tokens (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  /** The site's tokens as the administrator reads them. */
  let all: Json[];
  /** Every secret made, and its stored hash. */
  const secrets: string[] = [];
  const elsewhere: string[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const create = async (token: string, body: Json) => {
    const res = await t.http().post('/v4/apitokens').set('Authorization', bearer(token)).send(body).expect(200);
    secrets.push(res.body.Secret as string);
    return res.body as Json;
  };
  const day = (y: number, m: number, d: number) => new Date(Date.UTC(y, m, d));

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    const repo = t.ds.getRepository(ApiTokenEntity);
    for (let i = 0; i < 14; i++) {
      const made = await create(acme.admin.token, {
        Name: `${['Payroll', 'hris', 'Warehouse', 'BI'][i % 4]} sync ${i}`,
        Scopes: i % 2 ? 'individuals:read' : '*:read goals:write',
        Expires: i % 5 ? new Date(Date.now() + (10 + i * 20) * 86400_000).toISOString().slice(0, 10) : null,
      });
      // Created two at a time over 2025 (the ID orders them), some used, some revoked.
      await repo.update(
        { id: made.ID as string },
        {
          created: day(2025, Math.floor(i / 2), 3),
          lastUsed: i % 3 ? day(2026, i % 12, 1 + i) : null,
          revoked: i % 4 === 1 ? day(2026, 0, i) : null,
        },
      );
    }
    for (let i = 0; i < 3; i++) elsewhere.push((await create(globex.admin.token, { Name: `Payroll sync ${i}`, Scopes: '*:read' })).ID as string);
    all = (await get('/v4/apitokens?limit=5000', acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBe(14);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, string, date) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...ApiToken.queryable.values()].filter((f) => f.filter);
    expect(filterable.map((f) => f.name)).toEqual(['ID', 'Name', 'Expires', 'LastUsed', 'Revoked', 'Created']);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['date', 'guid', 'string']);
    const cases: Case[] = grammarCases(ApiToken.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    cases.push(
      { filter: 'Revoked eq null and LastUsed ne null', pred: (r) => r.Revoked === null && r.LastUsed !== null },
      {
        filter: 'Name sw "payroll" or not (Expires pr)',
        pred: (r) => String(r.Name).toLowerCase().startsWith('payroll') || r.Expires === null,
      },
    );
    await expectFilterCases(as(acme.admin.token), ['/v4/apitokens?limit=5000'], cases, all, 'ApiToken');
  });

  it('is for administrators, never a token (whatever its scopes): others are refused whatever the filter, by offset or by cursor', async () => {
    const tokens = [
      (await create(acme.admin.token, { Name: 'Reader', Scopes: '*:read' })).Secret as string,
      (await create(acme.admin.token, { Name: 'Writer', Scopes: '*:write admin' })).Secret as string,
    ];
    await expectRefusedUncounted(
      t,
      [`/v4/apitokens?filter=${q('Revoked eq null')}`, `/v4/apitokens?cursor=start&filter=${q('Name sw "Payroll"')}`],
      [
        ['member', member.token],
        ['*:read token', tokens[0]],
        ['*:write admin token', tokens[1]],
      ],
    );
    await t.http().get('/v4/apitokens').set('Authorization', bearer(tokens[0])).set('Accept', 'text/csv').expect(403);
    await t.http().get('/v4/apitokens').set('Authorization', bearer(member.token)).set('Accept', 'text/csv').expect(403);
    await t.ds.getRepository(ApiTokenEntity).delete({ name: 'Reader' });
    await t.ds.getRepository(ApiTokenEntity).delete({ name: 'Writer' });
  });

  it('never finds another site’s tokens, nor counts them', async () => {
    for (const id of elsewhere) {
      const res = await get(`/v4/apitokens?filter=${q(`ID eq "${id}"`)}`, acme.admin.token).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    // globex's three are named "Payroll sync 0…2" too; acme's own Payroll tokens only.
    const res = await get(`/v4/apitokens?filter=${q('Name sw "Payroll sync"')}`, acme.admin.token).expect(200);
    const mine = all.filter((r) => String(r.Name).startsWith('Payroll sync'));
    expect({ ids: ids(res.body as Json[]), total: res.headers['x-total-count'] }).toEqual({ ids: ids(mine), total: String(mine.length) });
  });

  it('no filter, sort, field selection or export reads or probes a secret or its hash', async () => {
    const hashes = secrets.map(apiTokenHash);
    const stored = (await t.ds.getRepository(ApiTokenEntity).find()).map((r) => r.secretHash);
    expect(hashes.filter((h) => stored.includes(h)).length).toBe(secrets.length - 2);
    const bad: [string, string, RegExp][] = [];
    for (const name of ['Secret', 'SecretHash', 'secret_hash', 'secretHash', 'Hint'])
      bad.push(
        [`filter=${name} eq "${hashes[0]}"`, 'filter', new RegExp(`Unknown field ${name} \\(filterable: ID, Name, Expires, LastUsed, Revoked, Created\\)`)],
        [`filter=${name} sw "pms_"`, 'filter', new RegExp(`Unknown field ${name}`)],
        [`filter=${name} pr`, 'filter', new RegExp(`Unknown field ${name}`)],
        [`sort=${name}`, 'sort', new RegExp(`Unknown field ${name} \\(sortable: Name, Expires, LastUsed, Created\\)`)],
      );
    bad.push(['fields=ID,SecretHash', 'fields', /Unknown field SecretHash/], ['fields=secret_hash', 'fields', /Unknown field secret_hash/]);
    await expectRefusals((path, xml) => get(path, acme.admin.token, xml), ['/v4/apitokens'], bad);
    // Secret may be named in fields= (a member of the answer), and is null: in JSON, XML and every export.
    const asked = (await get('/v4/apitokens?fields=Secret,Hint&limit=5000', acme.admin.token).expect(200)).body as Json[];
    expect(asked.map((r) => Object.keys(r))).toEqual(all.map(() => ['ID', 'Secret', 'Hint']));
    expect(asked.every((r) => r.Secret === null)).toBe(true);
    const answers = [
      JSON.stringify(asked),
      (await get('/v4/apitokens?fields=Secret&limit=5000', acme.admin.token, true).expect(200)).text,
      (await get(`/v4/apitokens?sort=-Name&filter=${q('ID pr')}`, acme.admin.token).expect(200)).text,
    ];
    answers.push(...(await exportTexts(t, '/v4/apitokens?fields=Secret,Hint,Scopes', acme.admin.token)));
    for (const text of answers) {
      for (const s of secrets) expect(text.includes(s) || text.includes(s.slice(12))).toBe(false);
      for (const h of hashes) expect(text.toLowerCase().includes(h.slice(0, 16))).toBe(false);
    }
  });

  it('sorts by Created (its own order, newest first), Name, Expires and LastUsed, in JSON and XML, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const time = (v: unknown) => (v === null ? null : new Date(v as string).getTime());
    const by = (name: string) => (a: Json, b: Json) =>
      cmp(name === 'Name' ? a[name] : time(a[name]), name === 'Name' ? b[name] : time(b[name])) || cmp(a.ID, b.ID);
    // The plain list, and a queried one without sort=: newest first, then the ID descending.
    expect(ids(all)).toEqual(ids([...all].sort((a, b) => -by('Created')(a, b))));
    expect(ids((await get(`/v4/apitokens?limit=5000&filter=${q('ID pr')}`, acme.admin.token).expect(200)).body as Json[])).toEqual(ids(all));
    await expectSorts(
      as(acme.admin.token),
      '/v4/apitokens?limit=5000',
      all,
      ['Created', 'Name', 'Expires', 'LastUsed'].flatMap((f): [string, (a: Json, b: Json) => number][] => [
        [f, by(f)],
        [`-${f}`, (a, b) => -by(f)(a, b)],
      ]),
      'ApiToken',
    );
    await expectFields(
      as(acme.admin.token),
      '/v4/apitokens',
      all,
      'ApiToken',
      ['revoked,name', ['ID', 'Name', 'Revoked']],
      ['Scopes,LastUsed', ['ID', 'LastUsed', 'Scopes']],
    );
  });

  it('exports the same tokens as CSV for the same query', async () => {
    expect(await expectCsvLikeJson(t, `/v4/apitokens?sort=Name&filter=${q('Revoked eq null')}`, acme.admin.token, 'apitokens')).toBe(
      all.filter((r) => r.Revoked === null).length,
    );
    expect(await expectCsvLikeJson(t, '/v4/apitokens', acme.admin.token, 'apitokens')).toBe(all.length);
  });

  it('pages with a cursor while others insert and delete: every token present throughout exactly once', async () => {
    const since = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
    const ctx = RequestContext.system(acme.siteId);
    await cursorsUnderChurn<string>({
      get: (url) => get(url, acme.admin.token).expect(200),
      first: `/v4/apitokens?limit=4&cursor=start&filter=${q(`Created ge "${since}"`)}`,
      sorts: ['', 'Name', '-Expires'],
      stable: 12,
      churn: 8,
      insert: async (i) => {
        const secret = `pms_${randomBytes(24).toString('hex')}`;
        return (
          await t.app
            .get(TenantDb)
            .repo(ctx, ApiTokenEntity)
            .insert({
              name: `Churn ${i % 7}`,
              scopes: '*:read',
              hint: secret.slice(0, 12),
              secretHash: apiTokenHash(secret),
              expires: i % 3 ? day(2027, i % 12, 1) : null,
              revoked: null,
              lastUsed: null,
            })
        ).id;
      },
      remove: (id) => t.ds.getRepository(ApiTokenEntity).delete({ id }),
      label: { list: 'apitokens' },
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    await expectRefusals(
      (path, xml) => get(path, acme.admin.token, xml),
      ['/v4/apitokens'],
      [
        ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, Name, Expires, LastUsed, Revoked, Created/],
        ['filter=Scopes co "read"', 'filter', /Unknown field Scopes/],
        ['filter=Expires gt "soon"', 'filter', /date/],
        ['filter=Name gt 3', 'filter', /quoted string/],
        ['sort=Revoked', 'sort', /not sortable.*sortable: Name, Expires, LastUsed, Created/],
        ['fields=ID,Nope', 'fields', /Unknown field Nope/],
        ['cursor=garbage', 'cursor', /not one this list gave/],
        ['cursor=start&offset=2', 'offset', /not taken with cursor/],
      ],
    );
  });
});
