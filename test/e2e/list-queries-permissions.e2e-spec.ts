import { randomUUID } from 'node:crypto';
import { RequestContext } from '../../src/common/context/request-context.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { PermissionEntity } from '../../src/database/entities/permission.entity.js';
import { SecurityGroupEntity, SecurityGroupMemberEntity } from '../../src/database/entities/security-group.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Permission } from '../../src/modules/permissions/dto/permission.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createOrg } from '../factories/organizations.js';
import { DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  comparison,
  cursorsUnderChurn,
  expectCsvLikeJson,
  expectFields,
  expectFilterCases,
  expectRefusals,
  expectSorts,
  getAs,
  grammarCases,
  ids,
  type Json,
  sortCompare,
} from './list-query-grammar.js';

/**
 * `filter=`, `sort=`, `fields=` and `cursor=` on the permission lists (docs/queries.md): the site's
 * (`GET /v4/permissions`: an administrator's every record, anyone else's the records naming them or
 * a security group of theirs) and a row's (`GET /v4/{kind}/{rowid}/permissions`). Every operator on
 * every filterable field (guid, int) against the same filter in JavaScript, in JSON and XML; the
 * caller's right and another site before the filter and the total; keyset paging while others
 * insert and delete; the CSV export; 400 problems.
 */
