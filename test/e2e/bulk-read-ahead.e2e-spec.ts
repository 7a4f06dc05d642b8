import { DB_KIND, NO_BACKGROUND_ROUNDS, startApp, statementsOf, TestApp } from './harness.js';
import { createSite, TestSite } from '../factories/index.js';
import { individualsBulk } from '../factories/individuals.js';
import { createOrg } from '../factories/organizations.js';
import { RequestContext } from '../../src/common/context/request-context.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';

/**
 * A bulk chunk reads ahead what its items' updates read (docs/bulk.md, "Round trips"): on
 * MySQL/MariaDB the records it will update are locked in one statement, their accounts,
 * memberships and answers read in one statement each, and the items' single updates find them
 * kept in the transaction instead of reading each alone; their updates of one shape go as one
 * UPDATE of many rows. Whatever is read ahead, every item answers and writes what its single write
 * would: an item that writes a record another item of the chunk names next is read again.
 */
type Json = Record<string, unknown>;
let seq = 0;
const uniq = (p: string) => `${p}${Date.now().toString(36)}${(seq++).toString(36)}`;

describe(`bulk chunks read ahead what their updates read (${DB_KIND})`, () => {
  let t: TestApp;
  let site: TestSite;

  beforeAll(async () => {
    t = await startApp({ ...NO_BACKGROUND_ROUNDS });
    site = await createSite(t);
  });
  afterAll(async () => t?.close());

  const person = (over: Json = {}): Json => individualsBulk(t, site, 'ahead.').person(over);
  const bulk = (items: Json[], query = '') => individualsBulk(t, site, 'ahead.').bulk(items, query);
  const read = (id: unknown): Promise<Json> => individualsBulk(t, site, 'ahead.').read(id);
  const rows = async (sql: string, ...params: unknown[]) => (await t.ds.query(sql, params)) as Json[];
  const updatesOf = async (ids: unknown[]) =>
    Number(
      (
        await rows(
          `SELECT COUNT(*) AS n FROM audit_log WHERE site_id = ? AND action = 'update' AND kind = 'individual' AND row_id IN (${ids.map(() => '?').join(', ')})`,
          site.siteId,
          ...ids,
        )
      )[0].n,
    );
  /** Each statement sent (several travel in one round trip, separated by `;`). */
  const split = (statements: string[]) => statements.flatMap((s) => s.split(/;\n/));

  /** `n` people written by a bulk upsert; answers their bodies (by ExternalID) and IDs. */
  async function seed(n: number, title = 'Analyst'): Promise<{ bodies: Json[]; ids: string[] }> {
    const bodies = Array.from({ length: n }, () => person({ ExternalID: uniq('HR-'), PrimaryTitle: title }));
    const res = await bulk(bodies.map((Record) => ({ Op: 'upsert', Record }))).expect(200);
    return { bodies, ids: (res.body.Results as Json[]).map((r) => r.ID as string) };
  }

  it('updates 30 changed people without a read of its own for any of them, and their rows of one table with one UPDATE on MySQL/MariaDB', async () => {
    const { bodies, ids } = await seed(30);
    const versions = await rows(`SELECT id, version FROM individuals WHERE id IN (${ids.map(() => '?').join(', ')})`, ...ids);
    const { result, statements } = await statementsOf(t, () => bulk(bodies.map((b) => ({ Op: 'upsert', Record: { ...b, PrimaryTitle: 'Lead' } }))).expect(200));
    expect((result.body.Results as Json[]).map((r) => [r.Status, r.ID])).toEqual(ids.map((id) => [200, id]));
    const sent = split(statements);
    const selects = sent.filter((s) => /^\s*\(?\s*SELECT\b/i.test(s));
    const peopleUpdates = sent.filter((s) => /^\s*UPDATE [`"]?individuals[`"]?\s/i.test(s));
    const memberUpdates = sent.filter((s) => /^\s*UPDATE [`"]?organization_members[`"]?\s/i.test(s));
    if (DB_KIND === 'mysql') {
      // The look-up by ExternalID, then the chunk's records, accounts, memberships and answers: a statement each, not one a person.
      expect(selects.length).toBeLessThanOrEqual(8);
      expect({ people: peopleUpdates.length, members: memberUpdates.length }).toEqual({ people: 1, members: 1 });
      // The chunk's people and their memberships are locked ahead, each in one statement.
      const locks = selects.filter((s) => /\bFOR UPDATE\s*$/i.test(s)).map((s) => /\bFROM [`"]?(\w+)/i.exec(s)?.[1]);
      expect(locks).toEqual(expect.arrayContaining(['individuals', 'organization_members']));
      // Only the title changed, to one value for all: the one UPDATE sets it once (and the stamps), not the people's other fields.
      expect(peopleUpdates[0]).toMatch(
        /^UPDATE `individuals` SET `primary_title` = \?, `updated` = (\?|CASE `id` (WHEN \? THEN \? ){30}END), `updated_by` = \?, `version` = `version` \+ 1 WHERE/,
      );
    } else {
      expect(selects.length).toBeGreaterThanOrEqual(30);
      expect({ people: peopleUpdates.length, members: memberUpdates.length }).toEqual({ people: 30, members: 30 });
    }
    // Each written as its single write would: the title on the person and the primary membership, the version once more, one audit row.
    for (const id of ids) expect((await read(id)).PrimaryTitle).toBe('Lead');
    const titles = await rows(
      `SELECT m.title FROM organization_members m JOIN individuals i ON i.id = m.individual_id AND i.primary_organization_id = m.organization_id WHERE i.id IN (${ids.map(() => '?').join(', ')})`,
      ...ids,
    );
    expect(titles.map((r) => r.title)).toEqual(ids.map(() => 'Lead'));
    const after = await rows(`SELECT id, version FROM individuals WHERE id IN (${ids.map(() => '?').join(', ')})`, ...ids);
    const before = new Map(versions.map((v) => [v.id, Number(v.version)]));
    for (const v of after) expect(Number(v.version)).toBe(before.get(v.id)! + 1);
    expect(await updatesOf(ids)).toBe(30);
  });

  it('answers the same feed sent again from what it read ahead: nothing written, no read a person on MySQL/MariaDB', async () => {
    const { bodies, ids } = await seed(25);
    const { result, statements } = await statementsOf(t, () => bulk(bodies.map((Record) => ({ Op: 'upsert', Record }))).expect(200));
    expect((result.body.Results as Json[]).map((r) => [r.Status, r.ID])).toEqual(ids.map((id) => [200, id]));
    const sent = split(statements);
    expect(sent.filter((s) => /^\s*(UPDATE|INSERT)\b/i.test(s) && !/change_seqs|dashboard|outbox|idempot|rate/i.test(s))).toEqual([]);
    if (DB_KIND === 'mysql') expect(sent.filter((s) => /^\s*\(?\s*SELECT\b/i.test(s)).length).toBeLessThanOrEqual(8);
    expect(await updatesOf(ids)).toBe(0);
  });

  it('an item that writes a record a later item of the chunk names reads it again: the later item answers as its single write would', async () => {
    const { bodies, ids } = await seed(3);
    const [p, q] = bodies;
    const res = await bulk([
      { Op: 'upsert', Record: { ...p, PrimaryTitle: 'Lead' } },
      // Back to what was read ahead: not unchanged any more, so written.
      { Op: 'upsert', Record: { ...p, PrimaryTitle: 'Analyst', FirstName: 'Bea' } },
      { Op: 'upsert', Record: { ...q, PrimaryTitle: 'Chief' } },
      { Op: 'upsert', Record: { ...q, PrimaryTitle: 'Chief' } },
    ]).expect(200);
    expect((res.body.Results as Json[]).map((r) => [r.Status, r.ID])).toEqual([
      [200, ids[0]],
      [200, ids[0]],
      [200, ids[1]],
      [200, ids[1]],
    ]);
    const [pNow, qNow] = [await read(ids[0]), await read(ids[1])];
    expect([pNow.PrimaryTitle, pNow.FirstName, qNow.PrimaryTitle]).toEqual(['Analyst', 'Bea', 'Chief']);
    // p written twice, q once (its second item found it unchanged), the third person not at all.
    expect([await updatesOf([ids[0]]), await updatesOf([ids[1]]), await updatesOf([ids[2]])]).toEqual([2, 1, 0]);
    const member = await rows('SELECT m.title FROM organization_members m WHERE m.individual_id = ? AND m.organization_id = ?', ids[0], site.orgId);
    expect(member.map((m) => m.title)).toEqual(['Analyst']);
  });

  it('moves people to another department within a chunk whose memberships were read ahead: one primary membership each, in the new department', async () => {
    const dept = await createOrg(t, site.siteId, { name: uniq('Dept ') });
    const { bodies, ids } = await seed(4);
    const res = await bulk([
      { Op: 'upsert', Record: { ...bodies[0], PrimaryOrganizationID: dept.id } },
      { Op: 'upsert', Record: { ...bodies[1], PrimaryTitle: 'Lead' } },
      { Op: 'upsert', Record: { ...bodies[2], PrimaryOrganizationID: dept.id, PrimaryTitle: 'Chief' } },
      // The first again, now retitled in its new department.
      { Op: 'upsert', Record: { ...bodies[0], PrimaryOrganizationID: dept.id, PrimaryTitle: 'Head' } },
    ]).expect(200);
    expect((res.body.Results as Json[]).every((r) => r.Status === 200)).toBe(true);
    const members = await rows(
      `SELECT individual_id AS i, organization_id AS o, title FROM organization_members WHERE individual_id IN (${ids.map(() => '?').join(', ')}) ORDER BY title`,
      ...ids,
    );
    const of = (k: number) => members.filter((m) => m.i === ids[k]).map((m) => [m.o, m.title]);
    expect([of(0), of(1), of(2), of(3)]).toEqual([[[dept.id, 'Head']], [[site.orgId, 'Lead']], [[dept.id, 'Chief']], [[site.orgId, 'Analyst']]]);
    expect((await read(ids[0])).PrimaryOrganizationID).toBe(dept.id);
  });

  it('a row the transaction locked is answered as the transaction kept it, as its writes left it, without reading it again on MySQL/MariaDB', async () => {
    const { ids } = await seed(2);
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(site.siteId);
    const seen = await db
      .transaction(ctx, async () => {
        const people = db.repo(ctx, IndividualEntity);
        await people.lockMany(ids);
        const kept = await statementsOf(t, () => people.lock(ids[1]));
        // A write of the other row by its id leaves this one kept; the written one is kept as written.
        await people.update(ids[0], { primaryTitle: 'Lead' });
        const afterOther = await statementsOf(t, () => people.lock(ids[1]));
        const written = await statementsOf(t, () => people.lock(ids[0]));
        // A write of many rows at once: what is kept is the rows as it left them.
        await people.updateWhere({ id: ids[1] }, { primaryTitle: 'Chief' });
        const afterMany = await people.lock(ids[1]);
        throw Object.assign(new Error('roll back'), {
          seen: {
            reads: [kept, afterOther, written].map((r) => r.statements.length),
            titles: [written.result.primaryTitle, afterMany.primaryTitle],
          },
        });
      })
      .catch((e: { seen?: unknown }) => e.seen);
    // On SQLite nothing is kept across statements: every lock reads (the transaction is the only writer).
    expect(seen).toEqual({ reads: DB_KIND === 'mysql' ? [0, 0, 0] : [1, 1, 1], titles: ['Lead', 'Chief'] });
    // Rolled back.
    expect((await read(ids[0])).PrimaryTitle).toBe('Analyst');
  });
});
