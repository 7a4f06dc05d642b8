import { randomBytes } from 'node:crypto';
import { get as httpGet, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { RequestContext } from '../../src/common/context/request-context.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationEntity, ROW_TYPE_ORGANIZATION } from '../../src/database/entities/organization.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { XLSX_ZIP_BACKLOG, XlsxSheet } from '../../src/http/wire/xlsx-sheet.js';
import { IndividualsService } from '../../src/modules/individuals/individuals.service.js';
import { createPerson, createSite, type TestPerson, type TestSite } from '../factories/index.js';
import { createDepartment, insertManyPeople } from '../factories/individuals.js';
import { denyRead } from '../factories/permissions.js';
import { bearer, DB_KIND, startApp, type TestApp } from './harness.js';
import { asCsvText, type Cell, expectedCell, rawBody } from './list-query-grammar.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Streamed exports of lists (docs/exports.md): CSV, XLSX and NDJSON of the queried lists read back
 * (csv-parse, exceljs) to exactly the rows the JSON list gives for the same filter, sort and
 * fields; formula injection neutralized; another site's and denied records absent; Accept with
 * q-values, 406, 400; a slow client stops the reads and a client that hangs up stops them for
 * good; a failure before the first byte is a problem, after it an aborted answer.
 */
type Json = Record<string, unknown>;

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const BATCH = 10;

/** The port of the app's server, listening (supertest otherwise starts it for each request). */
async function portOf(t: TestApp): Promise<number> {
  const server = t.app.getHttpServer() as Server;
  if (!server.listening) await new Promise<void>((r) => server.listen(0, r));
  return (server.address() as AddressInfo).port;
}

/** A GET read to its end or its abort: the status, and whether the whole answer came. */
async function rawGet(t: TestApp, path: string, headers: Record<string, string>): Promise<{ status: number; complete: boolean }> {
  const port = await portOf(t);
  return new Promise((resolve) => {
    const req = httpGet({ port, path, headers, agent: false }, (r) => {
      r.on('data', () => undefined);
      r.on('error', () => undefined);
      r.on('close', () => resolve({ status: r.statusCode!, complete: r.complete }));
    });
    req.on('error', () => resolve({ status: 0, complete: false }));
  });
}

async function xlsxRows(body: Buffer): Promise<Cell[][]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(body as unknown as ArrayBuffer);
  const sheet = wb.worksheets[0];
  const rows: Cell[][] = [];
  const width = sheet.getRow(1).cellCount;
  sheet.eachRow({ includeEmpty: true }, (row) => {
    const out: Cell[] = [];
    for (let i = 1; i <= width; i++) {
      const v = row.getCell(i).value;
      out.push(v === undefined || v === null ? null : (v as Cell));
    }
    rows.push(out);
  });
  return rows;
}