describe(`list queries on permissions (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  let group: string;
  /** Rows: six individuals then three departments. */
  const rows: { id: string; type: number }[] = [];
  /** Every record of the site as the administrator reads it, and the member's own (naming them or their group). */
  let all: Json[];
  let mine: Json[];
  /** Another site's records. */
  const elsewhere: string[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const perm = (rowId: string, rowType: number, principalId: string, principalType: number, childType: number, i: number): Partial<PermissionEntity> => ({
    rowId,
    rowType: rowType as never,
    principalId,
    principalType,
    childType,
    createState: (i % 3) as never,
    readState: ((i + 1) % 3) as never,
    updateState: 0,
    deleteState: 0,
    delegateState: 0,
  });

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    group = (await db.repo(ctx, SecurityGroupEntity).insert({ name: 'Reviewers', description: null, externalId: null })).id;
    await db.repo(ctx, SecurityGroupMemberEntity).insert({ groupId: group, individualId: member.individualId });
    for (let i = 0; i < 6; i++)
      rows.push({
        id: (
          await db
            .repo(ctx, IndividualEntity)
            .insert({ userId: null, isAdmin: false, firstName: `R${i}`, lastName: 'Row', email: null, primaryOrganizationId: acme.orgId, primaryTitle: null })
        ).id,
        type: 39,
      });
    for (let i = 0; i < 3; i++) rows.push({ id: (await createOrg(t, acme.siteId, { name: `Unit ${i}` })).id, type: 56 });
    const principals: [string, number][] = [
      [member.userId, 1],
      [group, 2],
      [randomUUID(), 1],
      [randomUUID(), 1],
      [randomUUID(), 2],
    ];
    let i = 0;
    for (const [r, row] of rows.entries())
      for (const [p, [principal, type]] of principals.entries())
        for (const child of [0, 19, 9])
          if ((r + p + child) % 3 === 0) await db.repo(ctx, PermissionEntity).insert(perm(row.id, row.type, principal, type, child, i++));
    const theirs = (await createOrg(t, globex.siteId)).id;
    for (let k = 0; k < 3; k++)
      elsewhere.push((await db.repo(RequestContext.system(globex.siteId), PermissionEntity).insert(perm(theirs, 56, member.userId, 1, [0, 19, 9][k], k))).id);
    all = (await get('/v4/permissions?limit=5000', acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBe(i);
    expect(all.length).toBeGreaterThan(40);
    mine = all.filter((r) => r.PrincipalID === member.userId || r.PrincipalID === group);
    expect(ids((await get('/v4/permissions?limit=5000', member.token).expect(200)).body as Json[])).toEqual(ids(mine));
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, int) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Permission.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['guid', 'int']);
    const by = (name: string) => Permission.queryable.get(name.toLowerCase())!;
    const row = rows[1].id;
    for (const [list, token, records] of [
      ['/v4/permissions?limit=5000', acme.admin.token, all],
      ['/v4/permissions?limit=5000', member.token, mine],
      [`/v4/individuals/${row}/permissions?limit=5000`, acme.admin.token, all.filter((r) => r.RowID === row)],
    ] as const) {
      const cases: Case[] = grammarCases(Permission.queryable, records);
      for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
      cases.push(
        { filter: 'RowType eq 56 and PrincipalType ne 2', pred: (r) => r.RowType === 56 && r.PrincipalType !== 2 },
        {
          filter: `PrincipalID eq "${group.toUpperCase()}" or not (RowType ge 40)`,
          pred: (r) => r.PrincipalID === group || !comparison(by('RowType'), 'ge', 40)(r),
        },
        {
          filter: `(RowID eq "${rows[7].id}" or PrincipalType gt 1) and RowType lt 50`,
          pred: (r) => (r.RowID === rows[7].id || Number(r.PrincipalType) > 1) && Number(r.RowType) < 50,
        },
      );
      await expectFilterCases(as(token), [list], cases, records, 'Permission');
    }
  });

  it('applies the caller’s right before the filter and the total, and never finds another site’s records', async () => {
    const others = all.filter((r) => !mine.includes(r));
    expect(others.length).toBeGreaterThan(10);
    for (const f of [`PrincipalID eq "${others[0].PrincipalID as string}"`, `ID eq "${others[0].ID as string}"`, 'PrincipalType eq 1']) {
      const want = ids(mine.filter((r) => (f.startsWith('PrincipalType') ? r.PrincipalType === 1 : false)));
      for (const path of [`/v4/permissions?filter=${q(f)}`, `/v4/permissions?rowid=${others[0].RowID as string}&filter=${q(f)}`]) {
        const res = await get(path, member.token).expect(200);
        const expected = path.includes('rowid') ? ids(mine.filter((r) => want.includes(r.ID as string) && r.RowID === others[0].RowID)) : want;
        expect({ path, ids: ids(res.body as Json[]), total: res.headers['x-total-count'] }).toEqual({ path, ids: expected, total: String(expected.length) });
      }
      // A row's list is for those who may delegate on it: 403 whatever the filter, by offset or by cursor.
      for (const path of [
        `/v4/individuals/${rows[0].id}/permissions?filter=${q(f)}`,
        `/v4/departments/${rows[6].id}/permissions?cursor=start&filter=${q(f)}`,
      ]) {
        const res = await get(path, member.token);
        expect({ path, status: res.status, total: res.headers['x-total-count'] }).toEqual({ path, status: 403, total: undefined });
      }
    }
    for (const id of elsewhere) {
      for (const token of [acme.admin.token, member.token]) {
        const res = await get(`/v4/permissions?filter=${q(`ID eq "${id}"`)}`, token).expect(200);
        expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
      }
    }
    // A row's list holds only that row's records, however asked.
    const asked = await get(`/v4/individuals/${rows[0].id}/permissions?filter=${q(`RowID eq "${rows[1].id}"`)}`, acme.admin.token).expect(200);
    expect({ body: asked.body, total: asked.headers['x-total-count'] }).toEqual({ body: [], total: '0' });
  });

  it('sorts by RowType (then the row, the principal and the ChildType), in JSON and XML, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const rest = (a: Json, b: Json) =>
      cmp(a.RowID, b.RowID) ||
      cmp(a.PrincipalType, b.PrincipalType) ||
      cmp(a.PrincipalID, b.PrincipalID) ||
      cmp(a.ChildType ?? 0, b.ChildType ?? 0) ||
      cmp(a.ID, b.ID);
    await expectSorts(
      as(acme.admin.token),
      '/v4/permissions?limit=5000',
      all,
      [
        ['RowType', (a, b) => cmp(a.RowType, b.RowType) || rest(a, b)],
        ['-RowType', (a, b) => -cmp(a.RowType, b.RowType) || -rest(a, b)],
      ],
      'Permission',
    );
    // Without sort=, the queried list keeps the plain list's order.
    const queried = (await get(`/v4/permissions?limit=5000&filter=${q('ID pr')}`, acme.admin.token).expect(200)).body as Json[];
    expect(ids(queried)).toEqual(ids(all));
    expect(ids(all)).toEqual(ids([...all].sort((a, b) => cmp(a.RowType, b.RowType) || rest(a, b))));
    await expectFields(
      as(acme.admin.token),
      '/v4/permissions',
      all,
      'Permission',
      ['readstate,RowID,PrincipalName', ['ID', 'RowID', 'ReadState', 'PrincipalName']],
      ['ReadText,RowType,ChildType', ['ChildType', 'ID', 'ReadText', 'RowType']],
    );
  });

  it('exports the same records as CSV for the same query', async () => {
    const n = await expectCsvLikeJson(t, `/v4/permissions?sort=-RowType&filter=${q('PrincipalType eq 1')}`, acme.admin.token, 'permissions');
    expect(n).toBe(all.filter((r) => r.PrincipalType === 1).length);
    expect(await expectCsvLikeJson(t, '/v4/permissions?fields=RowID,ReadText', member.token, 'permissions')).toBe(mine.length);
    await t.http().get(`/v4/individuals/${rows[0].id}/permissions`).set('Authorization', `Bearer ${member.token}`).set('Accept', 'text/csv').expect(403);
  });

  it('pages with a cursor while others insert and delete: every record present throughout exactly once', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const unit = (await createOrg(t, acme.siteId, { name: 'Churn' })).id;
    let k = 0;
    const insert = async () => (await db.repo(ctx, PermissionEntity).insert(perm(unit, 56, randomUUID(), 1 + (k % 2), 0, k++))).id;
    for (const [list, sort] of [
      ['/v4/permissions', ''],
      ['/v4/permissions', '-RowType'],
      [`/v4/departments/${unit}/permissions`, ''],
    ] as const) {
      await cursorsUnderChurn<string>({
        get: (url) => get(url, acme.admin.token).expect(200),
        first: `${list}?limit=4&cursor=start&filter=${q(`RowID eq "${unit}"`)}`,
        sorts: [sort],
        stable: 12,
        churn: 8,
        insert,
        remove: (id) => t.ds.getRepository(PermissionEntity).delete({ id }),
        label: { list },
      });
    }
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, RowID, PrincipalID, RowType, PrincipalType/],
      ['filter=ReadState eq 2', 'filter', /Unknown field ReadState/],
      ['filter=RowType co "3"', 'filter', /operator co does not apply to RowType/],
      ['filter=RowType gt "one"', 'filter', /number/],
      ['sort=PrincipalID', 'sort', /not sortable.*sortable: RowType/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals((path, xml) => get(path, acme.admin.token, xml), ['/v4/permissions', `/v4/individuals/${rows[0].id}/permissions`], bad);
  });
});
