import { randomUUID } from 'node:crypto';
import { AssessmentRatingEntity } from '../../src/database/entities/assessment-rating.entity.js';
import { AssessmentEntity } from '../../src/database/entities/assessment.entity.js';
import { BasicRoleDialogEntity } from '../../src/database/entities/basic-role-dialog.entity.js';
import { BasicRoleEntity } from '../../src/database/entities/basic-role.entity.js';
import { DialogEntity } from '../../src/database/entities/dialog.entity.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { TaskEntity } from '../../src/database/entities/task.entity.js';
import { bearer, NO_BACKGROUND_ROUNDS, startApp, TestApp } from './harness.js';
import { createPeriods } from '../factories/goals.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';

const N = 600;
const CHUNK = 100;

/**
 * Every list of basic roles, their dialog ratings, dialogs, tasks and assessments reads a page of
 * 500 in as many SQL statements as a page of 5 (no statement per record: an assessment's ratings
 * come in one batch for the whole page).
 */
describe('lists of the records of a period at scale', () => {
  let t: TestApp;
  let site: TestSite;
  let manager: TestPerson;
  let subject: TestPerson;
  let dialogId: string;

  /** Runs `fn` and counts the SQL statements the data source sends meanwhile. */
  async function countQueries<R>(fn: () => Promise<R>): Promise<{ result: R; queries: number }> {
    const proto = Object.getPrototypeOf(t.ds.createQueryRunner()) as { query: (...args: unknown[]) => Promise<unknown> };
    const original = proto.query;
    let queries = 0;
    proto.query = function (this: unknown, ...args: unknown[]) {
      queries++;
      return original.apply(this, args);
    };
    try {
      return { result: await fn(), queries };
    } finally {
      proto.query = original;
    }
  }

  async function bulk<T>(entity: new () => T, rows: Record<string, unknown>[]): Promise<void> {
    for (let i = 0; i < rows.length; i += CHUNK) {
      await t.ds
        .createQueryBuilder()
        .insert()
        .into(entity)
        .values(rows.slice(i, i + CHUNK) as never)
        .updateEntity(false)
        .execute();
    }
  }

  beforeAll(async () => {
    t = await startApp(NO_BACKGROUND_ROUNDS);
    site = await createSite(t, { name: 'Scale' });
    manager = await createPerson(t, site, { firstName: 'Max', lastName: 'Manager' });
    subject = await createPerson(t, site, { firstName: 'Sam', lastName: 'Subject', reportsTo: manager.individualId });
    const period = (await createPeriods(t, site.siteId)).current.id;
    const now = new Date();
    const common = { siteId: site.siteId, created: now, createdBy: null, updated: now, updatedBy: null, version: 1 };
    const seq = (prefix: string, i: number) => `${prefix}${String(i).padStart(4, '0')}`;

    await bulk(
      IndividualEntity,
      Array.from({ length: N }, (_, i) => ({
        ...common,
        id: randomUUID(),
        userId: null,
        isAdmin: false,
        firstName: 'Bulk',
        lastName: seq('Person', i),
        primaryReportsTo: null,
        sendEvalSurvey: false,
        deleted: false,
        deletedByRef: false,
      })),
    );
    const roleIds = Array.from({ length: N }, () => randomUUID());
    await bulk(
      BasicRoleEntity,
      roleIds.map((id, i) => ({
        ...common,
        id,
        individualId: subject.individualId,
        name: seq('Role', i),
        rank: 0,
        dialogsPerPeriod: 1,
        deleted: false,
        deletedByRef: false,
      })),
    );
    const dialogIds = Array.from({ length: N }, () => randomUUID());
    dialogId = dialogIds[0];
    await bulk(
      DialogEntity,
      dialogIds.map((id, i) => ({
        ...common,
        id,
        kind: 'individual',
        ancestorId: subject.individualId,
        leaderId: manager.individualId,
        periodId: period,
        scheduledDate: new Date(now.getTime() - i * 60_000),
        deleted: false,
        deletedByRef: false,
      })),
    );
    await bulk(
      BasicRoleDialogEntity,
      roleIds.map((basicRoleId, i) => ({ ...common, id: randomUUID(), basicRoleId, dialogId, rating: (i % 5) + 1, comment: null })),
    );
    await bulk(
      TaskEntity,
      Array.from({ length: N }, (_, i) => ({
        ...common,
        id: randomUUID(),
        kind: 'individual',
        ancestorId: subject.individualId,
        assignedToId: subject.individualId,
        name: seq('Task', i),
        completed: false,
        deleted: false,
        deletedByRef: false,
      })),
    );
    const assessmentIds = Array.from({ length: N }, () => randomUUID());
    await bulk(
      AssessmentEntity,
      assessmentIds.map((id) => ({ ...common, id, kind: 'leader', subjectId: subject.individualId, assessorId: manager.individualId, periodId: period })),
    );
    await bulk(
      AssessmentRatingEntity,
      assessmentIds.flatMap((assessmentId) =>
        [0, 1, 2].map((position) => ({ ...common, id: randomUUID(), assessmentId, position, itemKind: 'general', itemId: null, rating: position + 2 })),
      ),
    );
  });
  afterAll(async () => {
    await t.close();
  });

  const lists = () => [
    { path: `/v4/individuals/${subject.individualId}/basicroles`, who: manager },
    { path: '/v4/me/basicroles', who: subject },
    { path: `/v4/sites/${site.siteId}/individuals/basicroles`, who: subject },
    { path: `/v4/dialogs/${dialogId}/basicroledialogs`, who: manager },
    { path: `/v4/individuals/${subject.individualId}/dialogs`, who: manager },
    { path: '/v4/dialogs', who: site.admin },
    { path: `/v4/individuals/${subject.individualId}/tasks`, who: manager },
    { path: '/v4/me/tasks', who: subject },
    { path: '/v4/tasks', who: site.admin },
    { path: `/v4/individuals/${subject.individualId}/assessments`, who: manager },
    { path: '/v4/assessments', who: site.admin },
  ];

  it('reads a page of 500 of every new list in as many queries as a page of 5', async () => {
    for (const { path, who } of lists()) {
      const get = (limit: number) => t.http().get(`${path}?limit=${limit}`).set('Authorization', bearer(who.token)).expect(200);
      await get(1); // the caller is resolved once per token and then cached: count the page's own queries
      const small = await countQueries(() => get(5));
      const big = await countQueries(() => get(500));
      expect({ path, rows: big.result.body.length }).toEqual({ path, rows: 500 });
      expect(Number(big.result.headers['x-total-count'])).toBeGreaterThanOrEqual(N);
      expect({ path, queries: big.queries }).toEqual({ path, queries: small.queries });
      // period + access + count + page (+ the ratings of a page of assessments)
      expect({ path, atMost: big.queries <= 7 }).toEqual({ path, atMost: true });
    }
  });

  it('answers each assessment of a big page with its own ratings', async () => {
    const res = await t.http().get(`/v4/individuals/${subject.individualId}/assessments?limit=500`).set('Authorization', bearer(manager.token)).expect(200);
    const ratings = res.body.map((a: { Ratings: { Rating: number }[] }) => a.Ratings.map((r) => r.Rating).join(','));
    expect(new Set(ratings)).toEqual(new Set(['2,3,4']));
  });
});
