import { RequestContext } from '../../src/common/context/request-context.js';
import { IdentityProviderEntity } from '../../src/database/entities/identity-provider.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { IdentityProvider } from '../../src/modules/identity-providers/dto/identity-provider.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  expectCsvLikeJson,
  expectCursorWalks,
  expectFields,
  expectFilterCases,
  expectRefusals,
  expectRefusedUncounted,
  expectSorts,
  exportTexts,
  getAs,
  grammarCases,
  ids,
  type Json,
} from './list-query-grammar.js';

/**
 * `filter=`, `sort=`, `fields=` and `cursor=` on the identity providers' collisions
 * (`GET /v4/identityproviders/collisions`, global administrators; docs/queries.md, "Lists not
 * stored"): the providers of every site that share an (issuer, audience) pair, worked out across
 * the sites, queried in memory with the providers' own fields. Every operator on every filterable
 * field (guid, string, bool) against the same filter in JavaScript, in JSON and XML; providers that
 * collide with none never found nor counted; the roles; keyset paging; the exports; 400 problems.
 */
describe(`list queries on identity provider collisions (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  /** Every colliding provider, in the queried list's own order (Issuer, then ID). */
  let all: Json[];
  const alone: string[] = [];
  const LIST = '/v4/identityproviders/collisions?limit=5000';

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const repo = (siteId: string) => t.app.get(TenantDb).repo(RequestContext.system(siteId), IdentityProviderEntity);
  const provider = (i: number, issuer: string, clientId: string): Partial<IdentityProviderEntity> => ({
    name: `${['Okta', 'entra', 'Keycloak', '=Okta'][i % 4]} ${i % 5}`,
    issuer,
    clientId,
    audiences: i % 3 === 0 ? `api://pms-${i % 2}` : null,
    userClaim: 'email',
    jitProvisioning: false,
    jitOrganizationId: null,
    groupsClaim: null,
    groupMappings: null,
    enabled: i % 4 !== 2,
  });
  const order = (a: Json, b: Json) => {
    const [x, y] = [String(a.Issuer).toLowerCase(), String(b.Issuer).toLowerCase()];
    return x < y ? -1 : x > y ? 1 : String(a.ID) < String(b.ID) ? -1 : String(a.ID) > String(b.ID) ? 1 : 0;
  };

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    // Written past the service (as before the rule): pairs shared within a site and across sites.
    // i and i + 6 share issuer and client id across the sites (but 5: there is no 11); 4 and 10 within one.
    for (let i = 0; i < 11; i++)
      await repo(i < 5 || i === 10 ? acme.siteId : globex.siteId).insert(provider(i, `https://idp${i % 3}.shared.example.test`, `client-${i % 2}`));
    for (let i = 0; i < 3; i++) alone.push((await repo(acme.siteId).insert(provider(i, `https://alone${i}.example.test`, `solo-${i}`))).id);
    all = ((await get(LIST, t.adminToken).expect(200)).body as Json[]).sort(order);
    expect(all.length).toBe(10); // 5 shares no pair (it would with 11)
    expect(new Set(all.map((r) => r.SiteID))).toEqual(new Set([acme.siteId, globex.siteId]));
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, string, bool) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...IdentityProvider.queryable.values()].filter((f) => f.filter);
    const cases: Case[] = grammarCases(IdentityProvider.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    cases.push(
      { filter: 'Enabled eq true and Name sw "okta"', pred: (r) => r.Enabled === true && String(r.Name).toLowerCase().startsWith('okta') },
      {
        filter: 'Issuer ew "idp1.shared.example.test" or not (ClientID eq "client-1")',
        pred: (r) => String(r.Issuer).endsWith('idp1.shared.example.test') || r.ClientID !== 'client-1',
      },
    );
    await expectFilterCases(as(t.adminToken), [LIST], cases, all, 'IdentityProvider');
  });

  it('never finds nor counts a provider that collides with none', async () => {
    for (const id of alone) {
      const res = await get(`/v4/identityproviders/collisions?filter=${q(`ID eq "${id}"`)}`, t.adminToken).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    const res = await get(`/v4/identityproviders/collisions?filter=${q('Issuer sw "https://alone"')}`, t.adminToken).expect(200);
    expect({ found: res.body, total: res.headers['x-total-count'] }).toEqual({ found: [], total: '0' });
    // With `issuer`, every provider of that issuer: the same queries apply to them.
    const one = await get(
      `/v4/identityproviders/collisions?issuer=${q('https://alone1.example.test')}&filter=${q('ClientID eq "solo-1"')}`,
      t.adminToken,
    ).expect(200);
    expect(ids(one.body as Json[])).toEqual([alone[1]]);
  });

  it('is for global administrators: anonymous 401, a site administrator and a member 403 with no total, whatever the filter', async () => {
    await expectRefusedUncounted(
      t,
      [`/v4/identityproviders/collisions?filter=${q('Enabled eq true')}`, `/v4/identityproviders/collisions?cursor=start&filter=${q('Name sw "Okta"')}`],
      [
        ['site administrator', acme.admin.token],
        ['member', member.token],
      ],
    );
  });

  it('sorts by Name, in JSON and XML, and answers only the fields asked for', async () => {
    const text = (v: unknown) => String(v).toLowerCase();
    const byName = (a: Json, b: Json) => (text(a.Name) < text(b.Name) ? -1 : text(a.Name) > text(b.Name) ? 1 : String(a.ID) < String(b.ID) ? -1 : 1);
    await expectSorts(
      as(t.adminToken),
      LIST,
      all,
      [
        ['Name', byName],
        ['-Name', (a, b) => -byName(a, b)],
      ],
      'IdentityProvider',
    );
    await expectFields(
      as(t.adminToken),
      '/v4/identityproviders/collisions',
      all,
      'IdentityProvider',
      ['siteid,issuer', ['ID', 'Issuer', 'SiteID']],
      ['Enabled,ClientID', ['ClientID', 'Enabled', 'ID']],
    );
  });

  it('pages with a cursor, each provider exactly once, in every order', async () => {
    await expectCursorWalks((url) => get(url, t.adminToken).expect(200), '/v4/identityproviders/collisions', 3, ['', '&sort=-Name']);
  });

  it('exports the same providers as CSV (formula-like names neutralized), XLSX and NDJSON', async () => {
    expect(await expectCsvLikeJson(t, `/v4/identityproviders/collisions?sort=Name&filter=${q('Enabled eq true')}`, t.adminToken, 'collisions')).toBe(
      all.filter((r) => r.Enabled === true).length,
    );
    const [csv, ndjson] = await exportTexts(t, '/v4/identityproviders/collisions?fields=Name', t.adminToken);
    expect(csv).toContain("'=Okta");
    expect(
      ndjson
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Json).ID),
    ).toEqual(ids(all));
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    await expectRefusals(
      (path, xml) => get(path, t.adminToken, xml),
      ['/v4/identityproviders/collisions'],
      [
        ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, Name, Issuer, ClientID, Enabled/],
        ['filter=SiteID eq "x"', 'filter', /Unknown field SiteID/],
        ['filter=Enabled eq "yes"', 'filter', /true or false/],
        ['sort=Issuer', 'sort', /not sortable.*sortable: Name/],
        ['fields=ID,Nope', 'fields', /Unknown field Nope/],
        ['cursor=garbage', 'cursor', /not one this list gave/],
        ['cursor=start&offset=2', 'offset', /not taken with cursor/],
      ],
    );
  });
});
