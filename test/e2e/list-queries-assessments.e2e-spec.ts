import { RequestContext } from '../../src/common/context/request-context.js';
import { AssessmentEntity } from '../../src/database/entities/assessment.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { Assessment } from '../../src/modules/assessments/dto/assessment.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createPeriods } from '../factories/goals.js';
import { DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
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
 * `filter=`, `sort=`, `fields=` and `cursor=` on the assessment lists (docs/queries.md): the site's
 * (`GET /v4/assessments`, administrators) and a subject's (`GET /v4/individuals/{id}/assessments`),
 * in the `period`. Every operator on every filterable field (guid, string, date) against the same
 * filter in JavaScript, in JSON and XML; the team assessments the subject may not see, another
 * period's and another site's before the filter and the total; keyset paging while others insert
 * and delete; the CSV export; 400 problems.
 */
const KINDS = ['leader', 'team', 'self'] as const;

describe(`list queries on assessments (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let manager: TestPerson;
  let subject: TestPerson;
  let outsider: TestPerson;
  let current: number;
  /** The subject's assessments of the current period as their manager reads them, as the subject does (no team), and the site's. */
  let all: Json[];
  let own: Json[];
  let site: Json[];
  const elsewhere: string[] = [];

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const ofSubject = () => `/v4/individuals/${subject.individualId}/assessments`;
  const repo = (siteId = acme.siteId) => t.app.get(TenantDb).repo(RequestContext.system(siteId), AssessmentEntity);
  const assessment = (subjectId: string, assessorId: string, periodId: number, i: number): Partial<AssessmentEntity> => ({
    kind: KINDS[i % 3],
    subjectId,
    assessorId: i % 3 === 2 ? subjectId : assessorId,
    periodId,
  });

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t, { pm: true });
    globex = await createSite(t, { pm: true });
    manager = await createPerson(t, acme, { firstName: 'Mana', lastName: 'Ger' });
    subject = await createPerson(t, acme, { firstName: 'Sub', lastName: 'Ject', reportsTo: manager.individualId });
    outsider = await createPerson(t, acme, { firstName: 'Out', lastName: 'Sider' });
    const periods = await createPeriods(t, acme.siteId);
    current = periods.current.id;
    for (let i = 0; i < 30; i++) await repo().insert(assessment(subject.individualId, i % 2 ? manager.individualId : outsider.individualId, current, i));
    for (let i = 0; i < 6; i++) await repo().insert(assessment(manager.individualId, subject.individualId, current, i));
    for (let i = 0; i < 3; i++) elsewhere.push((await repo().insert(assessment(subject.individualId, manager.individualId, periods.past.id, i))).id);
    const theirs = await createPerson(t, globex);
    const theirPeriods = await createPeriods(t, globex.siteId);
    for (let i = 0; i < 3; i++)
      elsewhere.push((await repo(globex.siteId).insert(assessment(theirs.individualId, theirs.individualId, theirPeriods.current.id, i))).id);
    all = (await get(`${ofSubject()}?limit=5000`, manager.token).expect(200)).body as Json[];
    expect(all.length).toBe(30);
    own = (await get(`${ofSubject()}?limit=5000`, subject.token).expect(200)).body as Json[];
    expect(ids(own)).toEqual(ids(all.filter((r) => r.Kind !== 'team')));
    site = (await get('/v4/assessments?limit=5000', acme.admin.token).expect(200)).body as Json[];
    expect(site.length).toBe(36);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (guid, string, date) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...Assessment.queryable.values()].filter((f) => f.filter);
    expect([...new Set(filterable.map((f) => f.kind))].sort()).toEqual(['date', 'guid', 'string']);
    for (const [lists, token, rows] of [
      [[`${ofSubject()}?limit=5000`, `${ofSubject()}?limit=5000&period=${current}`], manager.token, all],
      [[`${ofSubject()}?limit=5000`], subject.token, own],
      [['/v4/assessments?limit=5000'], acme.admin.token, site],
    ] as const) {
      const cases: Case[] = grammarCases(Assessment.queryable, rows);
      for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
      cases.push(
        { filter: 'Kind eq "team" or not (Kind sw "L")', pred: (r) => r.Kind === 'team' || !String(r.Kind).startsWith('l') },
        {
          filter: `(AssessorID eq "${manager.individualId}" and Kind ne "self") or Kind eq "SELF"`,
          pred: (r) => (r.AssessorID === manager.individualId && r.Kind !== 'self') || r.Kind === 'self',
        },
      );
      await expectFilterCases(as(token), lists, cases, rows, 'Assessment');
    }
  });

  it('leaves out what the caller may not see, another period’s and another site’s, before the filter and the total', async () => {
    // The subject never sees the team assessments of them, however asked.
    const team = await get(`${ofSubject()}?filter=${q('Kind eq "team"')}`, subject.token).expect(200);
    expect({ body: team.body, total: team.headers['x-total-count'] }).toEqual({ body: [], total: '0' });
    // Someone outside the reporting chain: 403 whatever the filter, by offset or by cursor; the site's list is for administrators.
    for (const [path, token] of [
      [`${ofSubject()}?filter=${q('Kind eq "self"')}`, outsider.token],
      [`${ofSubject()}?cursor=start&filter=${q('Kind eq "self"')}`, outsider.token],
      [`/v4/assessments?filter=${q('Kind eq "self"')}`, manager.token],
    ] as const) {
      const res = await get(path, token);
      expect({ path, status: res.status, total: res.headers['x-total-count'] }).toEqual({ path, status: 403, total: undefined });
    }
    for (const id of elsewhere) {
      for (const list of [ofSubject(), '/v4/assessments']) {
        const res = await get(`${list}?filter=${q(`ID eq "${id}"`)}`, acme.admin.token).expect(200);
        expect({ list, id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ list, id, found: [], total: '0' });
      }
    }
    const others = await get(`${ofSubject()}?filter=${q(`SubjectID eq "${manager.individualId}"`)}`, acme.admin.token).expect(200);
    expect({ body: others.body, total: others.headers['x-total-count'] }).toEqual({ body: [], total: '0' });
  });

  it('sorts by Created, in JSON and XML, and answers only the fields asked for', async () => {
    const cmp = sortCompare;
    const time = (v: unknown) => new Date(v as string).getTime();
    await expectSorts(
      as(manager.token),
      `${ofSubject()}?limit=5000`,
      all,
      [['-Created', (a, b) => -cmp(time(a.Created), time(b.Created)) || -cmp(a.ID, b.ID)]],
      'Assessment',
    );
    await expectSorts(
      as(acme.admin.token),
      '/v4/assessments?limit=5000',
      site,
      [['Created', (a, b) => cmp(time(a.Created), time(b.Created)) || cmp(a.ID, b.ID)]],
      'Assessment',
    );
    await expectFields(
      as(manager.token),
      ofSubject(),
      all,
      'Assessment',
      ['kind,AssessorID', ['ID', 'Kind', 'AssessorID']],
      ['Kind,Ratings,SubjectID', ['ID', 'Kind', 'Ratings', 'SubjectID']],
    );
  });

  it('exports the same assessments as CSV for the same query', async () => {
    expect(await expectCsvLikeJson(t, `${ofSubject()}?sort=-Created&filter=${q('Kind ne "team"')}`, manager.token, 'assessments')).toBe(own.length);
    expect(await expectCsvLikeJson(t, '/v4/assessments?fields=Kind,SubjectID', acme.admin.token, 'assessments')).toBe(site.length);
    await t.http().get(ofSubject()).set('Authorization', `Bearer ${outsider.token}`).set('Accept', 'text/csv').expect(403);
  });

  it('pages with a cursor while others insert and delete: every assessment present throughout exactly once', async () => {
    let k = 0;
    const insert = async () =>
      (
        await repo().insert({
          ...assessment(subject.individualId, manager.individualId, current, 0),
          kind: 'leader',
          assessorId: k++ % 2 ? manager.individualId : outsider.individualId,
        })
      ).id;
    for (const [list, sort] of [
      [ofSubject(), ''],
      ['/v4/assessments', '-Created'],
    ] as const) {
      // Only this round's: those created from the start of this second on (earlier tests' are older).
      const since = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();
      await cursorsUnderChurn<string>({
        get: (url) => get(url, acme.admin.token).expect(200),
        first: `${list}?limit=4&cursor=start&filter=${q(`Kind eq "leader" and Created ge "${since}"`)}`,
        sorts: [sort],
        stable: 12,
        churn: 8,
        insert,
        remove: (id) => t.ds.getRepository(AssessmentEntity).delete({ id }),
        label: { list },
      });
    }
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    const bad: [string, string, RegExp][] = [
      ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, Kind, SubjectID, AssessorID, Created/],
      ['filter=PeriodID eq 3', 'filter', /Unknown field PeriodID/],
      ['filter=Created gt "soon"', 'filter', /date/],
      ['sort=Kind', 'sort', /not sortable.*sortable: Created/],
      ['fields=ID,Nope', 'fields', /Unknown field Nope/],
      ['cursor=garbage', 'cursor', /not one this list gave/],
    ];
    await expectRefusals((path, xml) => get(path, acme.admin.token, xml), [ofSubject(), '/v4/assessments'], bad);
  });
});
