import { RequestContext } from '../../src/common/context/request-context.js';
import { IdentityProviderEntity } from '../../src/database/entities/identity-provider.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { IdentityProvider } from '../../src/modules/identity-providers/dto/identity-provider.dto.js';
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
  getAs,
  grammarCases,
  ids,
  type Json,
  sortCompare,
} from './list-query-grammar.js';

/**
 * `filter=`, `sort=`, `fields=` and `cursor=` on the identity provider list
 * (`GET /v4/identityproviders`, docs/queries.md), administrators only and never a token. Every
 * operator on every filterable field (guid, string, bool) against the same filter in JavaScript, in
 * JSON and XML; another site's providers before the filter and the total; the roles; keyset paging
 * while others insert and delete; the CSV export; 400 problems. A provider holds no secret (tokens
 * are checked against the provider's published keys): nothing but its declared fields is queried.
 */
describe(`list queries on identity providers (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  let all: Json[];
  const elsewhere: string[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const repo = (siteId = acme.siteId) => t.app.get(TenantDb).repo(RequestContext.system(siteId), IdentityProviderEntity);
  const provider = (i: number, tag = 'acme'): Partial<IdentityProviderEntity> => ({
    name: `${['Okta', 'entra', 'Keycloak', 'okta'][i % 4]} ${i % 5}`,
    issuer: `https://idp${i % 3}.${tag}.example.test/realms/${i % 2 ? 'staff' : 'main'}`,
    clientId: `client-${tag}-${i % 6}`,
    audiences: i % 2 ? `api://pms-${tag}-${i}` : null,
    userClaim: 'email',
    jitProvisioning: i % 3 === 0,
    jitOrganizationId: null,
    groupsClaim: i % 2 ? 'groups' : null,
    groupMappings: null,
    enabled: i % 4 !== 2,
  });

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    for (let i = 0; i < 14; i++) await repo().insert(provider(i));
    for (let i = 0; i < 3; i++) elsewhere.push((await repo(globex.siteId).insert(provider(i, 'acme'))).id);
    all = (await get('/v4/identityproviders?limit=5000', acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBe(14);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, string, bool) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...IdentityProvider.queryable.values()].filter((f) => f.filter);
    expect(filterable.map((f) => f.name)).toEqual(['ID', 'Name', 'Issuer', 'ClientID', 'Enabled']);
    const cases: Case[] = grammarCases(IdentityProvider.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    cases.push(
      { filter: 'Enabled eq true and Name sw "okta"', pred: (r) => r.Enabled === true && String(r.Name).toLowerCase().startsWith('okta') },
      {
        filter: 'Issuer ew "/staff" or not (ClientID eq "client-acme-1")',
        pred: (r) => String(r.Issuer).endsWith('/staff') || r.ClientID !== 'client-acme-1',
      },
    );
    await expectFilterCases(as(acme.admin.token), ['/v4/identityproviders?limit=5000'], cases, all, 'IdentityProvider');
  });

  it('is for administrators, never a token (whatever its scopes): others are refused whatever the filter, by offset or by cursor', async () => {
    const token = async (scopes: string) =>
      (await t.http().post('/v4/apitokens').set('Authorization', bearer(acme.admin.token)).send({ Name: scopes, Scopes: scopes }).expect(200)).body
        .Secret as string;
    const tokens = [await token('*:read'), await token('*:write admin')];
    await expectRefusedUncounted(
      t,
      [`/v4/identityproviders?filter=${q('Enabled eq true')}`, `/v4/identityproviders?cursor=start&filter=${q('Name sw "Okta"')}`],
      [
        ['member', member.token],
        ['*:read token', tokens[0]],
        ['*:write admin token', tokens[1]],
      ],
    );
    await t.http().get('/v4/identityproviders').set('Authorization', bearer(tokens[0])).set('Accept', 'text/csv').expect(403);
    await t.http().get('/v4/identityproviders').set('Authorization', bearer(member.token)).set('Accept', 'text/csv').expect(403);
  });

  it('never finds another site’s providers, nor counts them, though they share names, issuers and client ids', async () => {
    for (const id of elsewhere) {
      const res = await get(`/v4/identityproviders?filter=${q(`ID eq "${id}"`)}`, acme.admin.token).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    for (const f of ['ClientID eq "client-acme-0"', 'Issuer sw "https://idp0."', 'Name eq "Okta 0"']) {
      const res = await get(`/v4/identityproviders?filter=${q(f)}`, acme.admin.token).expect(200);
      const found = ids(res.body as Json[]);
      expect(found.some((id) => elsewhere.includes(id))).toBe(false);
      expect({ f, total: res.headers['x-total-count'] }).toEqual({ f, total: String(found.length) });
    }
  });

  it('sorts by Name (its own order), in JSON and XML, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const byName = (a: Json, b: Json) => cmp(a.Name, b.Name) || cmp(a.ID, b.ID);
    expect(ids((await get(`/v4/identityproviders?limit=5000&filter=${q('ID pr')}`, acme.admin.token).expect(200)).body as Json[])).toEqual(
      ids([...all].sort(byName)),
    );
    await expectSorts(
      as(acme.admin.token),
      '/v4/identityproviders?limit=5000',
      all,
      [
        ['Name', byName],
        ['-Name', (a, b) => -byName(a, b)],
      ],
      'IdentityProvider',
    );
    await expectFields(
      as(acme.admin.token),
      '/v4/identityproviders',
      all,
      'IdentityProvider',
      ['enabled,issuer', ['ID', 'Issuer', 'Enabled']],
      ['Name,GroupMappings', ['GroupMappings', 'ID', 'Name']],
    );
  });

  it('exports the same providers as CSV for the same query', async () => {
    expect(await expectCsvLikeJson(t, `/v4/identityproviders?sort=-Name&filter=${q('Enabled eq true')}`, acme.admin.token, 'identityproviders')).toBe(
      all.filter((r) => r.Enabled === true).length,
    );
    expect(await expectCsvLikeJson(t, '/v4/identityproviders?fields=ClientID,Audiences', acme.admin.token, 'identityproviders')).toBe(all.length);
  });

  it('pages with a cursor while others insert and delete: every provider present throughout exactly once', async () => {
    await cursorsUnderChurn<string>({
      get: (url) => get(url, acme.admin.token).expect(200),
      first: `/v4/identityproviders?limit=4&cursor=start&filter=${q('ClientID sw "churn-"')}`,
      sorts: ['', '-Name'],
      stable: 12,
      churn: 8,
      insert: async (i) => (await repo().insert({ ...provider(i, 'churn'), clientId: `churn-${i}`, name: `Churn ${i % 5}` })).id,
      remove: (id) => t.ds.getRepository(IdentityProviderEntity).delete({ id }),
      label: { list: 'identityproviders' },
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    await expectRefusals(
      (path, xml) => get(path, acme.admin.token, xml),
      ['/v4/identityproviders'],
      [
        ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, Name, Issuer, ClientID, Enabled/],
        ['filter=GroupMappings pr', 'filter', /Unknown field GroupMappings/],
        ['filter=Audiences co "api"', 'filter', /Unknown field Audiences/],
        ['filter=ClientSecret pr', 'filter', /Unknown field ClientSecret/],
        ['filter=Enabled eq "yes"', 'filter', /true or false/],
        ['filter=Issuer gt 3', 'filter', /quoted string/],
        ['sort=Issuer', 'sort', /not sortable.*sortable: Name/],
        ['fields=ID,ClientSecret', 'fields', /Unknown field ClientSecret/],
        ['cursor=garbage', 'cursor', /not one this list gave/],
        ['cursor=start&offset=2', 'offset', /not taken with cursor/],
      ],
    );
  });
});
