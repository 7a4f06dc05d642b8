import { randomUUID } from 'node:crypto';
import { parse as parseCsv } from 'csv-parse/sync';
import { ImportJobEntity } from '../../src/database/entities/import-job.entity.js';
import { operatorsOf } from '../../src/http/wire/list-query.js';
import { ImportJob } from '../../src/modules/imports/dto/import-job.dto.js';
import { ImportProcessor } from '../../src/modules/imports/import-processor.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { bearer, DB_KIND, startApp, TestApp } from './harness.js';
import {
  type Case,
  cursorsUnderChurn,
  expectCsvLikeJson,
  expectCursorWalks,
  expectFields,
  expectFilterCases,
  expectRefusals,
  expectRefusedUncounted,
  expectSorts,
  getAs,
  grammarCases,
  ids,
  type Json,
  sortCompare,
  xmlIdsOf,
} from './list-query-grammar.js';

/**
 * The list of a site's import jobs, `GET /v4/imports` (docs/imports.md, docs/queries.md), a queried
 * list: jobs made by POST /v4/imports and driven by the processor by hand (IMPORTS=off, processOne),
 * as test/e2e/imports.e2e-spec.ts does, beside ended jobs of other kinds, modes, formats and states
 * written as rows (a job's row is the feature's bookkeeping: nothing else writes it). Newest first
 * in JSON and XML; every operator on every filterable field against the same filter in JavaScript;
 * sorts, fields, keyset paging, the CSV and NDJSON exports; another site's jobs never found nor
 * counted; a job whose file is still being received not listed; the roles; 400 problems.
 */
const CSV_HEADER = 'ExternalID,FirstName,LastName,UserName,Email,UserEmail,PrimaryOrganizationID,PrimaryTitle,PrimaryReportsTo';
const KINDS = ['individuals', 'departments', 'goals', 'accountabilities'];
const MODES = ['create', 'update', 'upsert'];
const FORMATS = ['csv', 'xlsx', 'ndjson', 'json', 'xml'];
const ENDED = ['succeeded', 'failed', 'cancelled'];

