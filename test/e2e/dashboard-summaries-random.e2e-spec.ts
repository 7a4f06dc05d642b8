import { createPeriod, DAY } from '../factories/goals.js';
import { createPerson, createSite, TestSite } from '../factories/index.js';
import { example } from '../factories/world.js';
import { createOrg } from '../factories/organizations.js';
import { bearer, databaseUrlOf, DB_KIND, startApp, TestApp } from './harness.js';
import { InvalidationBus } from '../../src/common/invalidation/invalidation-bus.js';
import { CHANGES_TOPIC } from '../../src/database/tenant-db.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Dashboards answered from their summaries (docs/dashboards.md, "Summaries") equal the figures
 * computed from the records, whatever sequence of writes built them. A seeded random sequence of
 * writes through the API — records of every source created, completed, re-rated, moved and
 * deleted, people moved between units and deleted, memberships added and removed, a department
 * moved under another parent, the thresholds changed — then, every few writes, every dashboard of
 * the site (the organization, every department, every live individual) is read
 * once it reflects the last write (`Dashboard-Source: summaries`, `Dashboard-As-Of` at or after
 * the write's answer) and each figure compared with the explain view's, which is computed from the
 * records. The seed is printed with any failure; `DASH_SEED=<n>` replays a sequence.
 */

type Json = Record<string, unknown>;

/** mulberry32: a small seeded generator, so that a failing sequence can be replayed. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = Number(process.env.DASH_SEED ?? Date.now() % 1_000_000);
const STEPS = Number(process.env.DASH_STEPS ?? 60);
/** Writes between two full comparisons (every write by default: a later write that rebuilds a row must not hide an earlier one that did not). */
const CHECK_EVERY = Number(process.env.DASH_CHECK_EVERY ?? 1);
/** How long a dashboard may take to reflect a write here (the promise is 1 s; CI machines are busy). */
const CATCH_UP_MS = 15_000;

describe(`dashboard summaries after random writes (DASH_SEED=${SEED})`, () => {
  let t: TestApp;
  /** A second replica on the same database (MariaDB only). */
  let second: TestApp | undefined;
  let site: TestSite;
  let token: string;
  let periodId: number;
  const rand = generator(SEED);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  const chance = (p: number) => rand() < p;
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const at = (days: number) => new Date(Date.now() + days * DAY).toISOString();

  // What the sequence has made (live unless said otherwise).
  const departments: string[] = [];
  const people: string[] = [];
  const memberships: string[] = [];
  const goals: number[] = [];
  const commitments: number[] = [];
  const dialogs: { id: string; kind: string; ancestor: string }[] = [];
  const tasks: string[] = [];
  const metrics: string[] = [];
  const projects: string[] = [];
  const assessments: string[] = [];
  const roles: { id: string; individual: string }[] = [];
  /** Core values of the site, and each subject's evaluation criterion (made when first rated). */
  const coreValues: string[] = [];
  const criteria = new Map<string, string>();
  const done: Record<string, number> = {};
  const refused: Record<string, number> = {};
  /** When the answer of the last write arrived: dashboards compared after it must reflect it. */
  let lastWrite = 0;
  /** The last refusal's request and answer, for the messages of a failed setup. */
  let lastRefusal = '';
  /** The writes made so far (name and request), for the message of a failed comparison. */
  const history: string[] = [];

  async function call(method: 'post' | 'put' | 'patch' | 'delete', path: string, body?: Json): Promise<Json | null> {
    let req = t.http()[method](`/v4/${path}`).set('Authorization', bearer(token));
    if (method === 'patch') req = req.set('Content-Type', 'application/merge-patch+json');
    const res = await (body ? req.send(body) : req);
    lastWrite = Date.now();
    if (res.status >= 500) throw new Error(`${method.toUpperCase()} /v4/${path}: ${res.status} ${res.text} (DASH_SEED=${SEED})`);
    if (res.status === 200) {
      history.push(`${method.toUpperCase()} /v4/${path} ${JSON.stringify(body ?? null)}`);
      return res.body as Json;
    }
    lastRefusal = `${method.toUpperCase()} /v4/${path} ${JSON.stringify(body ?? null)}: ${res.status} ${res.text}`;
    return null;
  }

  const ancestorOf = (kind: string): string | null => {
    if (kind === 'individual') return people.length ? pick(people) : null;
    if (kind === 'department') return departments.length ? pick(departments) : null;
    if (kind === 'organization') return site.orgId;
    return projects.length ? pick(projects) : null;
  };

  /** The writes the sequence draws from: each answers false when it had nothing to work on or was refused. */
  const writes: Record<string, () => Promise<boolean | null>> = {
    goal: async () => {
      const r = await call('post', 'goals', { ...example('CreateGoalDto', { INDIVIDUAL_ID: pick(people), PERIOD_ID: periodId }), Completed: chance(0.4) });
      if (r) goals.push(Number(r.ID));
      return !!r;
    },
    'goal completed': async () => goals.length > 0 && !!(await call('patch', `goals/${pick(goals)}`, { Completed: chance(0.6) })),
    'goal deleted': async () => goals.length > 0 && !!(await call('delete', `goals/${goals.splice(int(0, goals.length - 1), 1)[0]}`)),
    commitment: async () => {
      const type = pick(['individual', 'department', 'organization']);
      const ancestor = ancestorOf(type);
      if (!ancestor) return false;
      const r = await call('post', 'commitments', { Type: type, AncestorID: ancestor, PeriodID: periodId, Name: 'Commitment', Completed: chance(0.5) });
      if (r) commitments.push(Number(r.ID));
      return !!r;
    },
    'commitment completed': async () => commitments.length > 0 && !!(await call('patch', `commitments/${pick(commitments)}`, { Completed: chance(0.5) })),
    dialog: async () => {
      const kind = pick(['individual', 'individual', 'department', 'organization', 'project']);
      const ancestor = ancestorOf(kind);
      if (!ancestor) return false;
      const r = await call('post', 'dialogs', {
        Kind: kind,
        AncestorID: ancestor,
        LeaderID: pick(people),
        PeriodID: periodId,
        ScheduledDate: at(-int(1, 60)),
        ...(chance(0.5) ? { OccurredDate: at(-int(1, 30)) } : {}),
      });
      if (r) dialogs.push({ id: String(r.ID), kind, ancestor });
      return !!r;
    },
    'dialog held': async () =>
      dialogs.length > 0 && !!(await call('patch', `dialogs/${pick(dialogs).id}`, { OccurredDate: chance(0.7) ? at(-int(1, 20)) : null })),
    'dialog deleted': async () => dialogs.length > 0 && !!(await call('delete', `dialogs/${dialogs.splice(int(0, dialogs.length - 1), 1)[0].id}`)),
    'basic role rated': async () => {
      const held = dialogs.filter((d) => d.kind === 'individual');
      if (!held.length) return false;
      const d = pick(held);
      let role = roles.find((r) => r.individual === d.ancestor);
      if (!role) {
        const r = await call('post', 'basicroles', { IndividualID: d.ancestor, Name: 'Role' });
        if (!r) return false;
        role = { id: String(r.ID), individual: d.ancestor };
        roles.push(role);
      }
      return !!(await call('put', `basicroles/${role.id}/dialogs/${d.id}`, { Rating: chance(0.2) ? null : int(1, 5) }));
    },
    'follow-up': async () => {
      const kind = pick(['individual', 'individual', 'department', 'organization', 'project']);
      const ancestor = ancestorOf(kind);
      if (!ancestor) return false;
      // Due dates days away from now: the as-of rule must not flip between the two reads compared.
      const due = chance(0.2) ? null : at(chance(0.5) ? -int(2, 40) : int(2, 40));
      const r = await call('post', 'tasks', {
        Kind: kind,
        AncestorID: ancestor,
        AssignedToID: pick(people),
        Name: 'Follow up',
        DueDate: due,
        Completed: chance(0.3),
      });
      if (r) tasks.push(String(r.ID));
      return !!r;
    },
    'follow-up completed': async () => tasks.length > 0 && !!(await call('patch', `tasks/${pick(tasks)}`, { Completed: chance(0.6) })),
    'follow-up deleted': async () => tasks.length > 0 && !!(await call('delete', `tasks/${tasks.splice(int(0, tasks.length - 1), 1)[0]}`)),
    metric: async () => {
      const kind = chance(0.7) || !projects.length ? 'individual' : 'project';
      const r = await call('post', 'metrics', {
        Kind: kind,
        AncestorID: kind === 'individual' ? pick(people) : pick(projects),
        Name: 'Metric',
        Is8020: chance(0.4),
        Target: chance(0.1) ? null : int(50, 150),
        HigherIsBetter: chance(0.8),
      });
      if (!r) return false;
      metrics.push(String(r.ID));
      await call('put', `metrics/${String(r.ID)}/values/${periodId}`, { Actual: int(0, 200) });
      return true;
    },
    'metric value': async () => metrics.length > 0 && !!(await call('put', `metrics/${pick(metrics)}/values/${periodId}`, { Actual: int(0, 200) })),
    'metric target': async () => metrics.length > 0 && !!(await call('patch', `metrics/${pick(metrics)}`, { Target: int(40, 160) })),
    'metric deleted': async () => metrics.length > 0 && !!(await call('delete', `metrics/${metrics.splice(int(0, metrics.length - 1), 1)[0]}`)),
    project: async () => {
      const start = -int(10, 200);
      const r = await call('post', 'projects', {
        Name: 'Project',
        OwnerID: pick(people),
        OrganizationID: chance(0.5) && departments.length ? pick(departments) : null,
        StartDate: at(start),
        DueDate: at(start + int(20, 300)),
      });
      if (r) projects.push(String(r.ID));
      return !!r;
    },
    'project moved': async () => projects.length > 0 && !!(await call('patch', `projects/${pick(projects)}`, { DueDate: at(int(5, 120)) })),
    'project completed': async () => projects.length > 0 && !!(await call('patch', `projects/${pick(projects)}`, { CompletedDate: at(-int(1, 5)) })),
    'project deleted': async () => projects.length > 0 && !!(await call('delete', `projects/${projects.splice(int(0, projects.length - 1), 1)[0]}`)),
    assessment: async () => {
      const subject = pick(people);
      const kind = pick(['leader', 'team', 'self']);
      const assessor = kind === 'self' ? subject : pick(people.filter((p) => p !== subject));
      if (!criteria.has(subject)) {
        const c = await call('post', 'evaluationcriteria', example('CreateListItemDto', { ANCESTOR_ID: subject }));
        if (c) criteria.set(subject, String(c.ID));
      }
      const ratings = [{ ItemKind: 'general', ItemID: null, Rating: int(1, 5) }];
      if (criteria.has(subject) && chance(0.7)) ratings.push({ ItemKind: 'evaluationcriteria', ItemID: criteria.get(subject)!, Rating: int(1, 5) } as never);
      for (const v of coreValues) if (chance(0.5)) ratings.push({ ItemKind: 'corevalue', ItemID: v, Rating: int(1, 5) } as never);
      const r = await call('post', 'assessments', { Kind: kind, SubjectID: subject, AssessorID: assessor, PeriodID: periodId, Ratings: ratings });
      if (r) assessments.push(String(r.ID));
      return !!r;
    },
    'assessment re-rated': async () =>
      assessments.length > 0 &&
      !!(await call('patch', `assessments/${pick(assessments)}`, { Ratings: [{ ItemKind: 'general', ItemID: null, Rating: int(1, 5) }] })),
    membership: async () => {
      if (!departments.length) return false;
      const r = await call('post', 'departmentmembers', { IndividualID: pick(people), OrganizationID: pick(departments), Title: 'Member' });
      if (r) memberships.push(String(r.ID));
      return !!r;
    },
    'membership removed': async () =>
      memberships.length > 0 && !!(await call('delete', `departmentmembers/${memberships.splice(int(0, memberships.length - 1), 1)[0]}`)),
    'primary unit': async () =>
      departments.length > 0 && !!(await call('patch', `individuals/${pick(people)}`, { PrimaryOrganizationID: chance(0.8) ? pick(departments) : site.orgId })),
    'department moved': async () => {
      if (departments.length < 2) return false;
      const d = pick(departments);
      return !!(await call('patch', `departments/${d}`, { ParentID: chance(0.5) ? site.orgId : pick(departments.filter((x) => x !== d)) }));
    },
    'individual deleted': async () => {
      if (people.length < 6) return false;
      const id = people[int(1, people.length - 1)];
      if (!(await call('delete', `individuals/${id}`))) return false;
      people.splice(people.indexOf(id), 1);
      return true;
    },
    thresholds: async () => {
      const t1 = int(50, 80);
      const t2 = t1 + int(5, 20);
      const settings = { Threshold1: t1, Threshold2: t2, Threshold3: t2 + int(5, 30) };
      // The twelve Show… switches of the settings, each on or off at random.
      const flags = Object.fromEntries(
        Object.keys(example('UpdateDashboardSettingsDto', {}))
          .filter((f) => f.startsWith('Show'))
          .map((f) => [f, chance(0.8)]),
      );
      return !!(await call('put', 'dashboards/settings', { ...settings, ...flags }));
    },
  };
  /** The writes that create a record of each source the figures count. */
  const SOURCES = ['project', 'goal', 'commitment', 'dialog', 'follow-up', 'metric', 'assessment'];
  const weighted: string[] = Object.keys(writes).flatMap((name) =>
    Array<string>(
      /deleted|moved|thresholds|primary|membership removed/.test(name)
        ? 1
        : /^(goal|commitment|dialog|follow-up|metric|project|assessment)$/.test(name)
          ? 4
          : 2,
    ).fill(name),
  );

  /** GET as the administrator; anything but 200 throws. */
  async function get(path: string): Promise<{ body: Json; headers: Record<string, string> }> {
    const res = await t.http().get(`/v4/${path}`).set('Authorization', bearer(token)).set('Accept', 'application/json');
    if (res.status !== 200) throw new Error(`GET /v4/${path}: ${res.status} ${res.text} (DASH_SEED=${SEED})`);
    return { body: res.body as Json, headers: res.headers as Record<string, string> };
  }

  /** The dashboard of a row once it is answered from summaries that reflect the last write. */
  async function fromSummaries(path: string): Promise<Json> {
    const since = Date.now();
    for (;;) {
      const { body, headers } = await get(path);
      const asOf = Date.parse(headers['dashboard-as-of'] ?? '');
      if (headers['dashboard-source'] === 'summaries' && asOf >= lastWrite) return body;
      if (Date.now() - since > CATCH_UP_MS)
        throw new Error(
          `${path}: still ${String(headers['dashboard-source'])} as of ${String(headers['dashboard-as-of'])} ${CATCH_UP_MS} ms after a write at ${new Date(lastWrite).toISOString()} (DASH_SEED=${SEED})`,
        );
      await sleep(50);
    }
  }

  /** Every figure of every dashboard of the site against the explain view's value (computed from the records). */
  async function compareAll(after: number): Promise<number> {
    const rows = [
      `organizations/${site.orgId}`,
      ...departments.map((d) => `departments/${d}`),
      // A deleted individual's dashboard is computed from their records (it has no summary).
      ...people.map((p) => `individuals/${p}`),
    ];
    let figures = 0;
    const differences: string[] = [];
    for (const row of rows) {
      const dashboard = await fromSummaries(`${row}/dashboards?period=${periodId}`);
      const explained = (await get(`${row}/dashboards/explain?period=${periodId}`)).body;
      const list = explained.Figures as { Name: string; Value: unknown }[];
      expect(list.length).toBeGreaterThan(40);
      for (const f of list) {
        figures++;
        const expected = f.Value === null ? null : Number(f.Value);
        const actual = dashboard[f.Name] === null ? null : Number(dashboard[f.Name]);
        if (expected !== actual) differences.push(`${row} ${f.Name}: summaries ${String(actual)}, records ${String(expected)}`);
      }
    }
    if (differences.length)
      throw new Error(
        `after ${after} writes (DASH_SEED=${SEED}), ${differences.length} figures differ:\n${differences.slice(0, 40).join('\n')}\nlast writes:\n${history.slice(-3).join('\n')}`,
      );
    return figures;
  }

  beforeAll(async () => {
    t = await startApp({ DASHBOARD_SUMMARIES: 'on' });
    // On MariaDB a second replica on the same database builds too: the two race for each site's
    // lease after every write, as replicas of a cluster do, and the figures must come out the same.
    if (DB_KIND === 'mysql') {
      second = await startApp({ DASHBOARD_SUMMARIES: 'on', DATABASE_URL: databaseUrlOf(t) });
      // What Redis carries between replicas (docs/scaling.md): the first one's commits wake the second's builder too.
      const to = second.app.get(InvalidationBus);
      t.app.get(InvalidationBus).on(CHANGES_TOPIC, (key) => to.publish(CHANGES_TOPIC, key));
    }
    site = await createSite(t, { name: 'Summaries' });
    token = site.admin.token;
    periodId = (await createPeriod(t, site.siteId, { name: 'Current', start: new Date(Date.now() - 120 * DAY), end: new Date(Date.now() + 120 * DAY) })).id;
    const top = await createOrg(t, site.siteId, { name: 'Sales', parentId: site.orgId });
    const east = await createOrg(t, site.siteId, { name: 'Sales East', parentId: top.id });
    const ops = await createOrg(t, site.siteId, { name: 'Operations', parentId: site.orgId });
    departments.push(top.id, east.id, ops.id);
    people.push(site.admin.individualId);
    for (let k = 0; k < 7; k++) {
      const r = await call('post', 'individuals', {
        FirstName: 'Person',
        LastName: `P${k}`,
        UserName: `summaries.${k}.${SEED}`,
        Email: `p${k}@example.test`,
        UserEmail: `summaries.${k}.${SEED}@example.test`,
        PrimaryOrganizationID: pick([site.orgId, ...departments]),
        PrimaryTitle: 'Staff',
        PrimaryReportsTo: site.admin.individualId,
      });
      if (!r) throw new Error(`could not create an individual: ${lastRefusal}`);
      people.push(String(r.ID));
    }
    for (const name of ['Integrity', 'Courage']) {
      const v = await call('post', 'corevalues', { Name: name });
      if (!v) throw new Error(`could not create a core value: ${lastRefusal}`);
      coreValues.push(String(v.ID));
    }
    // A person of another site, whose records must never count here.
    const other = await createSite(t, { name: 'Elsewhere' });
    await createPerson(t, other);
  }, 120_000);
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  it(
    'every figure of every dashboard equals the figure computed from the records',
    async () => {
      let figures = await compareAll(0);
      for (let step = 1; step <= STEPS; step++) {
        // Every kind of source first (with random values), then random draws.
        const name = step <= SOURCES.length ? SOURCES[step - 1] : pick(weighted);
        const ok = await writes[name]();
        if (ok) done[name] = (done[name] ?? 0) + 1;
        else if (ok === false) refused[name] = (refused[name] ?? 0) + 1;
        if (step % CHECK_EVERY === 0 || step === STEPS) figures += await compareAll(step);
      }
      const succeeded = Object.values(done).reduce((s, n) => s + n, 0);
      // The sequence wrote what it meant to: most draws succeeded, and every kind of source was written.
      expect(succeeded).toBeGreaterThan(STEPS * 0.6);
      const missing = SOURCES.filter((kind) => !done[kind]);
      expect({ missing, refused, lastRefusal }).toEqual({ missing: [], refused, lastRefusal });
      expect(figures).toBeGreaterThan(1000);
    },
    20 * 60_000,
  );
});
