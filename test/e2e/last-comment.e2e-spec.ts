import { randomUUID } from 'node:crypto';
import { CommentEntity } from '../../src/database/entities/comment.entity.js';
import { INDIVIDUAL_READ_SQL } from '../../src/modules/individuals/individuals.statements.js';
import { REFRESH_LAST_COMMENTS } from '../../src/database/queries/last-comment.js';
import { bearer, countStatements, DB_KIND, NO_BACKGROUND_ROUNDS, startApp, statementsOf, TestApp } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { refreshNewestComments } from '../factories/individuals.js';

/**
 * Individual.LastComment* is read by one index descent: reading someone with 20,000 comments
 * costs what reading someone with one costs. Any member may comment on anyone, so a cost that
 * grew with the number of comments would let one member make a colleague unreadable.
 */
const MANY = 20_000;

describe('the last comment of an individual', () => {
  let t: TestApp;
  let site: TestSite;
  let busy: TestPerson;
  let single: TestPerson;
  let quiet: TestPerson;
  const newest = randomUUID().replace(/^./, 'f');

  beforeAll(async () => {
    t = await startApp(NO_BACKGROUND_ROUNDS);
    site = await createSite(t);
    [busy, single, quiet] = [await createPerson(t, site), await createPerson(t, site), await createPerson(t, site)];
    const start = Date.UTC(2025, 0, 1);
    const row = (ancestorId: string, k: number, created: number, id: string = randomUUID()) => ({
      id,
      siteId: site.siteId,
      ancestorId,
      ancestorType: 'individuals' as const,
      body: `comment ${k}`,
      authorId: site.admin.individualId,
      deleted: false,
      deletedByRef: false,
      created: new Date(created),
      createdBy: null,
      updated: new Date(created),
      updatedBy: null,
    });
    for (let k = 0; k < MANY; k += 500) {
      const rows = Array.from({ length: 500 }, (_, j) => row(busy.individualId, k + j, start + (k + j) * 1000));
      await t.ds.createQueryBuilder().insert().into(CommentEntity).values(rows).updateEntity(false).execute();
    }
    const last = start + MANY * 1000;
    // Two comments at the newest instant: the greater id wins; a newer deleted one does not count.
    await t.ds
      .createQueryBuilder()
      .insert()
      .into(CommentEntity)
      .values([
        row(busy.individualId, MANY, last, newest),
        row(busy.individualId, MANY + 1, last, newest.replace(/^f/, '0')),
        { ...row(busy.individualId, MANY + 2, last + 5000), deleted: true },
        row(single.individualId, 0, start),
      ])
      .updateEntity(false)
      .execute();
    // Written around the API, as an import would: then refreshed as docs/operations.md says.
    await refreshNewestComments(t, site.siteId, [busy.individualId, single.individualId, quiet.individualId]);
  }, 180_000);
  afterAll(() => t?.close());

  const read = (who: TestPerson, token = site.admin.token) => t.http().get(`/v4/individuals/${who.individualId}`).set('Authorization', bearer(token));

  const statements = async (fn: () => Promise<unknown>): Promise<number> => (await countStatements(t, fn)).statements;

  it('answers the newest live comment (ties broken by id), one statement per read either way', async () => {
    await read(quiet).expect(200); // the caller is cached from here on
    const res = await read(busy).expect(200);
    expect(res.body).toMatchObject({
      LastComment: `comment ${MANY}`,
      LastCommentByID: site.admin.individualId,
      LastCommentDate: '2025-01-01T05:33:20.000+00:00',
    });
    expect((await read(single).expect(200)).body).toMatchObject({ LastComment: 'comment 0' });
    expect((await read(quiet).expect(200)).body).toMatchObject({ LastComment: null, LastCommentDate: null, LastCommentBy: null });
    expect(await statements(() => read(busy).expect(200))).toBe(1);
    expect(await statements(() => read(single).expect(200))).toBe(1);
    // The same on a page that holds both.
    const page = (await t.http().get('/v4/individuals?limit=50').set('Authorization', bearer(site.admin.token)).expect(200)).body as Record<string, unknown>[];
    expect(page.find((r) => r.ID === busy.individualId)).toMatchObject({ LastComment: `comment ${MANY}` });
    expect(page.find((r) => r.ID === quiet.individualId)).toMatchObject({ LastComment: null });
  });

  it('reads as many index entries for 20,000 comments as for one (database plan)', async () => {
    for (const [name, sql, params] of [
      ['administrator', INDIVIDUAL_READ_SQL.asAdmin.text, (id: string) => [site.siteId, id]],
      ['member', INDIVIDUAL_READ_SQL.asMember.text, (id: string) => [site.siteId, id]],
    ] as const) {
      if (DB_KIND === 'mysql') {
        // Rows the storage engine handed over for the statement, read from the session's counters.
        const runner = t.ds.createQueryRunner();
        try {
          const handlerReads = async (id: string) => {
            const counters = async () =>
              ((await runner.query("SHOW SESSION STATUS LIKE 'Handler_read%'")) as { Variable_name: string; Value: string }[]).reduce(
                (sum, r) => sum + Number(r.Value),
                0,
              );
            const before = await counters();
            await runner.query(sql, params(id));
            return (await counters()) - before;
          };
          const many = await handlerReads(busy.individualId);
          const one = await handlerReads(single.individualId);
          expect({ name, many }).toEqual({ name, many: one });
          expect(one).toBeLessThan(30);
        } finally {
          await runner.release();
        }
      } else {
        const plan = ((await t.ds.query(`EXPLAIN QUERY PLAN ${sql}`, params(busy.individualId))) as { detail: string }[]).map((r) => r.detail);
        // Every table is reached through an index, none scanned, nothing sorted.
        expect({ name, scans: plan.filter((d) => /^SCAN (?!up\b)/.test(d) || /TEMP B-TREE/.test(d)) }).toEqual({ name, scans: [] });
        expect(plan).toContainEqual(expect.stringMatching(/^SEARCH c USING INDEX sqlite_autoindex_comments_1 \(id=\?\)/));
      }
    }
  });

  it('reads a page of comments on someone with 20,000, with its check and its authors’ kept names, from the page’s index entries alone (database plan)', async () => {
    const { statements } = await statementsOf(t, () =>
      t.http().get(`/v4/individuals/${busy.individualId}/comments?limit=20`).set('Authorization', bearer(site.admin.token)).expect(200),
    );
    // The page with its check (then its total: the page is full).
    const [sql] = statements;
    // The anchor (its id alone) is a subquery of no correlation; the authors' names are the comments' own columns.
    expect(sql).toMatch(/\(SELECT a\.[`"]id[`"] AS [`"]__anchor_id[`"] FROM [`"]individuals[`"] a WHERE /);
    expect(sql).not.toMatch(/JOIN/);
    expect(sql).toMatch(/t\.[`"]author_first_name[`"], t\.[`"]author_last_name[`"]/);
    if (DB_KIND === 'mysql') expect(sql).toContain('FROM `comments` t FORCE INDEX (`ix_comments_site_ancestor_last`) ');
    // The anchor's site and id, then the list's site, kind, ancestor and live filter, then the limit.
    const params = (id: string) => [site.siteId, id, site.siteId, 'individuals', id, 0, 20];
    if (DB_KIND === 'mysql') {
      const runner = t.ds.createQueryRunner();
      try {
        const counters = async () =>
          ((await runner.query("SHOW SESSION STATUS LIKE 'Handler_read%'")) as { Value: string }[]).reduce((sum, r) => sum + Number(r.Value), 0);
        const before = await counters();
        const rows = (await runner.query(sql, params(busy.individualId))) as unknown[];
        const reads = (await counters()) - before;
        expect(rows).toHaveLength(20);
        // 20 entries of the index in the page's order, their rows and the anchor, by primary key.
        expect(reads).toBeLessThan(100);
      } finally {
        await runner.release();
      }
    } else {
      const plan = ((await t.ds.query(`EXPLAIN QUERY PLAN ${sql}`, params(busy.individualId))) as { detail: string }[]).map((r) => r.detail);
      expect(plan.filter((d) => /^SCAN/.test(d) || /TEMP B-TREE/.test(d))).toEqual([]);
      expect(plan).toContainEqual(expect.stringMatching(/^SEARCH t USING INDEX ix_comments_site_ancestor_last/));
    }
  });

  it('keeps the newest comment with one index descent whatever the number of comments (database plan)', async () => {
    const refresh = REFRESH_LAST_COMMENTS.of(DB_KIND === 'mysql' ? 'mysql' : 'sqlite', 1).text;
    if (DB_KIND === 'mysql') {
      const runner = t.ds.createQueryRunner();
      try {
        await runner.startTransaction('READ COMMITTED');
        const reads = async (id: string) => {
          const counters = async () =>
            ((await runner.query("SHOW SESSION STATUS LIKE 'Handler_read%'")) as { Variable_name: string; Value: string }[]).reduce(
              (sum, r) => sum + Number(r.Value),
              0,
            );
          const before = await counters();
          await runner.query(refresh, [site.siteId, id]);
          return (await counters()) - before;
        };
        const many = await reads(busy.individualId);
        const one = await reads(single.individualId);
        expect(many).toBe(one);
        expect(one).toBeLessThan(10);
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    } else {
      const plan = ((await t.ds.query(`EXPLAIN QUERY PLAN ${refresh}`, [site.siteId, busy.individualId])) as { detail: string }[]).map((r) => r.detail);
      expect(plan.filter((d) => /^SCAN/.test(d) || /TEMP B-TREE/.test(d))).toEqual([]);
      expect(plan).toContainEqual(expect.stringMatching(/^SEARCH lc USING COVERING INDEX ix_comments_site_ancestor_last/));
    }
  });
});