describe(`list exports (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  let hidden: TestPerson;
  let globalAdmin: string;

  const get = (path: string, token: string, accept: string) => t.http().get(path).set('Authorization', bearer(token)).set('Accept', accept);
  const download = (path: string, token: string, accept: string) => get(path, token, accept).buffer(true).parse(rawBody);
  const json = async (path: string, token: string): Promise<Json[]> => (await get(path, token, 'application/json').expect(200)).body as Json[];
  /** The wire names of a list's records in ordinal order (the export's columns). */
  const ordinal = (rows: Json[]) => Object.keys(rows[0]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  /**
   * Spies on the individuals list and runs `write` once, between the export's read of its second
   * batch and its first read ahead: the read ahead waits until the second batch has been answered
   * (the two are under way together, so on MariaDB the second could otherwise see the write too).
   */
  const writeBeforeFirstReadAhead = (write: () => Promise<unknown>) => {
    const service = t.app.get(IndividualsService);
    const real = service.list.bind(service);
    const fromCursor: Promise<unknown>[] = [];
    let written = false;
    return jest.spyOn(service, 'list').mockImplementation(async (ctx, q) => {
      if (!(q as { offset?: number }).offset) {
        const read = real(ctx, q);
        fromCursor.push(read);
        return read;
      }
      if (!written) {
        written = true;
        while (fromCursor.length < 2) await new Promise((r) => setImmediate(r));
        await fromCursor[1];
        await write();
      }
      return real(ctx, q);
    });
  };
  /** The IDs of every individual of acme (deleted ones too) in the order an NDJSON export writes them. */
  const exportedIds = async () =>
    ((await download('/v4/individuals?deleted=2', acme.admin.token, 'application/x-ndjson').expect(200)).body as Buffer)
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as Json).ID as string);
  const withQuery = (path: string, query: string) => (query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path);

  beforeAll(async () => {
    t = await startApp({ EXPORT_BATCH_ROWS: String(BATCH), EXPORT_PROGRESS_ROWS: '25', LOG_LEVEL: 'info' });
    globalAdmin = t.adminToken;
    acme = await createSite(t);
    globex = await createSite(t);
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const people: Partial<IndividualEntity>[] = [];
    // Names a spreadsheet would run as formulas, and ordinary ones with commas, quotes and line breaks.
    const hostile = ['=HYPERLINK("http://x.test","click")', '+1+1', '-2+3', '@SUM(A1)', '\tTab', '\rReturn', 'Smith, "Jr."', 'Line\nBreak', 'Zoë'];
    for (let i = 0; i < 34; i++) {
      people.push({
        firstName: i < hostile.length ? hostile[i] : `First${i}`,
        lastName: `Last${String(i % 17).padStart(2, '0')}`,
        email: i % 5 === 0 ? null : `p${i}@acme.test`,
        hireDate: i % 4 === 0 ? null : new Date(Date.UTC(2020 + (i % 6), i % 12, 1 + (i % 27))),
        primaryOrganizationId: acme.orgId,
        primaryTitle: i === 3 ? '=1+2' : 'Staff',
        primaryReportsTo: i % 3 === 0 ? acme.admin.individualId : null,
        deleted: i % 11 === 0,
        externalId: i % 7 === 0 ? null : `HR-${i}`,
      });
    }
    for (const p of people) await db.repo(ctx, IndividualEntity).insert(p);
    for (let i = 0; i < 23; i++)
      await createDepartment(t, acme.siteId, { name: i === 0 ? '=cmd|"/c calc"!A1' : `Dept ${String(i).padStart(2, '0')}`, deleted: i % 6 === 0 });
    for (let i = 0; i < 12; i++) {
      await db
        .repo(ctx, OrganizationEntity)
        .insert({ name: i === 0 ? '@org' : `Org ${String(i).padStart(2, '0')}`, rowType: ROW_TYPE_ORGANIZATION, rank: i % 3, deleted: i % 5 === 4 });
    }
    for (let i = 0; i < 4; i++) await createPerson(t, globex, { firstName: 'Other', lastName: `Globex${i}` });
    await createDepartment(t, globex.siteId, { name: 'Globex dept' });
    member = await createPerson(t, acme, { firstName: 'Mem', lastName: 'Ber' });
    hidden = await createPerson(t, acme, { firstName: 'Hid', lastName: 'Den' });
    await denyRead(t, acme.admin.token, hidden.individualId, member.userId);
  });
  afterAll(() => t?.close());

  // ------------------------------------------------------------------ the rows the JSON list gives

  const lists = () => [
    { path: '/v4/individuals', file: 'individuals' },
    { path: `/v4/sites/${acme.siteId}/individuals`, file: 'individuals' },
    { path: '/v4/departments', file: 'departments' },
    { path: `/v4/sites/${acme.siteId}/departments`, file: 'departments' },
    { path: '/v4/organizations', file: 'organizations' },
  ];
  const queriesOf = (path: string) =>
    path.endsWith('individuals')
      ? [
          '',
          'deleted=2',
          `filter=${encodeURIComponent('LastName sw "Last0" or Email co "1"')}&sort=-HireDate,LastName`,
          'fields=UserName,HireDate,FirstName&sort=FirstName&deleted=2',
        ]
      : ['', 'deleted=2&sort=-Name', `filter=${encodeURIComponent('Name co "0" or Name sw "=" or Name sw "@"')}&fields=Name,Deleted&deleted=2`];

  it('answers CSV, XLSX and NDJSON with exactly the rows and columns the JSON list gives, read in batches', async () => {
    const calls = jest.spyOn(t.app.get(IndividualsService), 'list');
    for (const { path, file } of lists()) {
      for (const query of queriesOf(path)) {
        const all = await json(withQuery(path, `${query}${query ? '&' : ''}limit=5000`), acme.admin.token);
        const label = withQuery(path, query);
        expect({ label, some: all.length > 0 }).toEqual({ label, some: true });
        const columns = ordinal(all);
        const cells = all.map((r) => columns.map((c) => expectedCell(r[c])));

        const csv = await download(label, acme.admin.token, 'text/csv').expect(200);
        expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
        expect(csv.headers['content-disposition']).toBe(`attachment; filename="${file}.csv"`);
        const csvRows = parseCsv(csv.body as Buffer, { relax_column_count: false }) as string[][];
        expect({ label, rows: csvRows }).toEqual({ label, rows: [columns, ...cells.map((r) => r.map(asCsvText))] });

        const xlsx = await download(label, acme.admin.token, XLSX).expect(200);
        expect(xlsx.headers['content-type']).toBe(XLSX);
        expect(xlsx.headers['content-disposition']).toBe(`attachment; filename="${file}.xlsx"`);
        // Every text exactly, a carriage return too (written as a character reference: docs/exports.md).
        expect({ label, rows: await xlsxRows(xlsx.body as Buffer) }).toEqual({ label, rows: [columns, ...cells] });

        const nd = await download(label, acme.admin.token, 'application/x-ndjson').expect(200);
        expect(nd.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
        const lines = (nd.body as Buffer).toString('utf8').split('\n');
        expect(lines.pop()).toBe('');
        expect({ label, records: lines.map((l) => JSON.parse(l) as Json) }).toEqual({ label, records: all });
      }
    }
    // More records than a batch: each export read the list page after page (BATCH rows a call), not in one.
    // After the first two, each batch was read ahead (a batch and one row, skipping the one before it but
    // its last row), and each read ahead continued the batch before it: none was read again. The last
    // read ahead found the last batch's last row and nothing after it.
    const individuals = await json('/v4/individuals?deleted=2&limit=5000', acme.admin.token);
    const batches = Math.ceil(individuals.length / BATCH);
    expect(batches).toBeGreaterThan(2);
    calls.mockClear();
    await download('/v4/individuals?deleted=2', acme.admin.token, 'text/csv').expect(200);
    const reads = calls.mock.calls.map((c) => c[1] as { offset?: number; limit?: number });
    expect(reads.filter((r) => !r.offset).map((r) => r.limit)).toEqual([BATCH, BATCH]);
    expect(reads.filter((r) => r.offset).map((r) => [r.offset, r.limit])).toEqual(Array.from({ length: batches - 1 }, () => [BATCH - 1, BATCH + 1]));
    calls.mockRestore();
  });

  it('reads a batch again when the record between it and the read ahead was written meanwhile: every record once', async () => {
    const order = (await json('/v4/individuals?deleted=2&limit=5000', acme.admin.token)).map((r) => r.ID as string);
    expect(Math.ceil(order.length / BATCH)).toBe(4);
    // The last record of the second batch: the first row the first read ahead must find unchanged.
    const boundary = order[2 * BATCH - 1];
    // Written between the second batch's read and the read ahead's: same place in the order, another version.
    const calls = writeBeforeFirstReadAhead(() =>
      t.ds.query('UPDATE individuals SET primary_title = ?, version = version + 1 WHERE site_id = ? AND id = ?', ['Moved on', acme.siteId, boundary]),
    );
    expect(await exportedIds()).toEqual(order);
    // Four batches. The first read ahead did not continue the second batch, so the third was read again
    // from the second's cursor (three reads from a cursor in all). The read ahead already under way
    // did continue the third, and gave the fourth; none was started after the miss.
    const reads = calls.mock.calls.map((c) => c[1] as { offset?: number; cursor?: string });
    expect(reads.filter((r) => !r.offset)).toHaveLength(3);
    expect(reads.filter((r) => r.offset)).toHaveLength(2);
    calls.mockRestore();
  });

  it('reads a batch again when a record was added before the read ahead’s first row meanwhile: no record twice, none missed', async () => {
    const listed = await json('/v4/individuals?deleted=2&limit=5000', acme.admin.token);
    const order = listed.map((r) => r.ID as string);
    expect(Math.ceil((order.length + 1) / BATCH)).toBe(4);
    // Added just before the second batch's last record (its names, a smaller ID): every row after it
    // moves one place on, so the read ahead, skipping as many rows as before, starts a row early.
    const boundary = listed[2 * BATCH - 1];
    const added = '00000000-0000-4000-8000-000000000001';
    const now = new Date();
    const calls = writeBeforeFirstReadAhead(() =>
      t.ds.getRepository(IndividualEntity).insert({
        id: added,
        siteId: acme.siteId,
        firstName: boundary.FirstName as string,
        lastName: boundary.LastName as string,
        primaryOrganizationId: acme.orgId,
        isAdmin: false,
        sendEvalSurvey: false,
        deleted: false,
        deletedByRef: false,
        created: now,
        updated: now,
      }),
    );
    try {
      // Added after the second batch was read, before the boundary: not in this export; every other record once, in order.
      expect(await exportedIds()).toEqual(order);
      expect(calls.mock.calls.filter((c) => !(c[1] as { offset?: number }).offset)).toHaveLength(3);
    } finally {
      calls.mockRestore();
      await t.ds.getRepository(IndividualEntity).delete({ siteId: acme.siteId, id: added });
    }
  });

  it('writes dates as the JSON list does, in the request’s tz', async () => {
    const q = `fields=HireDate&filter=${encodeURIComponent('HireDate pr')}&tz=Europe/Berlin`;
    const all = await json(`/v4/individuals?${q}`, acme.admin.token);
    expect(String(all[0].HireDate)).toMatch(/^\d{4}-\d\d-\d\dT/);
    const csv = parseCsv((await download(`/v4/individuals?${q}`, acme.admin.token, 'text/csv').expect(200)).body as Buffer) as string[][];
    expect(csv.slice(1).map((r) => r[csv[0].indexOf('HireDate')])).toEqual(all.map((r) => r.HireDate));
  });

  it('neutralizes formula injection in CSV and XLSX, and keeps the JSON value in NDJSON', async () => {
    const q = `/v4/individuals?deleted=2&fields=FirstName,PrimaryTitle&filter=${encodeURIComponent('FirstName sw "=" or FirstName sw "+" or FirstName sw "-" or FirstName sw "@"')}`;
    const csv = parseCsv((await download(q, acme.admin.token, 'text/csv').expect(200)).body as Buffer) as string[][];
    const first = csv.slice(1).map((r) => r[csv[0].indexOf('FirstName')]);
    expect(first.sort()).toEqual([`'+1+1`, `'-2+3`, `'=HYPERLINK("http://x.test","click")`, `'@SUM(A1)`]);
    const xlsx = await xlsxRows((await download(q, acme.admin.token, XLSX).expect(200)).body as Buffer);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await download(q, acme.admin.token, XLSX).expect(200)).body as unknown as ArrayBuffer);
    // No cell of the workbook is a formula: each is the text, behind its quote.
    wb.worksheets[0].eachRow((row) => row.eachCell((cell) => expect(cell.type).not.toBe(ExcelJS.ValueType.Formula)));
    expect(
      xlsx
        .slice(1)
        .map((r) => r[xlsx[0].indexOf('FirstName')])
        .sort(),
    ).toEqual(first);
    const titles = xlsx.slice(1).map((r) => r[xlsx[0].indexOf('PrimaryTitle')]);
    expect(titles).toContain(`'=1+2`);
    // Tab and carriage return first: quoted too.
    const ws = parseCsv(
      (
        await download(
          `/v4/individuals?fields=FirstName&filter=${encodeURIComponent('FirstName co "Tab" or FirstName co "Return"')}`,
          acme.admin.token,
          'text/csv',
        ).expect(200)
      ).body as Buffer,
    ) as string[][];
    expect(
      ws
        .slice(1)
        .map((r) => r[ws[0].indexOf('FirstName')])
        .sort(),
    ).toEqual([`'\tTab`, `'\rReturn`].sort());
    const nd = (await download(q, acme.admin.token, 'application/x-ndjson').expect(200)).body as Buffer;
    const names = nd
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as Json).FirstName);
    expect(names.sort()).toEqual(['+1+1', '-2+3', '=HYPERLINK("http://x.test","click")', '@SUM(A1)']);
    const depts = parseCsv((await download('/v4/departments?deleted=2&fields=Name', acme.admin.token, 'text/csv').expect(200)).body as Buffer) as string[][];
    expect(depts.map((r) => r[depts[0].indexOf('Name')])).toContain(`'=cmd|"/c calc"!A1`);
  });

  // ------------------------------------------------------------------ tenancy, rights, roles

  it('never exports another site’s records or one a Deny hides from the caller', async () => {
    const asMember = (await download('/v4/individuals?fields=ID', member.token, 'application/x-ndjson').expect(200)).body as Buffer;
    const seen = asMember
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as Json).ID);
    expect(seen).toEqual((await json('/v4/individuals?fields=ID&limit=5000', member.token)).map((r) => r.ID));
    expect(seen).not.toContain(hidden.individualId);
    const asAdmin = (await download('/v4/individuals?fields=ID', acme.admin.token, 'text/csv').expect(200)).body as Buffer;
    expect(asAdmin.toString('utf8')).toContain(hidden.individualId);
    // Another site's, by filter on their names or IDs: nothing.
    const theirs = await json('/v4/individuals', globex.admin.token);
    const byName = await download(`/v4/individuals?filter=${encodeURIComponent('FirstName eq "Other"')}`, acme.admin.token, 'text/csv').expect(200);
    expect((parseCsv(byName.body as Buffer) as string[][]).length).toBe(1);
    const byId = await download(`/v4/individuals?deleted=2&filter=${encodeURIComponent(`ID eq "${theirs[0].ID as string}"`)}`, acme.admin.token, XLSX).expect(
      200,
    );
    expect((await xlsxRows(byId.body as Buffer)).length).toBe(1);
    const depts = ((await download('/v4/departments?deleted=2', acme.admin.token, 'text/csv').expect(200)).body as Buffer).toString('utf8');
    expect(depts).not.toContain('Globex dept');
  });

  it('applies the list’s own access rule: anonymous 401, another site 403 (a global administrator may), an API token’s scopes, before any byte', async () => {
    await t.http().get('/v4/individuals').set('Accept', 'text/csv').expect(401);
    const other = await get(`/v4/sites/${globex.siteId}/individuals`, acme.admin.token, 'text/csv').expect(403);
    expect(other.headers['content-type']).toMatch(/^application\/problem\+json/);
    await get(`/v4/sites/${globex.siteId}/departments`, member.token, XLSX).expect(403);
    const global = await download(`/v4/sites/${globex.siteId}/individuals?fields=LastName`, globalAdmin, 'text/csv').expect(200);
    const names = (parseCsv(global.body as Buffer) as string[][]).slice(1).map((r) => r[1]);
    expect(names).toEqual(expect.arrayContaining(['Globex0', 'Globex1', 'Globex2', 'Globex3']));
    // A member exports what the member's list shows: the list is open to every member.
    await download('/v4/organizations', member.token, 'text/csv').expect(200);
    // An API token exports only the collections its scopes read (docs/identity.md), as it lists them.
    const secret = async (scopes: string) =>
      (await t.http().post('/v4/apitokens').set('Authorization', bearer(acme.admin.token)).send({ Name: scopes, Scopes: scopes }).expect(200)).body
        .Secret as string;
    const goalsOnly = await secret('goals:read');
    const refused = await get('/v4/individuals', goalsOnly, 'text/csv').expect(403);
    expect(refused.body.type).toBe('urn:pms:problem:insufficient-scope');
    const reader = await secret('individuals:read');
    const viaToken = await download('/v4/individuals?fields=ID', reader, 'application/x-ndjson').expect(200);
    expect((viaToken.body as Buffer).toString('utf8').trim().split('\n').length).toBe((await json('/v4/individuals?fields=ID&limit=5000', reader)).length);
  });

  // ------------------------------------------------------------------ negotiation and refusals

  it('negotiates with q-values: the export type only when it ranks first', async () => {
    const cases: [string, RegExp][] = [
      ['application/json;q=0.5, text/csv', /^text\/csv/],
      ['text/csv;q=0.5, application/json', /^application\/json/],
      ['text/csv;q=0, application/xml', /^application\/xml/],
      ['*/*;q=0.1, application/x-ndjson', /^application\/x-ndjson/],
      [`text/csv;q=0.8, ${XLSX};q=0.9`, new RegExp(`^${XLSX.replace(/\./g, '\\.')}`)],
      ['text/csv, application/x-ndjson', /^text\/csv/],
      ['*/*', /^application\/json/],
    ];
    for (const [accept, type] of cases) {
      const res = await download('/v4/departments', acme.admin.token, accept).expect(200);
      expect({ accept, type: res.headers['content-type'] }).toEqual({ accept, type: expect.stringMatching(type) });
    }
  });

  it('answers 406 for a list that does not stream, unless JSON or XML is acceptable too', async () => {
    for (const path of [`/v4/individuals/${acme.admin.individualId}/history`, '/v4/sync/individuals?updatedSince=seq-0']) {
      const res = await get(path, acme.admin.token, 'text/csv').expect(406);
      expect(res.body).toMatchObject({ type: 'urn:pms:problem:not-acceptable', status: 406 });
      await get(path, acme.admin.token, 'application/x-ndjson').expect(406);
      const ok = await get(path, acme.admin.token, 'text/csv, application/json;q=0.1').expect(200);
      expect(ok.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('refuses limit, offset, cursor and updatedSince with an export, and a bad filter, before any byte', async () => {
    for (const q of ['limit=10', 'offset=5', 'cursor=start', 'updatedSince=seq-0']) {
      const res = await get(`/v4/individuals?${q}`, acme.admin.token, 'text/csv').expect(400);
      expect(res.body.errors[0].field).toBe(q.split('=')[0]);
    }
    const bad = await get(`/v4/individuals?filter=${encodeURIComponent('Nope eq 1')}`, acme.admin.token, XLSX).expect(400);
    expect(bad.body.errors[0].field).toBe('filter');
  });

  // ------------------------------------------------------------------ progress, failures

  it('logs its progress every EXPORT_PROGRESS_ROWS rows with the rate, and its end', async () => {
    const before = t.logs.length;
    await download('/v4/individuals?deleted=2', acme.admin.token, 'text/csv').expect(200);
    const lines = t.logs
      .slice(before)
      .map((l) => JSON.parse(l) as Json)
      .filter((l) => l.context === 'ListExport');
    const total = (await json('/v4/individuals?deleted=2&limit=5000', acme.admin.token)).length;
    expect(lines.filter((l) => /^\d+ rows$/.test(String(l.msg))).map((l) => l.rows)).toEqual([30]);
    expect(lines.at(-1)).toMatchObject({ msg: `done: ${total} rows`, rows: total, batches: Math.ceil(total / BATCH), format: 'csv', path: '/v4/individuals' });
    expect(lines.every((l) => 'rowsPerSecond' in l && 'requestId' in l)).toBe(true);
  });

  it('answers a database failure before the first byte as 503 with Retry-After, and aborts the answer after it', async () => {
    const service = t.app.get(IndividualsService);
    const lost = () => Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });
    const first = jest.spyOn(service, 'list').mockRejectedValueOnce(lost());
    const res = await get('/v4/individuals', acme.admin.token, 'text/csv');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.body.type).toBe('urn:pms:problem:service-unavailable');
    first.mockRestore();
    const real = service.list.bind(service);
    let n = 0;
    const later = jest.spyOn(service, 'list').mockImplementation((...a) => (++n === 2 ? Promise.reject(lost()) : real(...a)));
    const aborted = await rawGet(t, '/v4/individuals?deleted=2', { Authorization: bearer(acme.admin.token), Accept: 'text/csv' });
    later.mockRestore();
    // The status was sent with the first batch; the answer then ends without its last chunk.
    expect(aborted).toEqual({ status: 200, complete: false });
    const whole = await rawGet(t, '/v4/individuals?deleted=2', { Authorization: bearer(acme.admin.token), Accept: 'text/csv' });
    expect(whole).toEqual({ status: 200, complete: true });
  });
});

