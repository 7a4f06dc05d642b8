import { randomUUID } from 'node:crypto';
import { UserEntity } from '../../src/database/entities/user.entity.js';
import { CommentEntity } from '../../src/database/entities/comment.entity.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { bearer, countStatements, NO_BACKGROUND_ROUNDS, startApp, TestApp } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { refreshNewestComments } from '../factories/individuals.js';

const SITE_SIZE = 10_000;
const CHUNK = 250;
/** The first bulk individuals report to the manager (a non-administrator caller with a team). */
const TEAM = 9000;

/**
 * A site of 10,000 individuals: reading one and reading a page of 500 each cost a small, fixed
 * number of SQL statements, whatever the page size (no N+1 on accounts, organization names,
 * last comments or rights).
 */
describe('/v4/individuals on a large site', () => {
  let t: TestApp;
  let site: TestSite;
  let manager: TestPerson;
  let bulkIds: string[];

  const countQueries = async <R>(fn: () => Promise<R>) => {
    const { result, statements } = await countStatements(t, fn);
    return { result, queries: statements };
  };

  beforeAll(async () => {
    t = await startApp(NO_BACKGROUND_ROUNDS);
    site = await createSite(t, { name: 'Large' });
    manager = await createPerson(t, site, { firstName: 'Many', lastName: 'Reports' });
    const now = new Date();
    const count = SITE_SIZE - 2; // the site administrator and the manager exist already
    bulkIds = Array.from({ length: count }, () => randomUUID());
    for (let start = 0; start < count; start += CHUNK) {
      const ids = bulkIds.slice(start, start + CHUNK);
      const users = ids.map((id, k) => {
        const name = `bulk-${start + k}-${id.slice(0, 8)}`;
        return {
          id: randomUUID(),
          siteId: site.siteId,
          userName: name,
          userNameKey: name,
          email: `${name}@large.test`,
          passwordHash: null,
          isGlobalAdmin: false,
          created: now,
          updated: now,
        };
      });
      await t.ds.createQueryBuilder().insert().into(UserEntity).values(users).updateEntity(false).execute();
      await t.ds
        .createQueryBuilder()
        .insert()
        .into(IndividualEntity)
        .values(
          ids.map((id, k) => ({
            id,
            siteId: site.siteId,
            userId: users[k].id,
            isAdmin: false,
            firstName: `First${start + k}`,
            lastName: `Bulk${String(start + k).padStart(5, '0')}`,
            email: `${users[k].userName}@large.test`,
            primaryOrganizationId: site.orgId,
            primaryTitle: 'Worker',
            primaryReportsTo: start + k < TEAM ? manager.individualId : null,
            sendEvalSurvey: false,
            deleted: false,
            deletedByRef: false,
            created: now,
            createdBy: null,
            updated: now,
            updatedBy: null,
          })),
        )
        .updateEntity(false)
        .execute();
    }
    // A comment on each of the first individuals, so the batch of last comments has work to do.
    await t.ds
      .createQueryBuilder()
      .insert()
      .into(CommentEntity)
      .values(
        bulkIds.slice(0, 50).map((id, k) => ({
          id: randomUUID(),
          siteId: site.siteId,
          ancestorId: id,
          ancestorType: 'individuals' as const,
          body: `note ${k}`,
          authorId: manager.individualId,
          authorFirstName: 'Many',
          authorLastName: 'Reports',
          deleted: false,
          deletedByRef: false,
          created: new Date(now.getTime() - k * 1000),
          createdBy: manager.individualId,
          updated: now,
          updatedBy: manager.individualId,
        })),
      )
      .updateEntity(false)
      .execute();
    await refreshNewestComments(t, site.siteId, bulkIds.slice(0, 50));
  });
  afterAll(async () => {
    await t.close();
  });

  const list = (limit: number, who: TestPerson) => t.http().get(`/v4/individuals?limit=${limit}`).set('Authorization', bearer(who.token));

  it('reads a page of 500 with X-Total-Count 10000 in as many queries as a page of 5', async () => {
    for (const who of [site.admin, manager]) {
      await list(1, who).expect(200); // the caller is then cached for both counts (CALLER_CACHE_MS)
      const small = await countQueries(() => list(5, who).expect(200));
      const big = await countQueries(() => list(500, who).expect(200));
      expect(big.result.body).toHaveLength(500);
      expect(big.result.headers['x-total-count']).toBe(String(SITE_SIZE));
      expect(big.result.headers.link).toBe('</v4/individuals?limit=500&offset=500>; rel="next"');
      expect(big.queries).toBe(small.queries);
      // count + page + organizations + accounts + last comments (+ the manager's subordinates)
      expect(big.queries).toBeLessThanOrEqual(8);
      const rows = big.result.body as { ID: string; UserName: string | null; PrimaryOrganizationName: string | null; CanUpdate: boolean }[];
      expect(rows.every((r) => r.UserName !== null && r.PrimaryOrganizationName === 'Root Org')).toBe(true);
      if (who === manager) {
        // A manager updates everyone below them (a 9,000-strong team here) and nobody else.
        const team = new Set(bulkIds.slice(0, TEAM));
        expect(rows.filter((r) => r.CanUpdate !== (team.has(r.ID) || r.ID === manager.individualId))).toEqual([]);
        expect(rows.filter((r) => r.CanUpdate).length).toBeGreaterThan(0);
      }
    }
  });

  it('reads one individual (with its last comment and the caller’s rights) in one statement', async () => {
    await t.http().get('/v4/me').set('Authorization', bearer(manager.token)).expect(200); // caller now cached
    const one = await countQueries(() => t.http().get(`/v4/individuals/${bulkIds[0]}`).set('Authorization', bearer(manager.token)).expect(200));
    expect(one.result.body).toMatchObject({ ID: bulkIds[0], LastComment: 'note 0', LastCommentBy: 'Many Reports', CanUpdate: true });
    expect(one.queries).toBe(1);
    const me = await countQueries(() => t.http().get('/v4/me').set('Authorization', bearer(manager.token)).expect(200));
    expect(me.queries).toBe(1);
    const byAdmin = await countQueries(() => t.http().get(`/v4/individuals/${bulkIds[0]}`).set('Authorization', bearer(site.admin.token)).expect(200));
    expect(byAdmin.queries).toBeLessThanOrEqual(2); // + the administrator's caller when not cached yet
  });

  it('answers a page after an offset exactly as the same rows of one longer first page, decorations and rights included', async () => {
    // The first page and the later ones are read by two statement shapes (src/modules/individuals/individual-read.ts).
    for (const who of [site.admin, manager]) {
      const get = async (q: string) => (await t.http().get(`/v4/individuals?${q}`).set('Authorization', bearer(who.token)).expect(200)).body as unknown[];
      const whole = await get('limit=1500');
      const pieces = [...(await get('limit=500')), ...(await get('limit=500&offset=500')), ...(await get('limit=500&offset=1000'))];
      expect(pieces).toEqual(whole);
      expect(whole.filter((r) => (r as { LastComment: string | null }).LastComment !== null).length).toBeGreaterThan(0);
    }
  });

  it('pages through the end of the site (the last page is short and has no Link)', async () => {
    const res = await t
      .http()
      .get(`/v4/individuals?limit=500&offset=${SITE_SIZE - 20}`)
      .set('Authorization', bearer(site.admin.token))
      .expect(200);
    expect(res.body).toHaveLength(20);
    expect(res.headers.link).toBeUndefined();
  });
});
