import { createComment } from '../factories/comments.js';
import { createPeriod, createUnit, DAY } from '../factories/goals.js';
import { bearer, createPerson, createSite } from '../factories/index.js';
import { createItem, createProject } from '../factories/performance.js';
import { startApp, TestApp } from './harness.js';

/**
 * The wire output as clients see it — the OpenAPI document and one record of every resource in
 * XML and JSON — held as snapshots, so a refactoring of how fields are declared cannot change a
 * byte of it unnoticed. Values that differ from run to run (ids, instants, generated names) are
 * replaced by stable placeholders in order of appearance; everything else is compared as is.
 */
describe('wire output stability (the same on every database)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves the same OpenAPI document', async () => {
    const doc = (await t.http().get('/docs/openapi.json').expect(200)).body;
    expect(doc).toMatchSnapshot();
  });

  it('answers every resource in the same XML and JSON', async () => {
    const site = await createSite(t, { name: 'Wire Co' });
    const auth = bearer(site.admin.token);
    const person = await createPerson(t, site, { firstName: 'Ada', lastName: 'Lovelace', reportsTo: site.admin.individualId });
    const dept = await createUnit(t, site.siteId, { department: true, name: 'Research', parentId: site.orgId, managerId: site.admin.individualId });
    const start = new Date(Date.UTC(2026, 0, 1));
    const period = await createPeriod(t, site.siteId, { name: 'FY 2026', start, end: new Date(start.getTime() + 364 * DAY) });
    const project = await createProject(t, site.admin.token, { OwnerID: person.individualId, Name: 'Engine', Description: 'Analytical' });
    const item = await createItem(t, 'accountabilities', site.admin.token, { AncestorID: person.individualId, Name: 'Notes', Description: 'G' });
    await createComment(t, site.admin.token, 'individuals', person.individualId, 'Well done');
    const post = async (path: string, body: object) => {
      const res = await t.http().post(`/v4/${path}`).set('Authorization', auth).send(body);
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
      return res.body as { ID: string | number };
    };
    const goal = await post('goals', {
      IndividualID: person.individualId,
      Name: 'Finish the engine',
      Completed: false,
      Comment: 'c',
      Why: 'w',
      DueDate: '2026-06-30T00:00:00Z',
      PeriodID: period.id,
      ...Object.fromEntries(
        [1, 2, 3, 4, 5].flatMap((n) => [
          [`Measure${n}`, n === 1 ? 'Gears' : ''],
          [`Measure${n}Completed`, n === 1],
          [`Measure${n}StartDate`, '2026-01-01T00:00:00Z'],
          [`Measure${n}EndDate`, '2026-02-01T00:00:00Z'],
        ]),
      ),
    });
    const color = await post('colors', { Name: 'Green', ColorValue: 65280, MinPercent: 90.5, MaxPercent: 100 });
    await post('corevalues', { Name: 'Curiosity', Description: 'Ask', Rank: 2 });
    await post('commitments', { Type: 'individual', AncestorID: person.individualId, PeriodID: period.id, Name: 'Ship', Rank: 1 });

    const paths = [
      `/v4/sites/${site.siteId}`,
      `/v4/individuals/${person.individualId}`,
      `/v4/departments/${dept.id}`,
      `/v4/organizations/${site.orgId}`,
      `/v4/individuals/${person.individualId}/departmentmembers`,
      `/v4/periods/${period.id}`,
      `/v4/projects/${project.ID}`,
      `/v4/accountabilities/${item.ID}`,
      `/v4/individuals/${person.individualId}/comments`,
      `/v4/goals/${goal.ID}`,
      `/v4/colors/${color.ID}`,
      `/v4/colors/defaults`,
      `/v4/corevalues`,
      `/v4/individuals/${person.individualId}/commitments?period=${period.id}`,
      `/v4/individuals?limit=2`,
    ];
    const answers: Record<string, { xml: string; json: unknown }> = {};
    for (const path of paths) {
      const xml = await t.http().get(path).set('Authorization', auth).set('Accept', 'application/xml');
      const json = await t.http().get(path).set('Authorization', auth);
      expect([path, xml.status, json.status]).toEqual([path, 200, 200]);
      answers[path] = { xml: xml.text, json: json.body };
    }
    expect(normalize(JSON.stringify(answers, null, 1), [person.userName, site.admin.userName])).toMatchSnapshot();
  });

  it('answers basic roles, dialogs, tasks and assessments in the same XML and JSON', async () => {
    const site = await createSite(t, { name: 'Records Co' });
    const auth = bearer(site.admin.token);
    const person = await createPerson(t, site, { firstName: 'Ada', lastName: 'Lovelace', reportsTo: site.admin.individualId });
    const start = new Date(Date.UTC(2026, 0, 1));
    const period = await createPeriod(t, site.siteId, { name: 'FY 2026', start, end: new Date(start.getTime() + 364 * DAY) });
    const post = async (path: string, body: object, method: 'post' | 'put' = 'post') => {
      const res = await t.http()[method](`/v4/${path}`).set('Authorization', auth).send(body);
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
      return res.body as { ID: string };
    };
    const role = await post('basicroles', { IndividualID: person.individualId, Name: 'Mentor', Description: 'Guides', Rank: 1, DialogsPerPeriod: 2 });
    const criterion = await createItem(t, 'evaluationcriteria', site.admin.token, { AncestorID: person.individualId, Name: 'Quality', Description: 'Q' });
    const dialog = await post('dialogs', {
      Kind: 'individual',
      AncestorID: person.individualId,
      LeaderID: site.admin.individualId,
      PeriodID: period.id,
      ScheduledDate: '2026-02-01T00:00:00Z',
      Notes: 'Mid-year',
    });
    await post(`basicroles/${role.ID}/dialogs/${dialog.ID}`, { Rating: 4, Comment: 'Good' }, 'put');
    const task = await post('tasks', {
      DialogID: dialog.ID,
      Kind: 'individual',
      AncestorID: person.individualId,
      AssignedToID: person.individualId,
      Name: 'Plan',
      DueDate: '2026-06-30T00:00:00Z',
    });
    const assessment = await post('assessments', {
      Kind: 'leader',
      SubjectID: person.individualId,
      PeriodID: period.id,
      Ratings: [
        { ItemKind: 'evaluationcriteria', ItemID: criterion.ID, Rating: 4 },
        { ItemKind: 'basicrole', ItemID: role.ID, Rating: 5 },
        { ItemKind: 'general', Rating: 3 },
      ],
    });

    const paths = [
      `/v4/basicroles/${role.ID}`,
      `/v4/individuals/${person.individualId}/basicroles`,
      `/v4/sites/${site.siteId}/individuals/basicroles`,
      `/v4/dialogs/${dialog.ID}`,
      `/v4/basicroles/${role.ID}/dialogs/${dialog.ID}`,
      `/v4/dialogs/${dialog.ID}/basicroledialogs`,
      `/v4/tasks/${task.ID}`,
      `/v4/assessments/${assessment.ID}`,
      `/v4/individuals/${person.individualId}/assessments?period=${period.id}`,
    ];
    const answers: Record<string, { xml: string; json: unknown }> = {};
    for (const path of paths) {
      const xml = await t.http().get(path).set('Authorization', auth).set('Accept', 'application/xml');
      const json = await t.http().get(path).set('Authorization', auth);
      expect([path, xml.status, json.status]).toEqual([path, 200, 200]);
      answers[path] = { xml: xml.text, json: json.body };
    }
    expect(normalize(JSON.stringify(answers, null, 1), [person.userName, site.admin.userName])).toMatchSnapshot();
  });
});

/** The instants the test writes itself; every other one is "now" at run time. */
const FIXED_DATES = /^(2026-01-01|2026-02-01|2026-06-30|2026-12-31)T00:00:00/;

/** Replaces what differs between runs with placeholders numbered in order of appearance. */
function normalize(text: string, names: string[]): string {
  const seen = new Map<string, string>();
  const stable = (prefix: string) => (m: string) => {
    if (!seen.has(m)) seen.set(m, `<${prefix}${seen.size + 1}>`);
    return seen.get(m)!;
  };
  let out = text;
  for (const n of names) out = out.split(n).join('<user>');
  return out
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, stable('id'))
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?/g, (m) => (FIXED_DATES.test(m) ? m : '<now>'));
}
