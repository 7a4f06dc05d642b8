import { randomUUID } from 'node:crypto';
import { RequestContext } from '../../src/common/context/request-context.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { GoalEntity } from '../../src/database/entities/goal.entity.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import { PeriodEntity } from '../../src/database/entities/period.entity.js';
import { bearer, createPerson, createSite, TestSite } from '../factories/index.js';
import { createPeriod, createUnit, DAY } from '../factories/goals.js';
import { DB_KIND, startApp, TestApp } from './harness.js';

/**
 * Write integrity under real concurrency (docs/architecture.md, "How a write runs"): requests are
 * sent at the same moment against the real app and database — on MariaDB each holds its own
 * pooled connection — and the stored outcome is read back.
 */
describe(`write integrity under concurrent requests (${DB_KIND})`, () => {
  let t: TestApp;
  let site: TestSite;
  let auth: string;

  beforeAll(async () => {
    t = await startApp();
    site = await createSite(t);
    auth = bearer(site.admin.token);
  });
  afterAll(async () => {
    await t.close();
  });

  const put = (path: string, body: unknown, ifMatch?: string) => {
    const req = t
      .http()
      .put(path)
      .set('Authorization', auth)
      .send(body as object);
    return ifMatch ? req.set('If-Match', ifMatch) : req;
  };

  it('loses none of 4 concurrent partial PUTs of one individual, over 25 rounds (100 field updates)', async () => {
    const person = await createPerson(t, site, { firstName: 'Ada', lastName: 'Lovelace' });
    const id = person.individualId;
    let lost = 0;
    const statuses = new Set<number>();
    for (let round = 0; round < 25; round++) {
      // Each client sends the required fields plus one optional field of its own; absent
      // optional fields keep their value.
      const answers = await Promise.all(
        [1, 2, 3, 4].map((n) =>
          put(`/v4/individuals/${id}`, { ID: id, FirstName: 'Ada', LastName: 'Lovelace', UserName: person.userName, [`UserDefined${n}`]: `r${round}-c${n}` }),
        ),
      );
      answers.forEach((a) => statuses.add(a.status));
      const read = await t.http().get(`/v4/individuals/${id}`).set('Authorization', auth);
      for (const n of [1, 2, 3, 4]) if (read.body[`UserDefined${n}`] !== `r${round}-c${n}`) lost++;
    }
    expect([...statuses]).toEqual([200]);
    expect(lost).toBe(0);
  });

  it('lets exactly one of 6 concurrent PUTs carrying the same ETag win, in each of 15 rounds', async () => {
    const person = await createPerson(t, site);
    const id = person.individualId;
    const winners: number[] = [];
    for (let round = 0; round < 15; round++) {
      const read = await t.http().get(`/v4/individuals/${id}`).set('Authorization', auth);
      const etag = read.headers.etag as string;
      expect(etag).toMatch(/^"\d+-[\w-]+"$/);
      const answers = await Promise.all(
        [0, 1, 2, 3, 4, 5].map((n) => put(`/v4/individuals/${id}`, { ...read.body, UserDefined1: `round ${round} writer ${n}`, Password: null }, etag)),
      );
      const codes = answers.map((a) => a.status).sort();
      expect(codes).toEqual([200, 412, 412, 412, 412, 412]);
      winners.push(codes.filter((c) => c === 200).length);
      // The winner's value is what is stored, and the losers changed nothing.
      const winner = answers.find((a) => a.status === 200)!;
      const after = await t.http().get(`/v4/individuals/${id}`).set('Authorization', auth);
      expect(after.body.UserDefined1).toBe(winner.body.UserDefined1);
      expect(after.headers.etag).toBe(winner.headers.etag);
      expect(answers.filter((a) => a.status === 412).every((a) => a.body.type === 'urn:pms:problem:precondition-failed')).toBe(true);
    }
    expect(winners).toEqual(Array(15).fill(1));
  });

  it('never leaves a goal pointing at a period deleted at the same moment', async () => {
    const owner = await createPerson(t, site);
    let goalsKept = 0;
    let periodsDeleted = 0;
    for (let round = 0; round < 10; round++) {
      const period = await createPeriod(t, site.siteId, { name: `Race ${round}`, start: new Date(Date.now() - DAY), end: new Date(Date.now() + 30 * DAY) });
      const [del, create] = await Promise.all([
        t.http().delete(`/v4/periods/${period.id}`).set('Authorization', auth),
        t.http().post('/v4/goals').set('Authorization', auth).send(goalBody(owner.individualId, period.id)),
      ]);
      // Either the delete came first (the goal is refused) or the goal did (the delete is refused).
      expect([del.status, create.status].sort()).not.toEqual([200, 200]);
      expect(del.status === 200 ? [400, 409] : [200]).toContain(create.status);
      if (del.status !== 200) expect(del.body.type).toBe('urn:pms:problem:in-use');
      if (create.status === 200) goalsKept++;
      if (del.status === 200) periodsDeleted++;
    }
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(site.siteId);
    const goals = await db.repo(ctx, GoalEntity).find({ where: { individualId: owner.individualId } });
    const periods = new Set((await db.repo(ctx, PeriodEntity).find()).map((p) => p.id));
    expect(goals.filter((g) => !periods.has(g.periodId))).toEqual([]);
    expect(goalsKept + periodsDeleted).toBe(10);
  });

  it('lets two administrators moving departments under each other at once never make a cycle', async () => {
    const other = await createPerson(t, site, { isAdmin: true });
    for (let round = 0; round < 10; round++) {
      const a = await createUnit(t, site.siteId, { department: true, name: `A${round}`, parentId: site.orgId });
      const b = await createUnit(t, site.siteId, { department: true, name: `B${round}`, parentId: site.orgId });
      const [moveA, moveB] = await Promise.all([
        t.http().put(`/v4/departments/${a.id}`).set('Authorization', auth).send({ ID: a.id, Name: a.name, ParentID: b.id }),
        t.http().put(`/v4/departments/${b.id}`).set('Authorization', bearer(other.token)).send({ ID: b.id, Name: b.name, ParentID: a.id }),
      ]);
      expect([moveA.status, moveB.status].sort()).toEqual([200, 409]);
      expect([moveA, moveB].find((r) => r.status === 409)!.body.type).toBe('urn:pms:problem:cycle');
      const rows = await t.app.get(TenantDb).repo(RequestContext.system(site.siteId), OrganizationEntity).findByIds([a.id, b.id]);
      const parent = new Map(rows.map((r) => [r.id, r.parentId]));
      expect(parent.get(a.id) === b.id && parent.get(b.id) === a.id).toBe(false);
    }
  });

  it('lets two managers changing reporting lines under each other at once never make a cycle', async () => {
    for (let round = 0; round < 10; round++) {
      const x = await createPerson(t, site);
      const y = await createPerson(t, site);
      const [first, second] = await Promise.all([
        put(`/v4/individuals/${x.individualId}`, { ID: x.individualId, FirstName: 'X', LastName: 'X', UserName: x.userName, PrimaryReportsTo: y.individualId }),
        put(`/v4/individuals/${y.individualId}`, { ID: y.individualId, FirstName: 'Y', LastName: 'Y', UserName: y.userName, PrimaryReportsTo: x.individualId }),
      ]);
      expect([first.status, second.status].sort()).toEqual([200, 409]);
    }
  });

  it('keeps the site filter of a scoped query builder when a later where() or orWhere() is added', async () => {
    const other = await createSite(t);
    const db = t.app.get(TenantDb);
    const mine = db.repo(RequestContext.system(site.siteId), IndividualEntity);
    const ids = async (rows: IndividualEntity[]) => new Set(rows.map((r) => r.siteId));
    expect(await ids(await mine.qb('i').where('1 = 1').getMany())).toEqual(new Set([site.siteId]));
    expect(await ids(await mine.qb('i').andWhere('i.deleted = :no', { no: false }).orWhere('1 = 1').getMany())).toEqual(new Set([site.siteId]));
    const [rows, count] = await mine.qb('i').where('i.id = :id', { id: other.admin.individualId }).getManyAndCount();
    expect([rows, count]).toEqual([[], 0]);
  });

  it('answers the record as written with a new ETag; a stale If-Match is 412 and changes nothing', async () => {
    const person = await createPerson(t, site);
    const id = person.individualId;
    const before = await t.http().get(`/v4/individuals/${id}`).set('Authorization', auth);
    const body = { ID: id, FirstName: 'Grace', LastName: 'Hopper', UserName: person.userName };
    const first = await put(`/v4/individuals/${id}`, body, before.headers.etag as string);
    expect(first.status).toBe(200);
    expect(first.body.FirstName).toBe('Grace');
    expect(first.headers.etag).not.toBe(before.headers.etag);
    const stale = await put(`/v4/individuals/${id}`, { ...body, FirstName: 'Stale' }, before.headers.etag as string);
    expect(stale.status).toBe(412);
    expect((await t.http().get(`/v4/individuals/${id}`).set('Authorization', auth)).body.FirstName).toBe('Grace');
    expect((await put(`/v4/individuals/${id}`, { ...body, FirstName: 'Unconditional' })).status).toBe(200);
    expect((await put(`/v4/individuals/${id}`, { ...body, FirstName: 'Star' }, '*')).status).toBe(200);
    const unknown = randomUUID();
    expect((await put(`/v4/individuals/${unknown}`, { ...body, ID: unknown }, '*')).status).toBe(404);
  });
});

function goalBody(individualId: string, periodId: number): Record<string, unknown> {
  return {
    IndividualID: individualId,
    Name: 'Race goal',
    Completed: false,
    Comment: '',
    Why: '',
    DueDate: new Date(Date.now() + 10 * DAY).toISOString(),
    PeriodID: periodId,
    ...Object.fromEntries(
      [1, 2, 3, 4, 5].flatMap((n) => [
        [`Measure${n}`, ''],
        [`Measure${n}Completed`, false],
        [`Measure${n}StartDate`, new Date(Date.now() - DAY).toISOString()],
        [`Measure${n}EndDate`, new Date(Date.now() + DAY).toISOString()],
      ]),
    ),
  };
}
