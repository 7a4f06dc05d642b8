import { RequestContext } from '../../src/common/context/request-context.js';
import { CommitmentEntity, type CommitmentType } from '../../src/database/entities/commitment.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Commitment } from '../../src/modules/commitments/dto/commitment.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createPeriods } from '../factories/goals.js';
import { createOrg } from '../factories/organizations.js';
import { denyRead } from '../factories/permissions.js';
import { DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  comparison,
  cursorUnderChurn,
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on the commitment lists (docs/queries.md): a record's
 * (`GET /v4/{individuals, departments, organizations}/{id}/commitments`, in the `period`) and a
 * dashboard's level (`GET /v4/dashboards/{id}/commitments/{type}`: several records' at once). Every
 * operator on every filterable field (int, string, date, bool) against the same filter in
 * JavaScript, in JSON and XML; the record a Deny hides, another record's, another period's and
 * another site's before the filter and the total; keyset paging while others insert and delete; the
 * CSV export; 400 problems.
 */
const NAMES = ['Close deals', 'close the books', 'Hire 100%', 'Ship_v2', '=SUM(A1)', 'Coach juniors', 'Renewals'];

describe(`list queries on commitments (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let owner: TestPerson;
  let peer: TestPerson;
  let outsider: TestPerson;
  let department: string;
  let current: number;
  let past: number;
  /** The owner's commitments of the current period, and the dashboard's individual level of the department (owner's and peer's). */
  let all: Json[];
  let dashboard: Json[];
  /** Commitments never on the owner's list: another period's, the department's, another site's. */
  const elsewhere: number[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const ofOwner = () => `/v4/individuals/${owner.individualId}/commitments`;
  const ofDashboard = () => `/v4/dashboards/${department}/commitments/individual`;
  const commitment = (type: CommitmentType, ancestorId: string, periodId: number, i: number): Partial<CommitmentEntity> => ({
    type,
    ancestorId,
    periodId,
    name: `${NAMES[i % NAMES.length]}${i % 3 ? ` ${String.fromCharCode(97 + (i % 5))}` : ''}`,
    description: null,
    dueDate: i % 4 ? new Date(Date.UTC(2026, i % 12, 1 + (i % 27), i % 2 ? 12 : 0)) : null,
    completed: i % 3 === 0,
    completedDate: i % 3 === 0 ? new Date(Date.UTC(2026, 0, 1)) : null,
    rank: i % 4,
  });

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { pm: true });
    globex = await createSite(t, { pm: true });
    department = (await createOrg(t, acme.siteId, { name: 'Sales' })).id;
    owner = await createPerson(t, { siteId: acme.siteId, orgId: department }, { firstName: 'Owen', lastName: 'Ner' });
    peer = await createPerson(t, { siteId: acme.siteId, orgId: department }, { firstName: 'Pe', lastName: 'Er' });
    outsider = await createPerson(t, acme, { firstName: 'Out', lastName: 'Sider' });
    const periods = await createPeriods(t, acme.siteId);
    [current, past] = [periods.current.id, periods.past.id];
    const db = t.app.get(TenantDb);
    const repo = db.repo(RequestContext.system(acme.siteId), CommitmentEntity);
    for (let i = 0; i < 36; i++) await repo.insert(commitment('individual', owner.individualId, current, i));
    for (let i = 0; i < 10; i++) await repo.insert(commitment('individual', peer.individualId, current, i + 3));
    for (let i = 0; i < 4; i++) elsewhere.push((await repo.insert(commitment('individual', owner.individualId, past, i))).id);
    for (let i = 0; i < 3; i++) elsewhere.push((await repo.insert(commitment('department', department, current, i))).id);
    const theirs = await createPeriods(t, globex.siteId);
    for (let i = 0; i < 3; i++)
      elsewhere.push(
        (await db.repo(RequestContext.system(globex.siteId), CommitmentEntity).insert(commitment('organization', globex.orgId, theirs.current.id, i))).id,
      );
    all = (await get(`${ofOwner()}?limit=5000`, acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBe(36);
    dashboard = (await get(`${ofDashboard()}?limit=5000`, acme.admin.token).expect(200)).body as Json[];
    expect(dashboard.length).toBe(46);
    await denyRead(t, acme.admin.token, owner.individualId, outsider.userId);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (int, string, date, bool) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Commitment.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['bool', 'date', 'int', 'string']);
    const by = (name: string) => Commitment.queryable.get(name.toLowerCase())!;
    for (const [lists, rows] of [
      [[`${ofOwner()}?limit=5000`, `${ofOwner()}?limit=5000&period=${current}`], all],
      [[`${ofDashboard()}?limit=5000`], dashboard],
    ] as const) {
      const cases: Case[] = grammarCases(Commitment.queryable, rows);
      for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
      const due = comparison(by('DueDate'), 'ge', '2026-06-01');
      cases.push(
        { filter: 'DueDate ge "2026-06-01" and Completed eq false', pred: (r) => due(r) && r.Completed === false },
        { filter: 'Name sw "CLOSE" or not (Rank lt 2)', pred: (r) => String(r.Name).toLowerCase().startsWith('close') || !comparison(by('Rank'), 'lt', 2)(r) },
        {
          filter: '(DueDate eq null or Name ew "a") and ID gt 0',
          pred: (r) => (r.DueDate === null || String(r.Name).toLowerCase().endsWith('a')) && Number(r.ID) > 0,
        },
      );
      expect(cases.length).toBeGreaterThan(40);
      await expectFilterCases(as(acme.admin.token), lists, cases, rows, 'Commitment');
    }
  });

  it('leaves out the record a Deny hides, another record’s, another period’s and another site’s commitments, before the filter and the total', async () => {
    for (const f of ['Name sw "c"', `ID eq ${all[1].ID as number}`, 'Rank ge 0']) {
      const asAdmin = await get(`${ofOwner()}?filter=${q(f)}`, acme.admin.token).expect(200);
      expect(asAdmin.body).not.toEqual([]);
      // Every member of the PM site reads them: the same answer for the peer.
      const asPeer = await get(`${ofOwner()}?filter=${q(f)}`, peer.token).expect(200);
      expect({ f, body: asPeer.body, total: asPeer.headers['x-total-count'] }).toEqual({ f, body: asAdmin.body, total: asAdmin.headers['x-total-count'] });
      // Whom a Deny hides the owner from: not there, whatever the filter, by offset or by cursor.
      for (const path of [`${ofOwner()}?filter=${q(f)}`, `${ofOwner()}?filter=${q(f)}&cursor=start`]) {
        const res = await get(path, outsider.token);
        expect({ path, status: res.status, total: res.headers['x-total-count'] }).toEqual({ path, status: 404, total: undefined });
      }
    }
    for (const id of elsewhere) {
      for (const list of [ofOwner(), ofDashboard()]) {
        const res = await get(`${list}?filter=${q(`ID eq ${id}`)}`, acme.admin.token).expect(200);
        expect({ list, id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ list, id, found: [], total: '0' });
      }
    }
    // The past period's, asked for by period: only those.
    const before = await get(`${ofOwner()}?period=${past}&filter=${q('Rank ge 0')}`, acme.admin.token).expect(200);
    expect(ids(before.body as Json[]).sort()).toEqual([...elsewhere.slice(0, 4)].sort());
    // Another site's record: 404 whatever the filter.
    expect((await get(`/v4/organizations/${globex.orgId}/commitments?filter=${q('Rank ge 0')}`, acme.admin.token)).status).toBe(404);
  });

  it('sorts by Rank (then Name), Name and DueDate, in JSON and XML, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const time = (v: unknown) => (v === null ? null : new Date(v as string).getTime());
    await expectSorts(
      as(acme.admin.token),
      `${ofOwner()}?limit=5000`,
      all,
      [
        ['Name', (a, b) => cmp(a.Name, b.Name) || cmp(a.ID, b.ID)],
        ['-DueDate', (a, b) => -cmp(time(a.DueDate), time(b.DueDate)) || -cmp(a.ID, b.ID)],
        ['-Rank,DueDate', (a, b) => -cmp(a.Rank, b.Rank) || -cmp(a.Name, b.Name) || cmp(time(a.DueDate), time(b.DueDate)) || cmp(a.ID, b.ID)],
      ],
      'Commitment',
    );
    await expectSorts(
      as(peer.token),
      `${ofDashboard()}?limit=5000`,
      dashboard,
      [['DueDate', (a, b) => cmp(time(a.DueDate), time(b.DueDate)) || cmp(a.ID, b.ID)]],
      'Commitment',
    );
    // Without sort=, the plain list's order: Rank, Name, ID.
    const queried = (await get(`${ofOwner()}?limit=5000&filter=${q('ID gt 0')}`, acme.admin.token).expect(200)).body as Json[];
    expect(ids(queried)).toEqual(ids(all));
    await expectFields(
      as(acme.admin.token),
      ofOwner(),
      all,
      'Commitment',
      ['duedate,Name,Completed', ['ID', 'Name', 'DueDate', 'Completed']],
      ['Name,Rank,CompletedDate', ['CompletedDate', 'ID', 'Name', 'Rank']],
    );
  });

  it('exports the same commitments as CSV for the same query, its formulas neutralized', async () => {
    const n = await expectCsvLikeJson(t, `${ofOwner()}?sort=-DueDate&filter=${q('Completed eq false')}`, peer.token, 'commitments');
    expect(n).toBe(all.filter((r) => r.Completed === false).length);
    await expectCsvLikeJson(t, `${ofDashboard()}?fields=Name,AncestorID`, acme.admin.token, 'individual');
    const csv = await t
      .http()
      .get(`${ofOwner()}?filter=${q('Name sw "="')}`)
      .set('Authorization', `Bearer ${peer.token}`)
      .set('Accept', 'text/csv')
      .expect(200);
    expect(csv.text).toContain("'=SUM(A1)");
    await t.http().get(ofOwner()).set('Authorization', `Bearer ${outsider.token}`).set('Accept', 'text/csv').expect(404);
  });

  it('pages with a cursor while others insert and delete: every commitment present throughout exactly once', async () => {
    const repo = t.app.get(TenantDb).repo(RequestContext.system(acme.siteId), CommitmentEntity);
    let k = 0;
    const insert = async () =>
      (
        await repo.insert({
          ...commitment('individual', k % 2 ? owner.individualId : peer.individualId, current, k),
          name: `Cur ${String.fromCharCode(97 + (k % 26))}${k++}`,
        })
      ).id;
    for (const [list, token, sort] of [
      [ofDashboard(), peer.token, ''],
      [ofDashboard(), peer.token, '-DueDate'],
      [ofOwner(), acme.admin.token, '-Name'],
    ] as const) {
      const stable: number[] = [];
      const churn: number[] = [];
      for (let i = 0; i < 12; i++) stable.push(await insert());
      for (let i = 0; i < 8; i++) churn.push(await insert());
      const mine = list === ofOwner() ? (await repo.find({ where: { ancestorId: owner.individualId } })).map((c) => c.id) : null;
      const everExisted = await cursorUnderChurn({
        get: (url) => get(url, token).expect(200),
        first: `${list}?limit=4&cursor=start&filter=${q('Name sw "Cur"')}${sort ? `&sort=${sort}` : ''}`,
        stable: mine ? stable.filter((id) => mine.includes(id)) : stable,
        churn: mine ? churn.filter((id) => mine.includes(id)) : churn,
        insert,
        remove: (id) => t.ds.getRepository(CommitmentEntity).delete({ id }),
        label: { list, sort },
      });
      for (const id of [...everExisted, ...stable, ...churn]) await t.ds.getRepository(CommitmentEntity).delete({ id });
    }
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, Name, DueDate, Completed, Rank/],
      ['filter=Description co "x"', 'filter', /Unknown field Description/],
      ['filter=Rank sw "1"', 'filter', /operator sw does not apply to Rank/],
      ['filter=DueDate gt "soon"', 'filter', /date/],
      ['sort=Completed', 'sort', /not sortable.*sortable: Name, DueDate, Rank/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals((path, xml) => get(path, acme.admin.token, xml), [ofOwner(), `/v4/departments/${department}/commitments`, ofDashboard()], bad);
  });
});
