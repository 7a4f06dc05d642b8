import { jest } from '@jest/globals';
import { DB_KIND, NO_BACKGROUND_ROUNDS, startApp, statementsOf, TestApp } from './harness.js';
import { createSite, TestSite } from '../factories/index.js';
import { individualsBulk } from '../factories/individuals.js';
import { RequestContext } from '../../src/common/context/request-context.js';
import { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { BULK_CHUNK, BULK_OVERLAP } from '../../src/database/bulk-write.js';
import { SEND_AHEAD_BATCHES } from '../../src/database/transactions.js';

/**
 * A bulk chunk's inserts travel together (docs/bulk.md, "Round trips"): on MySQL/MariaDB the items
 * of a chunk in a transaction of its own leave their held inserts for the chunk's end, where they go
 * as one multi-row INSERT a table; when any of them fails, the chunk runs again with each item's
 * writes sent alone, so every item answers as its single write would and nothing of a failed item
 * is left. On SQLite nothing is held; the answers are the same.
 */
type Json = Record<string, unknown>;
let seq = 0;
const uniq = (p: string) => `${p}${Date.now().toString(36)}${(seq++).toString(36)}`;

describe(`bulk chunks carry their items' inserts to the chunk's end (${DB_KIND})`, () => {
  let t: TestApp;
  let site: TestSite;

  beforeAll(async () => {
    t = await startApp({ ...NO_BACKGROUND_ROUNDS });
    site = await createSite(t);
  });
  afterAll(async () => t?.close());

  const person = (over: Json = {}): Json => individualsBulk(t, site, 'carry.').person(over);
  const bulk = (items: Json[], query = '') => individualsBulk(t, site, 'carry.').bulk(items, query);
  const read = (id: unknown): Promise<Json> => individualsBulk(t, site, 'carry.').read(id);
  const count = async (sql: string, ...params: unknown[]) => Number(((await t.ds.query(sql, params)) as { n: number | string }[])[0].n);
  const people = () => count('SELECT COUNT(*) AS n FROM individuals WHERE site_id = ?', site.siteId);
  const accounts = () => count('SELECT COUNT(*) AS n FROM users WHERE site_id = ?', site.siteId);
  const memberships = () => count('SELECT COUNT(*) AS n FROM organization_members WHERE site_id = ?', site.siteId);
  const creates = () => count("SELECT COUNT(*) AS n FROM audit_log WHERE site_id = ? AND action = 'create' AND kind = 'individual'", site.siteId);
  /** The site's people, accounts, memberships and people's create audit rows. */
  const tally = async () => ({ people: await people(), accounts: await accounts(), memberships: await memberships(), creates: await creates() });
  /** `before` with `n` more of each. */
  const plus = (before: Awaited<ReturnType<typeof tally>>, n: number) => ({
    people: before.people + n,
    accounts: before.accounts + n,
    memberships: before.memberships + n,
    creates: before.creates + n,
  });

  it('writes 40 new people with one INSERT a table on MySQL/MariaDB (one a person on SQLite), every item 200', async () => {
    const items = Array.from({ length: 40 }, () => ({ Op: 'upsert', Record: person({ ExternalID: uniq('HR-') }) }));
    const before = await people();
    const { result, statements } = await statementsOf(t, () => bulk(items).expect(200));
    expect((result.body.Results as Json[]).map((r) => r.Status)).toEqual(items.map(() => 200));
    expect(await people()).toBe(before + 40);
    // Each statement sent (several travel in one round trip, separated by `;`), and those that insert people.
    const sent = statements.flatMap((s) => s.split(/;\n/));
    const inserts = sent.filter((s) => /^\s*INSERT INTO [`"]?individuals[`"]?\s/i.test(s));
    if (DB_KIND === 'mysql') {
      // Every person in one statement, 40 rows of values; their accounts and memberships alike, in the same round trip.
      expect(inserts).toHaveLength(1);
      expect(inserts[0].match(/\(\?(?:, \?)*\)/g)).toHaveLength(40);
      const trip = statements.find((s) => s.includes(inserts[0]))!;
      expect(trip.split(/;\n/).filter((s) => /^\s*INSERT INTO [`"]?(users|organization_members)[`"]?\s/i.test(s))).toHaveLength(2);
    } else expect(inserts).toHaveLength(40);
  });

  it('reads the organization 30 new people name once a chunk on MySQL/MariaDB (once a person on SQLite)', async () => {
    const items = Array.from({ length: 30 }, () => ({ Op: 'create', Record: person() }));
    const { result, statements } = await statementsOf(t, () => bulk(items).expect(200));
    expect((result.body.Results as Json[]).every((r) => r.Status === 200)).toBe(true);
    const orgReads = statements.flatMap((s) => s.split(/;\n/)).filter((s) => /^\s*SELECT\b[\s\S]*\bFROM [`"]?organizations[`"]?/i.test(s));
    expect(orgReads).toHaveLength(DB_KIND === 'mysql' ? 1 : 30);
  });

  it('a check kept for the transaction is read again after the transaction writes its table', async () => {
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(site.siteId);
    const live = () =>
      db.remembered(ctx, OrganizationEntity, `live:${site.orgId}`, () => db.repo(ctx, OrganizationEntity).findOne({ id: site.orgId, deleted: false }));
    const seen = await db
      .transaction(ctx, async () => {
        const first = (await live()) !== null;
        const again = (await live()) !== null;
        await db.repo(ctx, OrganizationEntity).update(site.orgId, { deleted: true });
        const afterWrite = (await live()) !== null;
        throw Object.assign(new Error('roll back'), { seen: { first, again, afterWrite } });
      })
      .catch((e: { seen?: unknown }) => e.seen);
    expect(seen).toEqual({ first: true, again: true, afterWrite: false });
    // Rolled back: the organization is live.
    expect(await db.repo(ctx, OrganizationEntity).findOne({ id: site.orgId, deleted: false })).not.toBeNull();
  });

  it('a chunk whose carried inserts fail (a taken UserName) runs again item by item: the item is 409, the others are written whole, nothing of it is left', async () => {
    const taken = uniq('taken.');
    await bulk([{ Op: 'create', Record: person({ UserName: taken }) }]).expect(200);
    const before = await tally();
    const items = [
      { Op: 'create', Record: person() },
      { Op: 'create', Record: person() },
      // Upper case: the same identity (user names are compared without case), found only by the database's unique key.
      { Op: 'create', Record: person({ UserName: taken.toUpperCase() }) },
      { Op: 'create', Record: person() },
      { Op: 'upsert', Record: person({ ExternalID: uniq('HR-') }) },
    ];
    const { result: res, statements } = await statementsOf(t, () => bulk(items).expect(200));
    const results = res.body.Results as Json[];
    expect(results.map((r) => r.Status)).toEqual([200, 200, 409, 200, 200]);
    const sent = statements.flatMap((s) => s.split(/;\n/));
    const peopleInserts = sent.filter((s) => /^\s*INSERT INTO [`"]?individuals[`"]?\s/i.test(s)).map((s) => s.match(/\(\?(?:, \?)*\)/g)!.length);
    // MySQL/MariaDB: the five together first (the taken name fails them, the chunk is rolled back), then one by one.
    if (DB_KIND === 'mysql') {
      expect({ first: peopleInserts[0], rolledBack: sent.some((s) => /^\s*ROLLBACK\s*$/i.test(s)) }).toEqual({ first: 5, rolledBack: true });
      expect(peopleInserts.slice(1).length).toBeGreaterThanOrEqual(4);
      expect(peopleInserts.slice(1).every((n) => n === 1)).toBe(true);
    } else expect(peopleInserts).toEqual([1, 1, 1, 1]);
    expect((results[2].Problem as Json).type).toBe('urn:pms:problem:duplicate-username');
    expect(results[2].ID ?? null).toBeNull();
    expect(await tally()).toEqual(plus(before, 4));
    // Each written item is readable as its single write would have left it.
    for (const r of results.filter((x) => x.Status === 200)) {
      expect((await read(r.ID)).PrimaryOrganizationID).toBe(site.orgId);
    }
  });

  it('a chunk sends its carried inserts ahead while its next items run: 120 new people in slices on MySQL/MariaDB, every item written once', async () => {
    const before = await tally();
    const items = Array.from({ length: 120 }, () => ({ Op: 'upsert', Record: person({ ExternalID: uniq('HR-') }) }));
    const { result, statements } = await statementsOf(t, () => bulk(items).expect(200));
    expect((result.body.Results as Json[]).map((r) => r.Status)).toEqual(items.map(() => 200));
    const rowsOf = (table: string) =>
      statements
        .flatMap((s) => s.split(/;\n/))
        .filter((s) => new RegExp(`^\\s*INSERT INTO [\`"]?${table}[\`"]?\\s`, 'i').test(s))
        .map((s) => s.match(/\(\?(?:, \?)*\)/g)!.length);
    const slices = rowsOf('individuals');
    if (DB_KIND === 'mysql') {
      // A person is three carried inserts (account, person, membership): the first slice goes once its people are held.
      expect(slices[0]).toBe(SEND_AHEAD_BATCHES / 3);
      expect(slices.length).toBeGreaterThanOrEqual(2);
      expect(rowsOf('users')).toEqual(slices);
      expect(rowsOf('organization_members')).toEqual(slices);
    } else expect(slices).toEqual(items.map(() => 1));
    expect(slices.reduce((a, b) => a + b, 0)).toBe(120);
    expect(await tally()).toEqual(plus(before, 120));
  });

  it('a slice sent ahead that fails (a taken UserName) is followed by nothing but the ROLLBACK; the chunk runs again item by item, that item 409, the others written once', async () => {
    const taken = uniq('taken.');
    await bulk([{ Op: 'create', Record: person({ UserName: taken }) }]).expect(200);
    const before = await tally();
    const items = Array.from({ length: 120 }, (_, i) => ({
      Op: 'upsert',
      Record: person({ ExternalID: uniq('HR-'), ...(i === 10 ? { UserName: taken.toUpperCase() } : {}) }),
    }));
    const { result, statements } = await statementsOf(t, () => bulk(items).expect(200));
    const results = result.body.Results as Json[];
    expect(results.map((r) => r.Status)).toEqual(items.map((_, i) => (i === 10 ? 409 : 200)));
    expect((results[10].Problem as Json).type).toBe('urn:pms:problem:duplicate-username');
    if (DB_KIND === 'mysql') {
      const first = statements.findIndex((s) => /^\s*INSERT INTO [`"]?users[`"]?\s/im.test(s));
      expect(statements[first].match(/INSERT INTO [`"]?individuals[`"]?[^;]*/)![0].match(/\(\?(?:, \?)*\)/g)).toHaveLength(SEND_AHEAD_BATCHES / 3);
      expect(statements[first + 1]).toMatch(/^\s*ROLLBACK\s*$/i);
    }
    expect(await tally()).toEqual(plus(before, 119));
  });

  it('a request of more than two chunks, a taken UserName in the first and in the last: those two are 409, every other item is written whole, once', async () => {
    const taken = [uniq('taken.'), uniq('taken.')];
    await bulk(taken.map((name) => ({ Op: 'create', Record: person({ UserName: name }) }))).expect(200);
    const before = await tally();
    const n = 2 * BULK_CHUNK + 10;
    const failing = new Map([
      [7, taken[0]],
      [2 * BULK_CHUNK + 3, taken[1]],
    ]);
    const keys = Array.from({ length: n }, () => uniq('HR-'));
    const items = keys.map((key, i) => ({
      Op: 'upsert',
      Record: person({ ExternalID: key, ...(failing.has(i) ? { UserName: failing.get(i)!.toUpperCase() } : {}) }),
    }));
    const res = await bulk(items).expect(200);
    const results = res.body.Results as Json[];
    expect(results.map((r) => r.Index)).toEqual(items.map((_, i) => i));
    expect(results.map((r) => r.Status)).toEqual(items.map((_, i) => (failing.has(i) ? 409 : 200)));
    expect(res.body).toMatchObject({ Succeeded: n - 2, Failed: 2 });
    for (const i of failing.keys()) expect((results[i].Problem as Json).type).toBe('urn:pms:problem:duplicate-username');
    expect(await tally()).toEqual(plus(before, n - 2));
    // Each key names the person its item answered, exactly one; the failed items' keys name none.
    const rows = (await t.ds.query(`SELECT external_id AS k, id FROM individuals WHERE site_id = ? AND external_id IN (${keys.map(() => '?').join(', ')})`, [
      site.siteId,
      ...keys,
    ])) as { k: string; id: string }[];
    const byKey = new Map(rows.map((r) => [r.k, r.id]));
    expect(rows).toHaveLength(n - 2);
    keys.forEach((key, i) => expect(byKey.get(key) ?? null).toBe(failing.has(i) ? null : results[i].ID));
  });

  it('items of later chunks are validated as their single writes: an invalid Record is its 400, an upsert of a key created before it (by an earlier chunk or its own) is an update', async () => {
    // Chunk 1 creates `early`. Chunk 2 upserts it with a Record an update takes and a create refuses
    // (without PrimaryReportsTo, which only a create requires); creates `late` and, in the next item,
    // upserts it so too (known only once that item ran); creates one without LastName (400); updates
    // `early` with a FirstName too long (400); creates a valid one. Each item is validated as the
    // keys known when it runs say it is written, and answers as its single write would.
    const early = uniq('HR-early-');
    const first = person({ ExternalID: early });
    const { PrimaryReportsTo: _nobody, ParentID: _unused, ...again }: Json = { ...first, PrimaryTitle: 'Chunk two' };
    const late = person({ ExternalID: uniq('HR-late-') });
    const { PrimaryReportsTo: _none, ParentID: _no, ...lateAgain }: Json = { ...late, PrimaryTitle: 'Chunk two' };
    const plain = Array.from({ length: BULK_CHUNK - 1 }, () => ({ Op: 'upsert', Record: person({ ExternalID: uniq('HR-') }) }));
    const items: Json[] = [
      { Op: 'upsert', Record: first },
      ...plain,
      { Op: 'upsert', Record: again },
      { Op: 'create', Record: late },
      { Op: 'upsert', Record: lateAgain },
      { Op: 'create', Record: { ...person({ ExternalID: uniq('HR-') }), LastName: undefined } },
      { Op: 'update', Record: { ...again, FirstName: 'x'.repeat(5000) } },
      { Op: 'upsert', Record: person({ ExternalID: uniq('HR-late-') }) },
    ];
    const res = await bulk(items).expect(200);
    const results = res.body.Results as Json[];
    const tail = results.slice(BULK_CHUNK);
    expect(tail.map((r) => r.Status)).toEqual([200, 200, 200, 400, 400, 200]);
    expect(tail[0].ID).toBe(results[0].ID);
    expect(tail[2].ID).toBe(tail[1].ID);
    expect(((tail[3].Problem as Json).errors as Json[]).map((e) => e.field)).toEqual(['LastName']);
    expect(((tail[4].Problem as Json).errors as Json[]).map((e) => e.field)).toEqual(['FirstName']);
    expect(results.slice(0, BULK_CHUNK).every((r) => r.Status === 200)).toBe(true);
    expect(await read(results[0].ID)).toMatchObject({ ExternalID: early, PrimaryTitle: 'Chunk two', LastName: first.LastName });
    expect(await read(tail[1].ID)).toMatchObject({ ExternalID: late.ExternalID, PrimaryTitle: 'Chunk two' });
    // The same upsert as a create is refused, as the single POST refuses it.
    const alone = await bulk([{ Op: 'create', Record: { ...again, ExternalID: uniq('HR-'), UserName: uniq('carry.alone.') } }]).expect(200);
    expect(((alone.body.Results as Json[])[0].Problem as Json).status).toBe(400);
  });

  it('two bulk requests at once upserting the same 20 ExternalIDs leave exactly one person a key; every item 200 or 409, none 5xx', async () => {
    const keys = Array.from({ length: 20 }, () => uniq('HR-race-'));
    const items = () => keys.map((k) => ({ Op: 'upsert', Record: person({ ExternalID: k }) }));
    const [a, b] = await Promise.all([bulk(items()), bulk(items())]);
    expect([a.status, b.status]).toEqual([200, 200]);
    for (const r of [...(a.body.Results as Json[]), ...(b.body.Results as Json[])]) {
      expect([200, 409]).toContain(r.Status);
      if (r.Status === 409) expect((r.Problem as Json).type).toBe('urn:pms:problem:duplicate-external-id');
    }
    const rows = (await t.ds.query(
      `SELECT external_id AS k, COUNT(*) AS n FROM individuals WHERE site_id = ? AND external_id IN (${keys.map(() => '?').join(', ')}) GROUP BY external_id`,
      [site.siteId, ...keys],
    )) as { k: string; n: number | string }[];
    expect(rows.map((r) => [r.k, Number(r.n)]).sort()).toEqual(keys.map((k) => [k, 1]).sort());
  });

  it('two atomic bulk requests at once, each with an Idempotency-Key, upserting the same 20 ExternalIDs: each is all written or nothing written, and each key names exactly one person', async () => {
    const keys = Array.from({ length: 20 }, () => uniq('HR-race-'));
    const items = () => keys.map((k) => ({ Op: 'upsert', Record: person({ ExternalID: k }) }));
    const before = await tally();
    const answers = await Promise.all([0, 1].map(() => bulk(items(), '?atomic=true').set('Idempotency-Key', uniq('race-key-'))));
    let written = 0;
    for (const a of answers) {
      expect(a.status).toBe(200);
      const statuses = (a.body.Results as Json[]).map((r) => r.Status);
      if (a.body.Failed === 0) {
        // All written: each item created its person or updated the one the other request created.
        expect(statuses.every((x) => x === 200)).toBe(true);
        written++;
      } else {
        // Nothing written: the items that lost the race are 409, every other one 424.
        expect(statuses.every((x) => x === 409 || x === 424)).toBe(true);
        expect(statuses).toContain(409);
      }
    }
    expect(written).toBeGreaterThanOrEqual(1);
    const rows = (await t.ds.query(
      `SELECT external_id AS k, COUNT(*) AS n FROM individuals WHERE site_id = ? AND external_id IN (${keys.map(() => '?').join(', ')}) GROUP BY external_id`,
      [site.siteId, ...keys],
    )) as { k: string; n: number | string }[];
    expect(rows.map((r) => [r.k, Number(r.n)]).sort()).toEqual(keys.map((k) => [k, 1]).sort());
    // 20 people, with their accounts and memberships, whichever request wrote them; and their create audit rows once each.
    expect(await tally()).toEqual(plus(before, 20));
  });

  it('an atomic batch of 40 new people carries their inserts too: one INSERT a table on MySQL/MariaDB (one a person on SQLite), all written', async () => {
    const before = await tally();
    const items = Array.from({ length: 40 }, () => ({ Op: 'upsert', Record: person({ ExternalID: uniq('HR-') }) }));
    const { result, statements } = await statementsOf(t, () => bulk(items, '?atomic=true').expect(200));
    expect((result.body.Results as Json[]).map((r) => r.Status)).toEqual(items.map(() => 200));
    const sent = statements.flatMap((s) => s.split(/;\n/));
    const inserts = sent.filter((s) => /^\s*INSERT INTO [`"]?individuals[`"]?\s/i.test(s)).map((s) => s.match(/\(\?(?:, \?)*\)/g)!.length);
    expect(inserts).toEqual(DB_KIND === 'mysql' ? [40] : items.map(() => 1));
    expect(await tally()).toEqual(plus(before, 40));
  });

  it('a batch with an Idempotency-Key carries its inserts; when they fail (a taken UserName) the chunk goes back to its own savepoint and runs again item by item: that item 409, the others written whole, once, and the key answers the same again', async () => {
    const taken = uniq('taken.');
    await bulk([{ Op: 'create', Record: person({ UserName: taken }) }]).expect(200);
    const before = await tally();
    const items = [
      { Op: 'upsert', Record: person({ ExternalID: uniq('HR-') }) },
      { Op: 'create', Record: person() },
      { Op: 'create', Record: person({ UserName: taken.toUpperCase() }) },
      { Op: 'upsert', Record: person({ ExternalID: uniq('HR-') }) },
    ];
    const key = uniq('key-');
    const { result, statements } = await statementsOf(t, () => bulk(items).set('Idempotency-Key', key).expect(200));
    const results = result.body.Results as Json[];
    expect(results.map((r) => r.Status)).toEqual([200, 200, 409, 200]);
    expect((results[2].Problem as Json).type).toBe('urn:pms:problem:duplicate-username');
    const sent = statements.flatMap((s) => s.split(/;\n/));
    const peopleInserts = sent.filter((s) => /^\s*INSERT INTO [`"]?individuals[`"]?\s/i.test(s)).map((s) => s.match(/\(\?(?:, \?)*\)/g)!.length);
    if (DB_KIND === 'mysql') {
      // The four together first; the request's transaction goes on, back to the chunk's savepoint, never rolled back whole.
      expect(peopleInserts[0]).toBe(4);
      expect(sent.filter((s) => /^\s*ROLLBACK TO SAVEPOINT pms_sp\d+\s*$/i.test(s)).length).toBeGreaterThanOrEqual(1);
      expect(sent.some((s) => /^\s*ROLLBACK\s*$/i.test(s))).toBe(false);
      // Then one by one (the taken name's item may send its person before its account fails).
      expect(peopleInserts.slice(1).length).toBeGreaterThanOrEqual(3);
      expect(peopleInserts.slice(1).every((n) => n === 1)).toBe(true);
    } else expect(peopleInserts).toEqual([1, 1, 1]);
    expect(await tally()).toEqual(plus(before, 3));
    for (const r of results.filter((x) => x.Status === 200)) expect((await read(r.ID)).PrimaryOrganizationID).toBe(site.orgId);
    // The same request again with the key: the same answer, nothing written.
    const again = await bulk(items).set('Idempotency-Key', key).expect(200);
    expect(again.body.Results).toEqual(results);
    expect(await tally()).toEqual(plus(before, 3));
  });

  it('an atomic batch whose slice sent ahead fails (a taken UserName) goes back to the chunk’s savepoint and writes nothing: that item 409, every other 424', async () => {
    const taken = uniq('taken.');
    await bulk([{ Op: 'create', Record: person({ UserName: taken }) }]).expect(200);
    const before = await tally();
    const trail = await count('SELECT COUNT(*) AS n FROM audit_log WHERE site_id = ?', site.siteId);
    const items = Array.from({ length: 120 }, (_, i) => ({
      Op: 'upsert',
      Record: person({ ExternalID: uniq('HR-'), ...(i === 10 ? { UserName: taken.toUpperCase() } : {}) }),
    }));
    const { result, statements } = await statementsOf(t, () => bulk(items, '?atomic=true').expect(200));
    const results = result.body.Results as Json[];
    expect(results.map((r) => r.Status)).toEqual(items.map((_, i) => (i === 10 ? 409 : 424)));
    expect((results[10].Problem as Json).type).toBe('urn:pms:problem:duplicate-username');
    if (DB_KIND === 'mysql') {
      // The first slice went ahead and failed; the next statement is the return to the chunk's savepoint.
      const first = statements.findIndex((s) => /^\s*INSERT INTO [`"]?users[`"]?\s/im.test(s));
      expect(statements[first].match(/INSERT INTO [`"]?individuals[`"]?[^;]*/)![0].match(/\(\?(?:, \?)*\)/g)).toHaveLength(SEND_AHEAD_BATCHES / 3);
      expect(statements[first + 1]).toMatch(/^\s*ROLLBACK TO SAVEPOINT pms_sp\d+\s*$/i);
    }
    expect(await tally()).toEqual(before);
    expect(await count('SELECT COUNT(*) AS n FROM audit_log WHERE site_id = ?', site.siteId)).toBe(trail);
  });

  it('an atomic batch whose item fails at the database writes nothing', async () => {
    const taken = uniq('taken.');
    await bulk([{ Op: 'create', Record: person({ UserName: taken }) }]).expect(200);
    const before = await people();
    const res = await bulk(
      [
        { Op: 'create', Record: person() },
        { Op: 'create', Record: person({ UserName: taken }) },
      ],
      '?atomic=true',
    ).expect(200);
    expect((res.body.Results as Json[]).map((r) => r.Status)).toEqual([424, 409]);
    expect(await people()).toBe(before);
  });

  it('a manager created in the same chunk is found by the report that names it, sent in either order', async () => {
    const boss = uniq('HR-boss-');
    const report = uniq('HR-rep-');
    const res = await bulk([
      { Op: 'upsert', Record: person({ ExternalID: report }), ExternalRefs: { PrimaryReportsTo: boss } },
      { Op: 'upsert', Record: person({ ExternalID: boss }) },
    ]).expect(200);
    const [r0, r1] = res.body.Results as Json[];
    expect([r0.Status, r1.Status]).toEqual([200, 200]);
    expect((await read(r0.ID)).PrimaryReportsTo).toBe(r1.ID);
  });

  /** The chunks written beside a commit while `fn` runs, and those of them written again alone. */
  const overlapsOf = async (fn: () => Promise<unknown>) => {
    const before = { ...BULK_OVERLAP };
    await fn();
    return { started: BULK_OVERLAP.started - before.started, failed: BULK_OVERLAP.failed - before.failed };
  };

  it('two chunks at once (MariaDB): a chunk runs its items while the one before commits unless they name a record that one wrote, and the outcome is that of one chunk after another', async () => {
    const sqlite = t.app.get(TenantDb).isSqlite;
    const before = await tally();
    const n = 4 * BULK_CHUNK;
    const keys = Array.from({ length: n }, () => uniq('HR-'));
    const userNames = keys.map(() => uniq('carry.o.'));
    // The third chunk names three records of the second: its first item updates one, its second takes
    // another's user name in other letters, its third reports to a third. The second and the fourth
    // name nothing of the chunk before them.
    const [a, b, c] = [2 * BULK_CHUNK, 2 * BULK_CHUNK + 1, 2 * BULK_CHUNK + 2];
    const [updated, named, manager] = [BULK_CHUNK + 10, BULK_CHUNK + 50, BULK_CHUNK + 60];
    const items = keys.map((key, i) => {
      if (i === a) return { Op: 'upsert', Record: person({ ExternalID: keys[updated], UserName: userNames[updated], PrimaryTitle: 'Lead' }) };
      if (i === b) return { Op: 'upsert', Record: person({ ExternalID: key, UserName: userNames[named].toUpperCase() }) };
      if (i === c) return { Op: 'upsert', Record: person({ ExternalID: key, UserName: userNames[i] }), ExternalRefs: { PrimaryReportsTo: keys[manager] } };
      return { Op: 'upsert', Record: person({ ExternalID: key, UserName: userNames[i] }) };
    });
    let results: Json[] = [];
    const overlaps = await overlapsOf(async () => {
      results = (await bulk(items).expect(200)).body.Results as Json[];
    });
    // The second and the fourth chunks beside their predecessors' commits; the third after the second's.
    expect(overlaps).toEqual(sqlite ? { started: 0, failed: 0 } : { started: 2, failed: 0 });
    expect(results.map((r) => r.Index)).toEqual(items.map((_, i) => i));
    expect(results.map((r) => r.Status)).toEqual(items.map((_, i) => (i === b ? 409 : 200)));
    expect((results[b].Problem as Json).type).toBe('urn:pms:problem:duplicate-username');
    expect(results[a].ID).toBe(results[updated].ID);
    expect(await read(results[updated].ID)).toMatchObject({ ExternalID: keys[updated], PrimaryTitle: 'Lead' });
    expect((await read(results[c].ID)).PrimaryReportsTo).toBe(results[manager].ID);
    // Each item as its single write: n − 2 people created, and one update of the person of `updated`.
    expect(await tally()).toEqual(plus(before, n - 2));
    const updates = await count(
      "SELECT COUNT(*) AS n FROM audit_log WHERE site_id = ? AND action = 'update' AND kind = 'individual' AND row_id = ?",
      site.siteId,
      results[updated].ID,
    );
    expect(updates).toBe(1);
  });

  it('a chunk that fails beside the commit before it (MariaDB) is written again alone once that commit has ended: every item written once', async () => {
    const sqlite = t.app.get(TenantDb).isSqlite;
    const db = t.app.get(TenantDb);
    const before = await tally();
    const n = 3 * BULK_CHUNK;
    const items = Array.from({ length: n }, () => ({ Op: 'upsert', Record: person({ ExternalID: uniq('HR-') }) }));
    // The second chunk's transaction fails at once, as one whose connection was lost would.
    const carrying = db.transactionCarrying.bind(db);
    let calls = 0;
    const spy = jest.spyOn(db, 'transactionCarrying').mockImplementation((ctx, fn) => {
      calls++;
      if (calls === 2 && !sqlite) return Promise.reject(Object.assign(new Error('injected: connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' }));
      return carrying(ctx, fn);
    });
    let results: Json[] = [];
    try {
      const overlaps = await overlapsOf(async () => {
        results = (await bulk(items).expect(200)).body.Results as Json[];
      });
      expect(overlaps).toEqual(sqlite ? { started: 0, failed: 0 } : { started: 2, failed: 1 });
    } finally {
      spy.mockRestore();
    }
    expect(calls).toBe(sqlite ? 3 : 4);
    expect(results.map((r) => r.Status)).toEqual(items.map(() => 200));
    expect(await tally()).toEqual(plus(before, n));
  });
});