/**
 * A slow client, in each export format: one that stops reading gets no more rows read for it than
 * the reads already under way (the export waits for the response to drain; XLSX also for its zip
 * stream), what the service holds for it stays bounded, and one that hangs up gets no more reads at
 * all (docs/exports.md, "Memory, backpressure, hang-ups"). A site large enough that each export is
 * several times what the sockets between the two hold (a few MB on loopback): a random part in each
 * row keeps even XLSX, which is compressed, that large.
 */
describe(`list exports to a slow client (${DB_KIND})`, () => {
  let t: TestApp;
  let big: TestSite;
  const COUNT = 30_000;
  const ROWS = 500;

  beforeAll(async () => {
    // A progress line each batch: the rows written so far, to compare the reads with.
    t = await startApp({ EXPORT_BATCH_ROWS: String(ROWS), EXPORT_PROGRESS_ROWS: String(ROWS), LOG_LEVEL: 'info' });
    big = await createSite(t);
    // Around the service, as an import would (no audit trail for 30,000 rows); a random part in each row.
    await insertManyPeople(t, big, COUNT, () => ({ userDefined1: randomBytes(120).toString('base64') }));
  }, 180_000);
  afterAll(() => t?.close());

  /** Resolves once `done()` holds, checked every 20 ms; fails after `ms`. */
  const until = async (done: () => boolean, ms: number, what: string) => {
    for (const end = Date.now() + ms; !done(); await sleep(20)) {
      if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    }
  };
  /** The export's log lines since `from`. */
  const exportLog = (from: number) =>
    t.logs
      .slice(from)
      .map((l) => JSON.parse(l) as Json)
      .filter((l) => l.context === 'ListExport');

  // Reads under way while a batch is written: the next batch and the one after it; XLSX the next only.
  it.each([
    { format: 'csv', accept: 'text/csv', inFlight: 2 },
    { format: 'ndjson', accept: 'application/x-ndjson', inFlight: 2 },
    { format: 'xlsx', accept: XLSX, inFlight: 1 },
  ])(
    '$format: reads at most $inFlight batches past those written while the client does not read, and none once it hangs up',
    async ({ accept, inFlight }) => {
      const service = t.app.get(IndividualsService);
      const calls = jest.spyOn(service, 'list');
      // XLSX: what waits in the zip stream's intake to be compressed when the export adds a batch (after XlsxSheet.settled).
      const realAdd = XlsxSheet.prototype.add;
      const sheets: XlsxSheet[] = [];
      const backlogs: number[] = [];
      let batchXml = 0;
      const add = jest.spyOn(XlsxSheet.prototype, 'add').mockImplementation(function (this: XlsxSheet, rows) {
        if (!sheets.includes(this)) sheets.push(this);
        const before = this.backlog;
        backlogs.push(before);
        realAdd.call(this, rows);
        batchXml = Math.max(batchXml, this.backlog - before);
      });
      const server = t.app.getHttpServer() as Server;
      const port = await portOf(t);
      let response: ServerResponse | null = null;
      const capture = (req: IncomingMessage, res: ServerResponse) => {
        if (req.url?.startsWith('/v4/individuals')) response = res;
      };
      server.prependListener('request', capture);
      const from = t.logs.length;
      let client: ReturnType<typeof httpGet> | null = null;
      try {
        const { req, res } = await new Promise<{ req: ReturnType<typeof httpGet>; res: IncomingMessage }>((resolve) => {
          const req = httpGet({ port, path: '/v4/individuals', agent: false, headers: { Authorization: bearer(big.admin.token), Accept: accept } }, (res) => {
            res.pause(); // reads nothing more
            resolve({ req, res });
          });
        });
        client = req;
        expect(res.statusCode).toBe(200);
        // The export fills what the sockets hold, then waits: the number of batches read stops growing.
        let read = -1;
        for (let i = 0; i < 50 && read !== calls.mock.calls.length; i++) {
          read = calls.mock.calls.length;
          await sleep(300);
        }
        const total = Math.ceil((COUNT + 1) / ROWS);
        const log = exportLog(from);
        const written = Math.max(0, ...log.filter((l) => /^\d+ rows$/.test(String(l.msg))).map((l) => Number(l.rows))) / ROWS;
        expect(read).toBe(calls.mock.calls.length);
        expect(log.filter((l) => /^done/.test(String(l.msg)))).toEqual([]);
        expect(written).toBeLessThan(total - inFlight);
        // Beside the batches written, only the reads that were under way: none started since.
        expect(read).toBeLessThanOrEqual(written + inFlight);
        // What the server holds for it meanwhile: about one batch in the response's buffer, not the export.
        expect(response!.writableLength).toBeLessThan(1024 * 1024);
        if (accept === XLSX) {
          // Each batch was added once at most XLSX_ZIP_BACKLOG waited to be compressed; now at most that and a batch's XML.
          expect(sheets).toHaveLength(1);
          expect(backlogs).toHaveLength(written);
          expect(Math.max(...backlogs)).toBeLessThanOrEqual(XLSX_ZIP_BACKLOG);
          expect(sheets[0].backlog).toBeLessThanOrEqual(XLSX_ZIP_BACKLOG + batchXml);
        }
        // It reads on when the client does, then the client hangs up: no batch is read once the server sees it.
        res.resume();
        await until(() => calls.mock.calls.length >= read + 2, 10_000, 'reads on');
        let atClose = -1;
        response!.once('close', () => {
          atClose = calls.mock.calls.length;
        });
        req.destroy();
        await until(() => exportLog(from).some((l) => /^stopped: the client closed/.test(String(l.msg))), 10_000, 'the export stops');
        expect(atClose).toBeGreaterThan(0);
        expect(atClose).toBeLessThan(total);
        expect(calls.mock.calls.length).toBe(atClose);
      } finally {
        client?.destroy();
        server.off('request', capture);
        add.mockRestore();
        calls.mockRestore();
      }
    },
    60_000,
  );
});
