import { randomUUID } from 'node:crypto';
import { RequestContext } from '../../src/common/context/request-context.js';
import { ColorEntity } from '../../src/database/entities/color.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { AuditEntry } from '../../src/modules/audit/dto/audit.dto.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { bearer, DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  cursorsUnderChurn,
  expectCsvLikeJson,
  expectFields,
  expectFilterCases,
  expectRefusals,
  expectRefusedUncounted,
  expectSorts,
  exportTexts,
  getAs,
  grammarCases,
  ids,
  type Json,
  sortCompare,
} from './list-query-grammar.js';

/**
 * `filter=`, `sort=`, `fields=` and `cursor=` on the audit trail (`GET /v4/audit`, docs/queries.md),
 * administrators only. Its entries have no ID: they are keyed by Seq, the site's change sequence
 * number. Every operator on every filterable field (int, string, nullable string, instant) against
 * the same filter in JavaScript, in JSON and XML; another site's entries before the filter and the
 * total; the roles; keyset paging while others write and entries are pruned; the exports with a
 * formula-like actor name; 400 problems, among them the trail's own parameters with a query.
 */
describe(`list queries on the audit trail (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  let all: Json[];
  const elsewhere: string[] = [];
  const LIST = '/v4/audit?limit=200';

  const get = (path: string, token: string, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const db = () => t.app.get(TenantDb);
  /** A write by the service on behalf of an actor (the trail names them: docs/audit.md, "The actor"). */
  const actor = (siteId: string, k: number) =>
    k % 3 === 0
      ? RequestContext.system(siteId)
      : RequestContext.system(siteId, { individualId: `actor-${k % 4}-${siteId.slice(0, 4)}`, userName: k % 2 ? '=SUM(A1)' : `Agent ${k}` });
  const color = (i: number) => ({ name: `Tone ${i}`, colorValue: i, minPercent: i, maxPercent: i + 10, rank: i % 3 });
  const seqsOf = (rows: Json[]) => rows.map((r) => r.Seq as number);

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    globex = await createSite(t);
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    for (let i = 0; i < 12; i++) {
      const ctx = actor(acme.siteId, i);
      const row = await db().repo(ctx, ColorEntity).insert(color(i));
      if (i % 3 === 1)
        await db()
          .repo(ctx, ColorEntity)
          .update(row.id, { name: `Shade ${i}` });
      if (i % 4 === 2) await db().repo(ctx, ColorEntity).remove(row.id);
    }
    // Through the API too: the administrator as actor, with a request id.
    for (let i = 0; i < 3; i++) {
      await t
        .http()
        .post('/v4/colors')
        .set('Authorization', bearer(acme.admin.token))
        .set('X-Request-Id', randomUUID())
        .send({ Name: `Api ${i}`, ColorValue: 1, MinPercent: 0, MaxPercent: 50 })
        .expect(200);
    }
    for (let i = 0; i < 4; i++) elsewhere.push(String((await db().repo(actor(globex.siteId, i), ColorEntity).insert(color(i))).id));
    all = (await get(LIST, acme.admin.token).expect(200)).body as Json[];
    expect(all.length).toBeGreaterThan(20);
    expect(all.length).toBeLessThan(200);
  });
  afterAll(() => t?.close());

  it('answers every operator on every filterable field (int, string, instant) as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...AuditEntry.queryable.values()].filter((f) => f.filter);
    expect(filterable.map((f) => [f.name, f.kind])).toEqual([
      ['Seq', 'int'],
      ['Kind', 'string'],
      ['RowID', 'string'],
      ['ActorID', 'string'],
      ['At', 'dateTimeOffset'],
    ]);
    const cases: Case[] = grammarCases(AuditEntry.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    const some = all[Math.floor(all.length / 2)];
    cases.push(
      { filter: 'Kind eq "color" and ActorID eq null', pred: (r) => r.Kind === 'color' && r.ActorID === null },
      {
        filter: `Seq lt ${some.Seq as number} and (ActorID sw "actor-1" or not (Kind eq "color"))`,
        pred: (r) => (r.Seq as number) < (some.Seq as number) && (String(r.ActorID ?? '').startsWith('actor-1') || r.Kind !== 'color'),
      },
      { filter: `At ge "${some.At as string}"`, pred: (r) => new Date(r.At as string) >= new Date(some.At as string) },
    );
    await expectFilterCases(as(acme.admin.token), [LIST], cases, all, 'AuditEntry', 'Seq');
  });

  it('never finds another site’s entries, nor counts them, though they share sequence numbers, kinds and actors’ names', async () => {
    for (const id of elsewhere) {
      const res = await get(
        `/v4/audit?filter=${q(`RowID eq "${id}" and Kind eq "color" and ActorID sw "actor-" and ActorID ew "${globex.siteId.slice(0, 4)}"`)}`,
        acme.admin.token,
      ).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    const theirs = (await get(LIST, globex.admin.token).expect(200)).body as Json[];
    for (const f of ['Seq le 3', 'Kind eq "color"', 'ActorID pr', `At ge "${theirs[theirs.length - 1].At as string}"`]) {
      const res = await get(`/v4/audit?limit=200&filter=${q(f)}`, acme.admin.token).expect(200);
      const found = res.body as Json[];
      expect(found.every((r) => all.some((a) => a.Seq === r.Seq && a.RowID === r.RowID && a.At === r.At))).toBe(true);
      expect(found.some((r) => String(r.ActorID ?? '').endsWith(globex.siteId.slice(0, 4)))).toBe(false);
      expect({ f, total: res.headers['x-total-count'] }).toEqual({ f, total: String(found.length) });
    }
  });

  it('sorts by Seq (newest first, its own order) and At, in JSON and XML, and answers only the fields asked for', async () => {
    const bySeq = (a: Json, b: Json) => (a.Seq as number) - (b.Seq as number);
    const byAt = (a: Json, b: Json) => sortCompare(new Date(a.At as string).getTime(), new Date(b.At as string).getTime()) || bySeq(a, b);
    expect(seqsOf((await get(`${LIST}&filter=${q('Seq pr')}`, acme.admin.token).expect(200)).body as Json[])).toEqual(
      seqsOf([...all].sort((a, b) => -bySeq(a, b))),
    );
    await expectSorts(
      as(acme.admin.token),
      LIST,
      all,
      [
        ['Seq', bySeq],
        ['-Seq', (a, b) => -bySeq(a, b)],
        ['At', byAt],
        ['-At', (a, b) => -byAt(a, b)],
      ],
      'AuditEntry',
      'Seq',
    );
    await expectFields(
      as(acme.admin.token),
      '/v4/audit',
      all,
      'AuditEntry',
      ['at,seq,kind,Changes', ['Seq', 'Kind', 'Changes', 'At']],
      ['RowID,ActorName,Seq', ['ActorName', 'RowID', 'Seq']],
      'Seq',
    );
    // The key is not added: an entry has no ID, and Seq is answered when asked for.
    const bare = (await get('/v4/audit?fields=Kind&limit=2', acme.admin.token).expect(200)).body as Json[];
    expect(bare).toEqual(all.slice(0, 2).map((r) => ({ Kind: r.Kind })));
  });

  it('exports the same entries as CSV for the same query, formula-like actor names neutralized, and as XLSX and NDJSON', async () => {
    const formulas = all.filter((r) => r.ActorName === '=SUM(A1)').length;
    expect(formulas).toBeGreaterThan(0);
    expect(await expectCsvLikeJson(t, `/v4/audit?sort=At&filter=${q('Kind eq "color"')}`, acme.admin.token, 'audit', 200)).toBe(
      all.filter((r) => r.Kind === 'color').length,
    );
    const csv = await t
      .http()
      .get(`/v4/audit?fields=Seq,ActorName&filter=${q('ActorID pr')}`)
      .set('Authorization', bearer(acme.admin.token))
      .set('Accept', 'text/csv')
      .expect(200);
    expect(csv.text.split('\r\n').filter((l) => l.endsWith(",'=SUM(A1)") || l.startsWith("'=SUM(A1)")).length).toBe(formulas);
    const [, ndjson, xlsx] = await exportTexts(t, '/v4/audit?fields=Seq', acme.admin.token);
    expect(
      ndjson
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Json).Seq),
    ).toEqual(seqsOf(all));
    expect(xlsx.startsWith('PK')).toBe(true);
  });

  it('pages with a cursor while others write and entries are pruned: every entry present throughout exactly once', async () => {
    const [{ n }] = (await t.ds.query('SELECT MAX(seq) AS n FROM audit_log WHERE site_id = ?', [acme.siteId])) as { n: number }[];
    await cursorsUnderChurn<number>({
      get: (url) => get(url, acme.admin.token).expect(200),
      first: `/v4/audit?limit=4&cursor=start&filter=${q(`Seq gt ${Number(n)}`)}`,
      sorts: ['', '-At', 'Seq'],
      stable: 10,
      churn: 6,
      insert: async (i) => {
        await db()
          .repo(actor(acme.siteId, i), ColorEntity)
          .insert(color(100 + i));
        const [{ m }] = (await t.ds.query('SELECT MAX(seq) AS m FROM audit_log WHERE site_id = ?', [acme.siteId])) as { m: number }[];
        return Number(m);
      },
      remove: (seq) => t.ds.query('DELETE FROM audit_log WHERE site_id = ? AND seq = ?', [acme.siteId, seq]),
      label: { list: 'audit' },
      key: 'Seq',
    });
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    await expectRefusals(
      (path, xml) => get(path, acme.admin.token, xml),
      ['/v4/audit'],
      [
        ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: Seq, Kind, RowID, ActorID, At/],
        ['filter=Changes co "x"', 'filter', /Unknown field Changes/],
        ['filter=Action eq "delete"', 'filter', /Unknown field Action/],
        ['filter=Seq eq "7"', 'filter', /takes a number/],
        ['filter=At gt "yesterday"', 'filter', /quoted date/],
        ['filter=Kind xx "a"', 'filter', /./],
        ['sort=Kind', 'sort', /not sortable.*sortable: Seq, At/],
        ['fields=ID', 'fields', /Unknown field ID/],
        ['cursor=garbage', 'cursor', /not one this list gave/],
        ['cursor=start&offset=2', 'offset', /not taken with cursor/],
        ['filter=Seq pr&kind=color', 'kind', /not taken with filter=/],
        ['sort=At&before=5', 'before', /not taken with filter=/],
        ['filter=Seq pr&limit=201', 'limit', /./],
      ],
    );
    // The trail's own parameters alone keep answering as before.
    const own = (await get('/v4/audit?kind=color&limit=200', acme.admin.token).expect(200)).body as Json[];
    expect(ids(own, 'Seq')).toEqual(
      ids(
        all.filter((r) => r.Kind === 'color'),
        'Seq',
      ),
    );
  });

  it('is for administrators (and tokens that may read it): anonymous is 401, anyone else 403 whatever the filter, by offset or by cursor, and no export', async () => {
    const token = (
      await t.http().post('/v4/apitokens').set('Authorization', bearer(acme.admin.token)).send({ Name: 'reader', Scopes: 'colors:read' }).expect(200)
    ).body.Secret as string;
    await expectRefusedUncounted(
      t,
      [`/v4/audit?filter=${q('Kind eq "color"')}`, `/v4/audit?cursor=start&filter=${q('ActorID pr')}`],
      [
        ['member', member.token],
        ['colors:read token', token],
      ],
    );
    await t.http().get('/v4/audit').set('Authorization', bearer(member.token)).set('Accept', 'text/csv').expect(403);
    await t.http().get('/v4/audit').set('Accept', 'text/csv').expect(401);
  });
});