describe(`list queries on import jobs (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  /** A site with no job, for one whose file is being received. */
  let initech: TestSite;
  let member: TestPerson;
  let processor: ImportProcessor;
  /** Tokens with imports:read, with imports:write (which includes read), and with neither. */
  let reader: string;
  let writer: string;
  let stranger: string;
  /** The site's jobs, as the administrator reads them (newest first). */
  let all: Json[];
  /** The jobs made through the API: two ended, one cancelled, one queued. */
  const posted: Record<'csv' | 'json' | 'cancelled' | 'queued', string> = { csv: '', json: '', cancelled: '', queued: '' };
  /** Another site's jobs. */
  const elsewhere: string[] = [];

  const get = (path: string, token = acme.admin.token, xml = false) => getAs(t, path, token, xml);
  const as = (token: string) => (path: string, xml: boolean) => get(path, token, xml);
  const q = (s: string) => encodeURIComponent(s);
  const time = (v: unknown) => (v === null ? null : new Date(v as string).getTime());
  const upload = async (site: TestSite, query: string, type: string, body: string) => {
    const res = await t.http().post(`/v4/imports?${query}`).set('Authorization', bearer(site.admin.token)).set('Content-Type', type).send(body);
    if (res.status !== 202) throw new Error(`expected 202, got ${res.status}: ${res.text}`);
    return res.body.ID as string;
  };
  const drain = async () => {
    while (await processor.processOne()) {
      /* next */
    }
  };
  const person = (site: TestSite, ext: string) =>
    [ext, 'Ada', 'Lovelace', `imp.${ext}`.toLowerCase(), 'ada@example.test', 'ada@example.test', site.orgId, 'Analyst', ''].join(',');
  /** An ended job of the site, as a row: created and finished at the given instants. */
  const row = (site: TestSite, i: number, created: Date, finished: Date | null, over: Partial<ImportJobEntity> = {}): Partial<ImportJobEntity> => ({
    id: randomUUID(),
    siteId: site.siteId,
    kind: KINDS[i % KINDS.length],
    mode: MODES[i % MODES.length],
    format: FORMATS[i % FORMATS.length],
    state: ENDED[i % ENDED.length],
    active: null,
    fileBytes: 100 * (i + 1),
    parts: 0,
    totalRows: i % 4 === 3 ? null : 10 + i,
    nextRow: 10 + i,
    rowsWritten: 8 + (i % 3),
    rowsFailed: i % 3,
    caller: '{}',
    started: created,
    finished,
    problem: ENDED[i % ENDED.length] === 'failed' ? `Line ${i}: the file could not be read on` : null,
    created,
    updated: finished ?? created,
    ...over,
  });
  const jobs = () => t.ds.getRepository(ImportJobEntity);

  beforeAll(async () => {
    t = await startApp({ IMPORTS: 'off' });
    acme = await createSite(t);
    globex = await createSite(t);
    initech = await createSite(t);
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    processor = t.app.get(ImportProcessor);
    const token = async (scopes: string) =>
      (await t.http().post('/v4/apitokens').set('Authorization', bearer(acme.admin.token)).send({ Name: scopes, Scopes: scopes }).expect(200)).body
        .Secret as string;
    reader = await token('imports:read');
    writer = await token('imports:write individuals:write');
    stranger = await token('individuals:read');

    // Through the API: a CSV upserting two people (succeeded), a JSON update of nobody (succeeded, its row failed), an NDJSON cancelled before a replica took it.
    posted.csv = await upload(acme, 'kind=individuals&mode=upsert', 'text/csv', [CSV_HEADER, person(acme, 'LQ-1'), person(acme, 'LQ-2')].join('\r\n') + '\r\n');
    await drain();
    posted.json = await upload(acme, 'kind=individuals&mode=update', 'application/json', JSON.stringify([{ ExternalID: 'LQ-nobody', FirstName: 'No' }]));
    await drain();
    posted.cancelled = await upload(
      acme,
      'kind=individuals&mode=create',
      'application/x-ndjson',
      `${JSON.stringify({ ExternalID: 'LQ-3', FirstName: 'X' })}\n`,
    );
    await t.http().delete(`/v4/imports/${posted.cancelled}`).set('Authorization', bearer(acme.admin.token)).expect(200);
    // Another site's: one ended, one queued.
    elsewhere.push(await upload(globex, 'kind=individuals&mode=upsert', 'text/csv', [CSV_HEADER, person(globex, 'LQ-G')].join('\r\n') + '\r\n'));
    await drain();
    elsewhere.push(await upload(globex, 'kind=individuals&mode=update', 'application/json', JSON.stringify([{ ExternalID: 'LQ-nobody' }])));
    // The site's one queued job, left for no replica (IMPORTS=off).
    posted.queued = await upload(acme, 'kind=individuals&mode=upsert', 'application/x-ndjson', `${JSON.stringify({ ExternalID: 'LQ-4', FirstName: 'Q' })}\n`);

    // Ended jobs of 2025 as rows: two created at each instant (the ID orders them), finished a day later, three at the same instant.
    const rows = Array.from({ length: 14 }, (_, i) => {
      const created = new Date(Date.UTC(2025, Math.floor(i / 2), 1));
      const finished = i % 5 === 0 ? new Date(Date.UTC(2025, 11, 31)) : new Date(created.getTime() + 86_400_000);
      return row(acme, i, created, finished);
    });
    await jobs().insert(rows as never);
    const theirs = [0, 1, 2].map((i) => row(globex, i, new Date(Date.UTC(2025, 3, 1 + i)), new Date(Date.UTC(2025, 3, 2 + i))));
    await jobs().insert(theirs as never);
    elsewhere.push(...theirs.map((r) => r.id!));

    all = (await get('/v4/imports?limit=5000').expect(200)).body as Json[];
    expect(all.length).toBe(18);
  });
  afterAll(() => t?.close());

  it('lists the site’s jobs newest first, in JSON and XML, each as its GET answers it, with its total', async () => {
    const byCreated = (a: Json, b: Json) => sortCompare(time(a.Created), time(b.Created)) || sortCompare(a.ID, b.ID);
    expect(ids(all)).toEqual(ids([...all].sort((a, b) => -byCreated(a, b))));
    // The jobs made through the API are the newest: the queued one first.
    expect(ids(all).slice(0, 4)).toEqual([posted.queued, posted.cancelled, posted.json, posted.csv]);
    expect(all.slice(0, 4).map((r) => r.State)).toEqual(['queued', 'cancelled', 'succeeded', 'succeeded']);
    expect(all[2]).toMatchObject({ Kind: 'individuals', Mode: 'update', Format: 'json', RowsTotal: 1, RowsWritten: 0, RowsFailed: 1 });
    expect(all[3]).toMatchObject({ Kind: 'individuals', Mode: 'upsert', Format: 'csv', RowsTotal: 2, RowsWritten: 2, RowsFailed: 0 });
    for (const job of all) expect((await get(`/v4/imports/${job.ID}`).expect(200)).body).toEqual(job);
    const page = await get('/v4/imports?limit=5&offset=2').expect(200);
    expect(ids(page.body as Json[])).toEqual(ids(all).slice(2, 7));
    expect(page.headers['x-total-count']).toBe('18');
    expect(page.headers.link).toMatch(/<[^>]*offset=7[^>]*>; rel="next"/);
    const xml = await get('/v4/imports?limit=5000', acme.admin.token, true).expect(200);
    expect(xml.text).toMatch(/^(<\?xml[^>]*>)?<ArrayOfImportJob /);
    expect(xmlIdsOf(xml.text, 'ImportJob')).toEqual(ids(all));
    expect(xml.headers['x-total-count']).toBe('18');
  });

  it('answers every operator on every filterable field as JavaScript does, in JSON and XML, with its total', async () => {
    const filterable = [...ImportJob.queryable.values()].filter((f) => f.filter);
    expect(filterable.map((f) => f.name)).toEqual(['ID', 'Kind', 'Mode', 'Format', 'State', 'Created', 'Finished']);
    const cases: Case[] = grammarCases(ImportJob.queryable, all);
    for (const f of filterable) for (const op of operatorsOf(f.kind)) expect(cases.some((c) => c.filter.startsWith(`${f.name} ${op}`))).toBe(true);
    cases.push(
      { filter: 'State eq "queued"', pred: (r) => r.State === 'queued' },
      { filter: 'State eq "FAILED" and Kind ne "goals"', pred: (r) => r.State === 'failed' && r.Kind !== 'goals' },
      { filter: 'Finished eq null', pred: (r) => r.Finished === null },
      {
        filter: '(Format eq "csv" or Format eq "xlsx") and not (Mode eq "create") and Created lt "2025-10-01"',
        pred: (r) => ['csv', 'xlsx'].includes(r.Format as string) && r.Mode !== 'create' && time(r.Created)! < Date.UTC(2025, 9, 1),
      },
      {
        filter: 'Finished ge "2025-12-31" or State eq "cancelled"',
        pred: (r) => (r.Finished !== null && time(r.Finished)! >= Date.UTC(2025, 11, 31)) || r.State === 'cancelled',
      },
    );
    await expectFilterCases(as(acme.admin.token), ['/v4/imports?limit=5000'], cases, all, 'ImportJob');
    // A token with imports:read answers the same.
    const res = await get(`/v4/imports?filter=${q('State eq "succeeded"')}`, reader).expect(200);
    expect(ids(res.body as Json[])).toEqual(ids(all.filter((r) => r.State === 'succeeded')));
  });

  it('is for administrators and tokens with imports:read: anonymous 401, a member and another token 403, without a total', async () => {
    const paths = ['/v4/imports', `/v4/imports?filter=${q('State eq "queued"')}`, '/v4/imports?cursor=start'];
    await expectRefusedUncounted(t, paths, [
      ['member', member.token],
      ['token without imports:read', stranger],
    ]);
    for (const path of paths) {
      for (const token of [reader, writer]) expect({ path, status: (await get(path, token)).status }).toEqual({ path, status: 200 });
    }
    await t.http().get('/v4/imports').set('Authorization', bearer(member.token)).set('Accept', 'text/csv').expect(403);
    await t.http().get('/v4/imports').set('Authorization', bearer(stranger)).set('Accept', 'text/csv').expect(403);
    await t.http().get('/v4/imports').set('Accept', 'text/csv').expect(401);
  });

  it('never finds nor counts another site’s jobs', async () => {
    expect(elsewhere.length).toBe(5);
    for (const id of elsewhere) {
      const res = await get(`/v4/imports?filter=${q(`ID eq "${id}"`)}`).expect(200);
      expect({ id, found: res.body, total: res.headers['x-total-count'] }).toEqual({ id, found: [], total: '0' });
    }
    expect(ids(all).some((id) => elsewhere.includes(id))).toBe(false);
    // Their queued job is not this site's: the site's own queued job is the one found.
    const queued = await get(`/v4/imports?filter=${q('State eq "queued"')}`).expect(200);
    expect({ ids: ids(queued.body as Json[]), total: queued.headers['x-total-count'] }).toEqual({ ids: [posted.queued], total: '1' });
    // And the other site's administrator sees theirs only.
    const theirs = await get('/v4/imports?limit=5000', globex.admin.token).expect(200);
    expect(new Set(ids(theirs.body as Json[]))).toEqual(new Set(elsewhere));
    expect(theirs.headers['x-total-count']).toBe('5');
  });

  it('does not list a job whose file is still being received; listed from its 202 on, as its GET answers it', async () => {
    const receiving = randomUUID();
    await jobs().insert(
      row(initech, 0, new Date(), null, {
        id: receiving,
        state: 'receiving',
        active: 1,
        leaseUntil: new Date(Date.now() + 3_600_000),
        started: null,
        problem: null,
      }) as never,
    );
    // Its GET answers it queued (the 409 of another POST names it) …
    expect((await get(`/v4/imports/${receiving}`, initech.admin.token).expect(200)).body).toMatchObject({ ID: receiving, State: 'queued' });
    const conflict = await t
      .http()
      .post('/v4/imports?kind=individuals&mode=upsert')
      .set('Authorization', bearer(initech.admin.token))
      .set('Content-Type', 'text/csv')
      .send(`${CSV_HEADER}\r\n${person(initech, 'LQ-5')}\r\n`)
      .expect(409);
    expect(conflict.text).toContain(`/v4/imports/${receiving}`);
    // … but no list finds nor counts it, whatever the filter, nor exports it.
    for (const filter of ['', 'State eq "queued"', `ID eq "${receiving}"`, 'Finished eq null', 'State pr']) {
      const res = await get(`/v4/imports?limit=5000${filter ? `&filter=${q(filter)}` : ''}`, initech.admin.token).expect(200);
      expect({ filter, found: res.body, total: res.headers['x-total-count'] }).toEqual({ filter, found: [], total: '0' });
    }
    expect((await get('/v4/imports?cursor=start', initech.admin.token).expect(200)).body).toEqual([]);
    const csv = await t.http().get('/v4/imports').set('Authorization', bearer(initech.admin.token)).set('Accept', 'text/csv').buffer(true).expect(200);
    expect(csv.text).not.toContain(receiving);
    // Received: listed, queued, and counted.
    await jobs().update({ siteId: initech.siteId, id: receiving }, { state: 'queued' });
    const res = await get(`/v4/imports?filter=${q('State eq "queued"')}`, initech.admin.token).expect(200);
    expect({ ids: ids(res.body as Json[]), total: res.headers['x-total-count'] }).toEqual({ ids: [receiving], total: '1' });
    expect((res.body as Json[])[0]).toEqual((await get(`/v4/imports/${receiving}`, initech.admin.token).expect(200)).body);
  });

  it('sorts by Created and Finished, in JSON and XML, and answers only the fields asked for', async () => {
    const byCreated = (a: Json, b: Json) => sortCompare(time(a.Created), time(b.Created)) || sortCompare(a.ID, b.ID);
    const byFinished = (a: Json, b: Json) => sortCompare(time(a.Finished), time(b.Finished)) || sortCompare(a.ID, b.ID);
    // Without sort=, a queried list keeps the list's own order.
    expect(ids((await get(`/v4/imports?limit=5000&filter=${q('ID pr')}`).expect(200)).body as Json[])).toEqual(ids(all));
    await expectSorts(
      as(acme.admin.token),
      '/v4/imports?limit=5000',
      all,
      [
        ['Created', byCreated],
        ['-Created', (a, b) => -byCreated(a, b)],
        ['Finished', byFinished],
        ['-Finished', (a, b) => -byFinished(a, b)],
      ],
      'ImportJob',
    );
    await expectFields(
      as(acme.admin.token),
      '/v4/imports',
      all,
      'ImportJob',
      ['state,RowsFailed,Kind', ['ID', 'Kind', 'State', 'RowsFailed']],
      ['Finished,State', ['Finished', 'ID', 'State']],
    );
  });

  it('pages by cursor with Link: rel="next", every job once in each order, also while others are written and deleted', async () => {
    await expectCursorWalks((url) => get(url).expect(200), '/v4/imports', 4, ['', '&sort=Finished', '&sort=-Created']);
    const first = await get('/v4/imports?limit=4&cursor=start').expect(200);
    expect(first.headers['x-total-count']).toBeUndefined();
    expect(first.headers.link).toMatch(/<\/v4\/imports\?[^>]*cursor=[^>]+>; rel="next"/);
    await cursorsUnderChurn<string>({
      get: (url) => get(url).expect(200),
      first: `/v4/imports?limit=4&cursor=start&filter=${q('Kind eq "churn"')}`,
      sorts: ['', 'Finished', '-Created'],
      stable: 10,
      churn: 6,
      insert: async (i) => {
        const r = row(acme, i, new Date(Date.UTC(2024, 0, 1, 0, 0, i % 7)), new Date(Date.UTC(2024, 0, 2, 0, 0, i % 5)), { kind: 'churn' });
        await jobs().insert(r as never);
        return r.id!;
      },
      remove: (id) => jobs().delete({ siteId: acme.siteId, id }),
      label: { list: 'imports' },
    });
    expect((await get(`/v4/imports?filter=${q('Kind eq "churn"')}`).expect(200)).body).toEqual([]);
  });

  it('exports the same jobs as CSV and NDJSON for the same query', async () => {
    expect(await expectCsvLikeJson(t, `/v4/imports?sort=-Finished&filter=${q('State ne "failed"')}`, acme.admin.token, 'imports')).toBe(
      all.filter((r) => r.State !== 'failed').length,
    );
    expect(await expectCsvLikeJson(t, '/v4/imports?fields=State,Kind,Finished', reader, 'imports')).toBe(all.length);
    const csv = await t.http().get('/v4/imports').set('Authorization', bearer(acme.admin.token)).set('Accept', 'text/csv').buffer(true).expect(200);
    const [header, ...lines] = parseCsv(csv.text) as string[][];
    expect(lines.map((l) => l[header.indexOf('ID')])).toEqual(ids(all));
    const ndjson = await t
      .http()
      .get(`/v4/imports?filter=${q('Kind eq "individuals"')}`)
      .set('Authorization', bearer(acme.admin.token))
      .set('Accept', 'application/x-ndjson')
      .buffer(true)
      .parse((r, done) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (c: string) => (text += c));
        r.on('end', () => done(null, text));
      })
      .expect(200);
    const records = (ndjson.body as string)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Json);
    expect(records).toEqual(all.filter((r) => r.Kind === 'individuals'));
  });

  it('answers 400 problems naming what it cannot answer, never 500, in JSON and XML', async () => {
    await expectRefusals(
      (path, xml) => get(path, acme.admin.token, xml),
      ['/v4/imports'],
      [
        ['filter=Nope eq "x"', 'filter', /Unknown field Nope.*filterable: ID, Kind, Mode, Format, State, Created, Finished/],
        ['filter=RowsFailed gt 0', 'filter', /Unknown field RowsFailed/],
        ['filter=Problem co "line"', 'filter', /Unknown field Problem/],
        ['filter=State gt 3', 'filter', /quoted string/],
        ['filter=Created gt "soon"', 'filter', /date/],
        ['filter=State eq "queued" and', 'filter', /./],
        ['sort=State', 'sort', /not sortable.*sortable: Created, Finished/],
        ['sort=Created,Created', 'sort', /./],
        ['fields=ID,Nope', 'fields', /Unknown field Nope/],
        ['cursor=garbage', 'cursor', /not one this list gave/],
        ['cursor=start&offset=3', 'offset', /not taken with cursor/],
      ],
    );
    // Another list's cursor is not this list's.
    const start = await get('/v4/apitokens?limit=1&cursor=start').expect(200);
    const cursor = new URL(/<([^>]+)>/.exec(String(start.headers.link))![1], 'http://x').searchParams.get('cursor')!;
    const res = await get(`/v4/imports?limit=1&cursor=${q(cursor)}`).expect(400);
    expect((res.body as { errors: { field: string }[] }).errors[0].field).toBe('cursor');
    // Asked as changes: the jobs are no records of the change log.
    const changes = await get('/v4/imports?updatedSince=seq-0').expect(400);
    expect(JSON.stringify(changes.body)).toMatch(/Import jobs are the import’s working state/);
  });
});
