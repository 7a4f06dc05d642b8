import { jest } from '@jest/globals';
import { parse as parseCsv } from 'csv-parse/sync';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import ExcelJS from 'exceljs';
import { bearer, startApp, TestApp } from './harness.js';
import { createPerson, createSite, TestPerson, TestSite } from '../factories/index.js';
import { createPeriods } from '../factories/goals.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { ImportProcessor, MAX_IDLE_CLAIMS } from '../../src/modules/imports/import-processor.js';
import { IMPORT_PART_BYTES, IMPORT_PARTS_AT_ONCE, ImportsService } from '../../src/modules/imports/imports.service.js';
import { rowsOf } from '../../src/modules/imports/import-file.js';
import { BulkWriters } from '../../src/database/registries/bulk-writers.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { WireCodec } from '../../src/http/wire/codec.js';
import { ServerLifecycle } from '../../src/http/pipeline/server-lifecycle.js';
import { APP_CONFIG, type AppConfig } from '../../src/config/config.js';
import { RequestContext } from '../../src/common/context/request-context.js';
import { readJob } from '../../src/modules/imports/imports.statements.js';
import { decodeChanges } from '../../src/database/journal.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * File imports (docs/imports.md): POST /v4/imports, GET /v4/imports/{id} and …/errors, DELETE, and
 * the leased processor, on SQLite and (DATABASE_URL) MariaDB. The processor's timer is off
 * (IMPORTS=off): each test runs it, or two of them, by hand.
 */
type Json = Record<string, unknown>;
const NS = 'urn:pms:v4';
let seq = 0;
const uniq = (p: string) => `${p}${Date.now().toString(36)}${(seq++).toString(36)}`;
const CSV = 'text/csv';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const HEADER = 'ExternalID,FirstName,LastName,UserName,Email,UserEmail,PrimaryOrganizationID,PrimaryTitle,PrimaryReportsTo';

describe('import jobs', () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let member: TestPerson;
  let processor: ImportProcessor;

  beforeAll(async () => {
    t = await startApp({ IMPORTS: 'off', IMPORT_LEASE_MS: '1000', IMPORT_CHUNK_ROWS: '5' });
    acme = await createSite(t);
    globex = await createSite(t);
    member = await createPerson(t, acme);
    processor = t.app.get(ImportProcessor);
  });
  afterAll(async () => t?.close());
  // A test that failed half-way leaves no job holding its site's place for the next.
  afterEach(async () => {
    await sleep(1100);
    await drain();
  });

  /** A second replica's processor: the same app's services, another lease owner. */
  const replica = (writers: BulkWriters = t.app.get(BulkWriters)) =>
    new ImportProcessor(
      t.app.get(TenantDb),
      writers,
      t.app.get(ImportsService),
      t.app.get(WireCodec),
      t.app.get<AppConfig>(APP_CONFIG),
      t.app.get(ServerLifecycle),
    );

  /** 202, or a failure that says what the POST answered instead (its problem document). */
  const accepted = (res: { status: number; text: string }) => {
    if (res.status !== 202) throw new Error(`expected 202 Accepted, got ${res.status}: ${res.text}`);
  };
  const post = (body: string | Buffer, type: string, query = 'kind=individuals&mode=upsert', who: string = acme.admin.token) =>
    t.http().post(`/v4/imports?${query}`).set('Authorization', bearer(who)).set('Content-Type', type).send(body);
  const job = (id: string, who: string = acme.admin.token) => t.http().get(`/v4/imports/${id}`).set('Authorization', bearer(who));
  const errors = (id: string, accept = 'application/json') =>
    t.http().get(`/v4/imports/${id}/errors`).set('Authorization', bearer(acme.admin.token)).set('Accept', accept);
  /** Runs the processor until no job is due. */
  const drain = async (p: ImportProcessor = processor) => {
    while (await p.processOne()) {
      /* next */
    }
  };
  const row = (site: TestSite, ext: string, over: Partial<Record<string, string>> = {}) => {
    const v = {
      ExternalID: ext,
      FirstName: 'Ada',
      LastName: uniq('L'),
      UserName: uniq('imp.'),
      Email: 'ada@example.test',
      UserEmail: 'ada@example.test',
      PrimaryOrganizationID: site.orgId,
      PrimaryTitle: 'Analyst',
      ...over,
    };
    return HEADER.split(',').map((k) => v[k as keyof typeof v] ?? '');
  };
  const csv = (rows: string[][]) =>
    [HEADER, ...rows.map((r) => r.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(','))].join('\r\n') + '\r\n';
  const byExt = (site: TestSite, ext: string) => t.ds.getRepository(IndividualEntity).findOneBy({ siteId: site.siteId, externalId: ext });
  const countWith = (site: TestSite, prefix: string) =>
    t.ds
      .getRepository(IndividualEntity)
      .find({ where: { siteId: site.siteId }, select: { externalId: true } })
      .then((rows) => rows.filter((r) => r.externalId?.startsWith(prefix)).length);
  /** The `create` entries of the audit trail for the people of `site` whose ExternalID starts with `prefix`: one per person written once. */
  const createsWith = async (site: TestSite, prefix: string) =>
    Number(
      (
        (await t.ds.query(
          "SELECT COUNT(*) AS n FROM audit_log WHERE site_id = ? AND kind = 'individual' AND action = 'create' AND row_id IN (SELECT id FROM individuals WHERE site_id = ? AND external_id LIKE ?)",
          [site.siteId, site.siteId, `${prefix}-%`],
        )) as { n: number | string }[]
      )[0].n,
    );
  const auditCount = async (site: TestSite) =>
    Number(((await t.ds.query('SELECT COUNT(*) AS n FROM audit_log WHERE site_id = ?', [site.siteId])) as { n: number | string }[])[0].n);

  it('CSV: valid, invalid and duplicate rows give their errors with their lines, and exactly the valid rows are written (JSON, XML and CSV errors)', async () => {
    const p = uniq('C');
    const file = csv([
      row(acme, `${p}-1`),
      row(acme, `${p}-2`, { FirstName: '' }),
      row(acme, `${p}-3`),
      row(acme, `${p}-3`, { FirstName: 'Twice' }),
      row(acme, `${p}-4`, { FirstName: '', LastName: '' }),
      row(acme, `${p}-5`, { PrimaryTitle: 'Lead, "Ops"' }),
    ]);
    const res = await post(file, CSV).expect(accepted);
    expect(res.headers.location).toBe(`/v4/imports/${res.body.ID}`);
    expect(res.body).toMatchObject({ State: 'queued', Kind: 'individuals', Mode: 'upsert', Format: 'csv', RowsTotal: 6, RowsRead: 0 });
    await drain();
    const done = (await job(res.body.ID).expect(200)).body;
    expect(done).toMatchObject({ State: 'succeeded', RowsRead: 6, RowsWritten: 4, RowsFailed: 2, RowsTotal: 6, EtaSeconds: null });
    expect(done.RowsPerSecond).toBeGreaterThan(0);
    const errs = (await errors(res.body.ID).expect(200)).body as Json[];
    // The header is line 1: the second data row is line 3.
    expect(errs.map((e) => [e.Line, e.Status, e.ExternalID])).toEqual([
      [3, 400, `${p}-2`],
      [6, 400, `${p}-4`],
    ]);
    expect(JSON.stringify((errs[0].Problem as Json).errors)).toContain('FirstName');
    // Four rows written, three people: the duplicate upserts what the row before it created.
    expect(await countWith(acme, p)).toBe(3);
    // The duplicate upserts what the row before it created: the second row's values win.
    expect((await byExt(acme, `${p}-3`))?.firstName).toBe('Twice');
    expect((await byExt(acme, `${p}-5`))?.primaryTitle).toBe('Lead, "Ops"');
    const xml = await errors(res.body.ID, 'application/xml').expect(200);
    expect(xml.text).toContain('<ArrayOfImportRowError');
    expect(xml.text).toMatch(/<Line>3<\/Line>/);
    const text = await errors(res.body.ID, 'text/csv').expect(200);
    expect(text.headers['content-type']).toMatch(/^text\/csv/);
    expect(text.text.split('\r\n')[0]).toBe('Line,Status,ExternalID,Type,Detail,Errors');
    expect(text.text).toContain(`3,400,${p}-2,urn:pms:problem:validation-failed`);
  });

  it('writes the errors CSV with every cell from the file that reads as a formula neutralized (a quote before it)', async () => {
    const evil = '=HYPERLINK("http://evil.example","x")';
    const res = await post(csv([row(acme, evil, { FirstName: '' }), row(acme, '@SUM(A1)', { LastName: '' })]), CSV).expect(accepted);
    await drain();
    const text = (await errors(res.body.ID, 'text/csv').expect(200)).text;
    const records = parseCsv(text, { record_delimiter: '\r\n' }) as string[][];
    expect(records.map((r) => r.slice(0, 3))).toEqual([
      ['Line', 'Status', 'ExternalID'],
      ['2', '400', `'${evil}`],
      ['3', '400', "'@SUM(A1)"],
    ]);
    for (const cell of records.flat()) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('imports any collection with bulk writes: goals from NDJSON, each line written as the single POST writes it', async () => {
    const period = (await createPeriods(t, acme.siteId)).current.id;
    const owner = await createPerson(t, acme);
    const p = uniq('G');
    const dates = Object.fromEntries(
      [1, 2, 3, 4, 5].flatMap((n) => [
        [`Measure${n}StartDate`, '2026-01-01T00:00:00Z'],
        [`Measure${n}EndDate`, '2026-12-31T00:00:00Z'],
      ]),
    );
    const goal = (name: string) => ({
      IndividualID: owner.individualId,
      Name: name,
      Completed: false,
      Comment: 'On track',
      Why: 'Because we must',
      DueDate: '2026-12-31T00:00:00Z',
      PeriodID: period,
      ...Object.fromEntries(
        [1, 2, 3, 4, 5].flatMap((n) => [
          [`Measure${n}`, `Step ${n}`],
          [`Measure${n}Completed`, false],
        ]),
      ),
      ...dates,
    });
    const file = [goal(`${p} first`), goal('')].map((g) => JSON.stringify(g)).join('\n');
    const res = await post(`${file}\n`, 'application/x-ndjson', 'kind=goals&mode=create').expect(accepted);
    await drain();
    expect((await job(res.body.ID)).body).toMatchObject({ State: 'succeeded', RowsWritten: 1, RowsFailed: 1 });
    expect((await errors(res.body.ID)).body).toEqual([expect.objectContaining({ Line: 2, Status: 400 })]);
    const goals = (await t.http().get(`/v4/individuals/${owner.individualId}/goals`).set('Authorization', bearer(acme.admin.token)).expect(200)).body as Json[];
    expect(goals.map((g) => g.Name)).toEqual([`${p} first`]);
  });

  it('upsert by ExternalID twice: the second import changes nothing (no audit rows)', async () => {
    const p = uniq('U');
    const file = csv([row(acme, `${p}-1`, { LastName: 'One' }), row(acme, `${p}-2`, { LastName: 'Two' })]).replace(/imp\.[a-z0-9]+/g, (m) => m);
    const first = await post(file, CSV).expect(accepted);
    await drain();
    expect((await job(first.body.ID)).body).toMatchObject({ State: 'succeeded', RowsWritten: 2, RowsFailed: 0 });
    const before = await auditCount(acme);
    const second = await post(file, CSV).expect(accepted);
    await drain();
    expect((await job(second.body.ID)).body).toMatchObject({ State: 'succeeded', RowsWritten: 2, RowsFailed: 0 });
    // No audit row, so no webhook either: a webhook's events are the audit trail's entries (docs/events.md;
    // import-equivalence.e2e-spec.ts compares the deliveries themselves).
    expect(await auditCount(acme)).toBe(before);
    expect(await countWith(acme, p)).toBe(2);
  });

  it('XLSX (first sheet; formulas and = + - @ cells stored as text, never evaluated), NDJSON, JSON and XML files', async () => {
    const p = uniq('F');
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('People');
    wb.addWorksheet('Ignored').addRow(['not', 'read']);
    sheet.addRow(HEADER.split(','));
    sheet.addRow(row(acme, `${p}-x1`, { PrimaryTitle: '=HYPERLINK("http://evil.example","x")' }));
    const r3 = sheet.addRow(row(acme, `${p}-x2`));
    r3.getCell(8).value = { formula: 'SUM(1,2)', result: 3 } as ExcelJS.CellFormulaValue;
    sheet.addRow(row(acme, `${p}-x3`, { PrimaryTitle: '@cmd', FirstName: '' }));
    const xlsx = await post(Buffer.from(await wb.xlsx.writeBuffer()), XLSX).expect(accepted);
    expect(xlsx.body).toMatchObject({ Format: 'xlsx', RowsTotal: null });
    await drain();
    expect((await job(xlsx.body.ID)).body).toMatchObject({ State: 'succeeded', RowsWritten: 2, RowsFailed: 1, RowsTotal: 3 });
    expect((await errors(xlsx.body.ID)).body.map((e: Json) => e.Line)).toEqual([4]);
    expect((await byExt(acme, `${p}-x1`))?.primaryTitle).toBe('=HYPERLINK("http://evil.example","x")');
    expect((await byExt(acme, `${p}-x2`))?.primaryTitle).toBe('=SUM(1,2)');

    const obj = (ext: string, over: Json = {}) => {
      const cells = row(acme, ext);
      return { ...Object.fromEntries(HEADER.split(',').map((k, i) => [k, cells[i]])), ...over };
    };
    const nd = [obj(`${p}-n1`), obj(`${p}-n2`, { FirstName: null }), '', obj(`${p}-n3`, { PrimaryTitle: '+1 formula' })]
      .map((o) => (o === '' ? '' : JSON.stringify(o)))
      .join('\n');
    const ndjson = await post(`${nd}\nnot json\n`, 'application/x-ndjson').expect(accepted);
    await drain();
    expect((await job(ndjson.body.ID)).body).toMatchObject({ State: 'succeeded', RowsWritten: 2, RowsFailed: 2 });
    expect((await errors(ndjson.body.ID)).body.map((e: Json) => [e.Line, e.Status])).toEqual([
      [2, 400],
      [5, 400],
    ]);
    expect((await byExt(acme, `${p}-n3`))?.primaryTitle).toBe('+1 formula');

    const json = await post(JSON.stringify([obj(`${p}-j1`), obj(`${p}-j2`)]), 'application/json').expect(accepted);
    await drain();
    expect((await job(json.body.ID)).body).toMatchObject({ State: 'succeeded', RowsWritten: 2, RowsFailed: 0 });

    const person = (o: Json) =>
      `<Individual>${Object.entries(o)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => `<${k}>${String(v)}</${k}>`)
        .join('')}</Individual>`;
    const xmlFile = `<ArrayOfIndividual xmlns="${NS}">${person(obj(`${p}-m1`))}${person(obj(`${p}-m2`, { FirstName: '' }))}</ArrayOfIndividual>`;
    const xml = await post(xmlFile, 'application/xml').expect(accepted);
    await drain();
    expect((await job(xml.body.ID)).body).toMatchObject({ State: 'succeeded', RowsWritten: 1, RowsFailed: 1 });
    expect((await errors(xml.body.ID)).body.map((e: Json) => e.Line)).toEqual([2]);
    expect(await countWith(acme, p)).toBe(2 + 2 + 2 + 1);
  });

  it('a job whose replica stopped after two chunks (its lease abandoned) is resumed by another from its last committed chunk, and ends with exactly the file’s rows', async () => {
    const p = uniq('R');
    const rows = Array.from({ length: 23 }, (_, i) => row(acme, `${p}-${i}`));
    const res = await post(csv(rows), CSV).expect(accepted);
    const first = replica();
    expect(await first.processOne({ maxChunks: 2 })).toMatchObject({ chunks: 2, outcome: 'stopped' });
    expect((await job(res.body.ID)).body).toMatchObject({ State: 'running', RowsRead: 10, RowsWritten: 10 });
    expect(await countWith(acme, p)).toBe(10);
    // The lease still holds: no other replica takes the job.
    const second = replica();
    expect(await second.processOne()).toBeNull();
    await sleep(1100);
    expect(await second.processOne()).toMatchObject({ chunks: 3, outcome: 'succeeded' });
    expect((await job(res.body.ID)).body).toMatchObject({ State: 'succeeded', RowsRead: 23, RowsWritten: 23, RowsFailed: 0 });
    expect(await countWith(acme, p)).toBe(23);
    expect(await createsWith(acme, p)).toBe(23);
  });

  it('two chunks at once (MariaDB): a chunk is written while the one before commits unless its rows name a record that one wrote, and the outcome is that of one chunk after another', async () => {
    const p = uniq('O');
    const ext = (i: number) => `${p}-${i}`;
    const sqlite = t.app.get(TenantDb).isSqlite;
    const header = `${HEADER},ExternalRefs.PrimaryReportsTo`;
    const userNames = Array.from({ length: 20 }, () => uniq('imp.'));
    // Chunks of 5. The third names three records of the second: it updates one, takes another's user
    // name in other letters, and reports to a third; the second and the fourth name nothing before them.
    const line = (i: number) => {
      if (i === 10) return [...row(acme, ext(6), { UserName: userNames[6], PrimaryTitle: 'Lead' }), ''];
      if (i === 11) return [...row(acme, ext(i), { UserName: userNames[7].toUpperCase() }), ''];
      if (i === 12) return [...row(acme, ext(i), { UserName: userNames[i] }), ext(8)];
      return [...row(acme, ext(i), { UserName: userNames[i] }), ''];
    };
    const body = [header, ...Array.from({ length: 20 }, (_, i) => line(i).join(','))].join('\r\n') + '\r\n';
    const res = await post(body, CSV).expect(accepted);
    const p1 = replica();
    expect(await p1.processOne()).toMatchObject({ chunks: 4, outcome: 'succeeded' });
    // The second and the fourth chunks beside their predecessors' commits; the third after the second's.
    expect(p1.overlap).toEqual(sqlite ? { started: 0, failed: 0 } : { started: 2, failed: 0 });
    expect((await job(res.body.ID)).body).toMatchObject({ State: 'succeeded', RowsRead: 20, RowsWritten: 19, RowsFailed: 1, RowsWaiting: 0 });
    const errs = (await errors(res.body.ID).expect(200)).body as Json[];
    expect(errs.map((e) => [e.Line, e.Status, e.ExternalID])).toEqual([[13, 409, ext(11)]]);
    expect(JSON.stringify(errs[0].Problem)).toContain('duplicate-username');
    const six = await byExt(acme, ext(6));
    expect(six?.primaryTitle).toBe('Lead');
    expect((await byExt(acme, ext(12)))?.primaryReportsTo).toBe((await byExt(acme, ext(8)))!.id);
    expect(await countWith(acme, p)).toBe(18);
    // Each row written as its single write: 18 creates, and the update of the person of row 6.
    const actions = (await t.ds.query(
      "SELECT action, COUNT(*) AS n FROM audit_log WHERE site_id = ? AND kind = 'individual' AND row_id IN (SELECT id FROM individuals WHERE site_id = ? AND external_id LIKE ?) GROUP BY action ORDER BY action",
      [acme.siteId, acme.siteId, `${p}-%`],
    )) as { action: string; n: number | string }[];
    expect(actions.map((a) => [a.action, Number(a.n)])).toEqual([
      ['create', 18],
      ['update', 1],
    ]);
  });

  it('a chunk that fails while the one before commits is written again alone, once (MariaDB; on SQLite chunks are written in turn)', async () => {
    const p = uniq('F');
    const sqlite = t.app.get(TenantDb).isSqlite;
    const writers = t.app.get(BulkWriters);
    // The second chunk's first writing fails (as a lost deadlock would): a replica whose bulk writes fail once there.
    let calls = 0;
    const failing = {
      ofPath: (path: string) => {
        const w = writers.ofPath(path)!;
        return {
          ...w,
          apply: (ctx: RequestContext, items: Parameters<typeof w.apply>[1], opts: Parameters<typeof w.apply>[2]) => {
            calls++;
            if (calls === 2 && !sqlite) return Promise.reject(new Error('injected: the chunk failed beside the commit before it'));
            return w.apply(ctx, items, opts);
          },
        };
      },
    } as unknown as BulkWriters;
    const p1 = replica(failing);
    const res = await post(csv(Array.from({ length: 12 }, (_, i) => row(acme, `${p}-${i}`))), CSV).expect(accepted);
    expect(await p1.processOne()).toMatchObject({ chunks: 3, outcome: 'succeeded' });
    expect(p1.overlap).toEqual(sqlite ? { started: 0, failed: 0 } : { started: 2, failed: 1 });
    expect(calls).toBe(sqlite ? 3 : 4);
    expect((await job(res.body.ID)).body).toMatchObject({ State: 'succeeded', RowsRead: 12, RowsWritten: 12, RowsFailed: 0 });
    expect(await countWith(acme, p)).toBe(12);
    expect(await createsWith(acme, p)).toBe(12);
  });

  it('a row that names a manager further down the file, past its chunk, is written once the file is read; a chain of them resumes on another replica, and a reference that never comes fails with its line', async () => {
    const p = uniq('W');
    const ext = (i: number) => `${p}-${i}`;
    // Chunks of 5: rows 0…6 each report to the next row, row 6 to the manager on row 14; row 7 to
    // nobody in the file; row 8 to row 0 (a row that waits itself).
    const refOf = (i: number): string => (i < 6 ? ext(i + 1) : i === 6 ? ext(14) : i === 7 ? `${p}-nobody` : i === 8 ? ext(0) : '');
    const header = `${HEADER},ExternalRefs.PrimaryReportsTo`;
    const lines = Array.from({ length: 15 }, (_, i) => [...row(acme, ext(i)), refOf(i)].join(','));
    const res = await post([header, ...lines].join('\r\n') + '\r\n', CSV).expect(accepted);
    // Three chunks of the file, then one chunk of the first retry pass (rows 8…4, last first).
    expect(await replica().processOne({ maxChunks: 4 })).toMatchObject({ chunks: 4, outcome: 'stopped' });
    expect((await job(res.body.ID)).body).toMatchObject({ State: 'running', RowsRead: 15, RowsWritten: 9, RowsFailed: 0, RowsWaiting: 6 });
    await sleep(1100);
    expect(await replica().processOne()).toMatchObject({ outcome: 'succeeded' });
    const done = (await job(res.body.ID).expect(200)).body;
    expect(done).toMatchObject({ State: 'succeeded', RowsRead: 15, RowsWritten: 14, RowsFailed: 1, RowsWaiting: 0 });
    const errs = (await errors(res.body.ID).expect(200)).body as Json[];
    // Row 7 is line 9 (the header is line 1); its problem is the one a bulk item gets.
    expect(errs.map((e) => [e.Line, e.Status, e.ExternalID])).toEqual([[9, 400, ext(7)]]);
    expect(JSON.stringify(errs[0].Problem)).toContain(`No record of this site has the ExternalID \\"${p}-nobody\\"`);
    const people = await Promise.all(Array.from({ length: 15 }, (_, i) => byExt(acme, ext(i))));
    expect(people.filter(Boolean)).toHaveLength(14);
    for (let i = 0; i <= 6; i++) expect([i, people[i]?.primaryReportsTo]).toEqual([i, people[i === 6 ? 14 : i + 1]!.id]);
    expect(people[8]?.primaryReportsTo).toBe(people[0]!.id);
    // Each person written once: one create in the audit trail each.
    expect(await createsWith(acme, p)).toBe(14);
    // Nothing of the job's waiting rows is kept once it ends.
    const left = (await t.ds.query('SELECT COUNT(*) AS n FROM import_waiting_rows WHERE site_id = ? AND import_id = ?', [acme.siteId, res.body.ID])) as {
      n: number | string;
    }[];
    expect(Number(left[0].n)).toBe(0);
  });

  it('a job resumed in its retry passes ends as its file’s reading did: failed, with the problem kept when the passes began', async () => {
    const p = uniq('F');
    const ext = (i: number) => `${p}-${i}`;
    // Rows 0…5 report to row 10, in the third chunk: six rows wait, two retry chunks.
    const header = `${HEADER},ExternalRefs.PrimaryReportsTo`;
    const lines = Array.from({ length: 11 }, (_, i) => [...row(acme, ext(i)), i <= 5 ? ext(10) : ''].join(','));
    const res = await post([header, ...lines].join('\r\n') + '\r\n', CSV).expect(accepted);
    expect(await replica().processOne({ maxChunks: 4 })).toMatchObject({ chunks: 4, outcome: 'stopped' });
    expect((await job(res.body.ID)).body).toMatchObject({ State: 'running', RowsWritten: 10, RowsWaiting: 1 });
    // What a replica whose file broke after its last chunk keeps as the passes begin (startPass).
    await t.ds.query('UPDATE import_jobs SET problem = ? WHERE site_id = ? AND id = ?', ['Malformed CSV at line 13', acme.siteId, res.body.ID]);
    await sleep(1100);
    expect(await replica().processOne()).toMatchObject({ outcome: 'failed' });
    expect((await job(res.body.ID)).body).toMatchObject({
      State: 'failed',
      Problem: 'Malformed CSV at line 13',
      RowsWritten: 11,
      RowsFailed: 0,
      RowsWaiting: 0,
    });
    expect((await byExt(acme, ext(0)))?.primaryReportsTo).toBe((await byExt(acme, ext(10)))!.id);
  });

  it('a job claimed again and again with no chunk committed fails after MAX_IDLE_CLAIMS, naming why; a committed chunk starts the count again', async () => {
    const p = uniq('I');
    const res = await post(csv(Array.from({ length: 12 }, (_, i) => row(acme, `${p}-${i}`))), CSV).expect(accepted);
    const idle = async () =>
      Number(
        ((await t.ds.query('SELECT claims_idle AS n FROM import_jobs WHERE site_id = ? AND id = ?', [acme.siteId, res.body.ID])) as { n: number | string }[])[0]
          .n,
      );
    // Replicas that claim the job and die before their first chunk commits.
    for (let k = 1; k <= 2; k++) {
      expect(await replica().processOne({ maxChunks: 0 })).toMatchObject({ chunks: 0, outcome: 'stopped' });
      expect(await idle()).toBe(k);
      await sleep(1100);
    }
    expect(await replica().processOne({ maxChunks: 1 })).toMatchObject({ chunks: 1, outcome: 'stopped' });
    expect(await idle()).toBe(0);
    await sleep(1100);
    // As after MAX_IDLE_CLAIMS claims that committed nothing: the next claim fails the job, writing nothing more.
    await t.ds.query('UPDATE import_jobs SET claims_idle = ? WHERE site_id = ? AND id = ?', [MAX_IDLE_CLAIMS, acme.siteId, res.body.ID]);
    expect(await replica().processOne()).toMatchObject({ chunks: 0, outcome: 'failed' });
    const done = (await job(res.body.ID).expect(200)).body;
    expect(done).toMatchObject({ State: 'failed', RowsRead: 5, RowsWritten: 5 });
    expect(done.Problem).toMatch(
      new RegExp(`^Claimed ${MAX_IDLE_CLAIMS} times without a chunk committed .*the rows before row 6 are written; send the rest again$`),
    );
    expect(await countWith(acme, p)).toBe(5);
    // The site's place is free again.
    const next = await post(csv([row(acme, `${p}-again`)]), CSV).expect(accepted);
    await drain();
    expect((await job(next.body.ID)).body).toMatchObject({ State: 'succeeded', RowsWritten: 1 });
  });

  it('a file of more than one transaction’s parts is stored and read back byte for byte, with characters split between parts intact (CSV and NDJSON)', async () => {
    const svc = t.app.get(ImportsService);
    const ctx = RequestContext.system(acme.siteId);
    // 3-byte characters: the 64 KiB part boundaries fall inside characters.
    const title = (i: number) => `${'名'.repeat(21_000)}${i}`;
    const p = uniq('B');
    const rows = Array.from({ length: 20 }, (_, i) => row(acme, `${p}-${i}`, { PrimaryTitle: title(i) }));
    const files: [string, Buffer][] = [
      [CSV, Buffer.from(csv(rows), 'utf8')],
      [
        'application/x-ndjson',
        Buffer.from(rows.map((r) => JSON.stringify(Object.fromEntries(HEADER.split(',').map((k, i) => [k, r[i]])))).join('\n') + '\n', 'utf8'),
      ],
    ];
    for (const [type, body] of files) {
      expect(body.length).toBeGreaterThan(IMPORT_PART_BYTES * IMPORT_PARTS_AT_ONCE);
      const res = await post(body, type).expect(accepted);
      const stored = (await readJob(t.app.get(TenantDb), ctx, res.body.ID))!;
      expect(stored.parts).toBe(Math.ceil(body.length / IMPORT_PART_BYTES));
      expect(stored.totalRows).toBe(20);
      const back: Buffer[] = [];
      for await (const part of svc.fileStream(ctx, res.body.ID, 0, stored.parts)) back.push(part as Buffer);
      expect(Buffer.concat(back).equals(body)).toBe(true);
      const format = type === CSV ? 'csv' : 'ndjson';
      const titles: unknown[] = [];
      for await (const r of rowsOf(format, () => svc.fileStream(ctx, res.body.ID, 0, stored.parts), NS)) titles.push(r.record?.PrimaryTitle);
      expect(titles).toEqual(rows.map((_, i) => title(i)));
      await t.http().delete(`/v4/imports/${res.body.ID}`).set('Authorization', bearer(acme.admin.token)).expect(200);
    }
  });

  it('keeps an upload’s lease while its file arrives slowly; when it is lost, another replica fails the job and deletes its parts, and the POST is 503 with nothing kept', async () => {
    const server = t.app.getHttpServer() as import('node:http').Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    /** A POST whose body is sent in two pieces with `between` run after the first: its status, headers and JSON body. */
    const slowPost = (first: string, rest: string, between: () => Promise<void>) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: Json }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/v4/imports?kind=individuals&mode=upsert',
            headers: { Authorization: bearer(acme.admin.token), 'Content-Type': CSV },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? (JSON.parse(text) as Json) : {} }));
          },
        );
        req.on('error', reject);
        req.write(first);
        between().then(() => req.end(rest), reject);
      });
    const other = replica();
    const partsOf = async (id: string) =>
      Number(
        (
          (await t.ds.query('SELECT COUNT(*) AS n FROM import_file_parts WHERE site_id = ? AND import_id = ?', [acme.siteId, id])) as { n: number | string }[]
        )[0].n,
      );
    const ctx = RequestContext.system(acme.siteId);
    const receiving = async () => {
      const found = (await t.ds.query("SELECT id FROM import_jobs WHERE site_id = ? AND state = 'receiving'", [acme.siteId])) as { id: string }[];
      return found[0]?.id ?? null;
    };

    // A pause of 2.5 s in the middle of the body (the lease is 1 s), another replica looking for due jobs meanwhile: the upload keeps its job.
    const p = uniq('slow');
    const text = csv(Array.from({ length: 6 }, (_, i) => row(acme, `${p}-${i}`)));
    const cut = text.indexOf('\r\n', text.length / 2) + 2;
    const slow = await slowPost(text.slice(0, cut), text.slice(cut), async () => {
      for (let i = 0; i < 5; i++) {
        await sleep(500);
        await other.processOne();
      }
    });
    expect({ status: slow.status, state: slow.body.State }).toEqual({ status: 202, state: 'queued' });
    await drain();
    expect((await job(slow.body.ID as string)).body).toMatchObject({ State: 'succeeded', RowsWritten: 6, RowsFailed: 0 });

    // The renewals fail (the database away for this replica) long enough for the lease to run out: another replica fails the job and deletes what was stored.
    const q = uniq('lost');
    const big = csv(Array.from({ length: 9000 }, (_, i) => row(acme, `${q}-${i}`)));
    const half = big.indexOf('\r\n', IMPORT_PART_BYTES * IMPORT_PARTS_AT_ONCE + 1000) + 2;
    const db = t.app.get(TenantDb);
    const transaction = db.transaction.bind(db);
    let away = false;
    const spy = jest
      .spyOn(db, 'transaction')
      .mockImplementation(((c: RequestContext, fn: () => Promise<unknown>, ...more: unknown[]) =>
        away && c.requestId === 'system' && c.siteId === acme.siteId
          ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
          : (transaction as (...a: unknown[]) => Promise<unknown>)(c, fn, ...more)) as typeof db.transaction);
    let stale: string | null = null;
    let staleParts = -1;
    try {
      const lost = await slowPost(big.slice(0, half), big.slice(half), async () => {
        // Its first 1 MiB stored (the parts written in the upload's own transaction), then the renewals fail.
        for (let i = 0; i < 50 && !((stale = await receiving()) && (await partsOf(stale)) > 0); i++) await sleep(100);
        away = true;
        await sleep(1600);
        await other.processOne();
        staleParts = stale ? await partsOf(stale) : -1;
        away = false;
      });
      expect(stale).not.toBeNull();
      expect((await readJob(db, ctx, stale!))?.state ?? 'deleted').toBe('deleted');
      expect(staleParts).toBe(0);
      expect({ status: lost.status, retryAfter: lost.headers['retry-after'], type: lost.body.type }).toEqual({
        status: 503,
        retryAfter: '5',
        type: 'urn:pms:problem:service-unavailable',
      });
      expect(String(lost.body.detail)).toMatch(/lease .* ran out .* send it again/);
      expect(await partsOf(stale!)).toBe(0);
      expect(await countWith(acme, q)).toBe(0);
    } finally {
      spy.mockRestore();
    }
    // The site's place is free again.
    const ok = await post(csv([row(acme, uniq('after'))]), CSV).expect(accepted);
    await drain();
    expect((await job(ok.body.ID)).body.State).toBe('succeeded');
  });

  it('two replicas racing: one claims the job, and the one whose lease was taken over commits nothing', async () => {
    const p = uniq('T');
    const res = await post(csv(Array.from({ length: 12 }, (_, i) => row(acme, `${p}-${i}`))), CSV).expect(accepted);
    const [a, b] = [replica(), replica()];
    const runs = await Promise.all([a.processOne({ maxChunks: 1 }), b.processOne({ maxChunks: 1 })]);
    expect(runs.filter((r) => r !== null)).toHaveLength(1);
    const winner = runs[0] ? a : b;
    const loser = runs[0] ? b : a;
    await sleep(1100);
    // The lease ran out: the other replica claims the job and writes a chunk of its own.
    expect(await loser.processOne({ maxChunks: 1 })).toMatchObject({ chunks: 1, outcome: 'stopped' });
    const ctx = RequestContext.system(acme.siteId);
    const now = (await readJob(t.app.get(TenantDb), ctx, res.body.ID))!;
    expect({ state: now.state, nextRow: now.nextRow }).toEqual({ state: 'running', nextRow: 10 });
    // The first one, late, writes the chunk at the job's very next row: only the lease's owner tells
    // the two apart, and the chunk is refused whole (NotOurs) with nothing written.
    const late = (winner as unknown as { writeChunk: (...a: unknown[]) => Promise<number> }).writeChunk(
      new RequestContext('late', undefined, { ...ctx.user, isGlobalAdmin: false }),
      now,
      now.nextRow,
      [{ line: 12, record: Object.fromEntries(HEADER.split(',').map((k, i) => [k, row(acme, `${p}-late`)[i]])), problem: null }],
      null,
    );
    const refused = await late.then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(refused?.constructor.name).toBe('NotOurs');
    expect(await countWith(acme, p)).toBe(10);
    expect((await readJob(t.app.get(TenantDb), ctx, res.body.ID))!.nextRow).toBe(10);
    // The owner's lease runs out in turn; a replica finishes the job from row 10.
    await sleep(1100);
    expect(await winner.processOne()).toMatchObject({ outcome: 'succeeded' });
    expect(await countWith(acme, p)).toBe(12);
    expect((await job(res.body.ID)).body).toMatchObject({ State: 'succeeded', RowsRead: 12, RowsWritten: 12 });
  });

  it('an import’s audit trail equals that of the same rows written one by one', async () => {
    const p = uniq('A');
    const one = await createSite(t);
    const bulk = await createSite(t);
    const values = [0, 1, 2].map((i) => ({
      ExternalID: `${p}-${i}`,
      FirstName: `F${i}`,
      LastName: `L${i}`,
      UserName: uniq('aud.'),
      Email: 'a@example.test',
      UserEmail: 'a@example.test',
      PrimaryTitle: 'T',
    }));
    for (const v of values) {
      await t
        .http()
        .post('/v4/individuals')
        .set('Authorization', bearer(one.admin.token))
        .send({ ...v, UserName: `${v.UserName}x`, PrimaryOrganizationID: one.orgId, PrimaryReportsTo: null })
        .expect(200);
    }
    const file = [
      HEADER,
      ...values.map((v) =>
        HEADER.split(',')
          .map((k) => (k === 'PrimaryOrganizationID' ? bulk.orgId : String((v as Json)[k] ?? '')))
          .join(','),
      ),
    ].join('\n');
    await post(file, CSV, 'kind=individuals&mode=create', bulk.admin.token).expect(accepted);
    await drain();
    const trail = async (site: TestSite) =>
      ((await t.ds.query("SELECT kind, action, changes FROM audit_log WHERE site_id = ? AND kind <> 'site' ORDER BY seq", [site.siteId])) as Json[]).map(
        (r) => ({
          kind: r.kind,
          action: r.action,
          changes: decodeChanges(String(r.changes)).length,
        }),
      );
    const a = await trail(one);
    const b = await trail(bulk);
    expect(b.length).toBeGreaterThan(3);
    expect(b).toEqual(a);
  });

  it('tenancy: another site’s job is 404 (read, errors, cancel), and another site’s ExternalID is not matched', async () => {
    const p = uniq('N');
    const res = await post(csv([row(acme, `${p}-1`), row(acme, `${p}-2`)]), CSV).expect(accepted);
    await job(res.body.ID, globex.admin.token).expect(404);
    await t.http().get(`/v4/imports/${res.body.ID}/errors`).set('Authorization', bearer(globex.admin.token)).expect(404);
    await t.http().delete(`/v4/imports/${res.body.ID}`).set('Authorization', bearer(globex.admin.token)).expect(404);
    await drain();
    // The same key in globex: upsert creates globex's own person, acme's is unchanged.
    const g = await post(csv([row(globex, `${p}-1`, { FirstName: 'Globex' })]), CSV, 'kind=individuals&mode=upsert', globex.admin.token).expect(accepted);
    await drain();
    expect((await job(g.body.ID, globex.admin.token)).body).toMatchObject({ RowsWritten: 1, RowsFailed: 0 });
    expect((await byExt(globex, `${p}-1`))?.firstName).toBe('Globex');
    expect((await byExt(acme, `${p}-1`))?.firstName).toBe('Ada');
    // An update from globex naming a key only acme has finds nothing: 404 for the row, acme's person unchanged.
    const u = await post(csv([row(globex, `${p}-2`, { FirstName: 'Taken' })]), CSV, 'kind=individuals&mode=update', globex.admin.token).expect(accepted);
    await drain();
    expect((await t.http().get(`/v4/imports/${u.body.ID}/errors`).set('Authorization', bearer(globex.admin.token))).body.map((e: Json) => e.Status)).toEqual([
      404,
    ]);
    expect(await byExt(globex, `${p}-2`)).toBeNull();
    // A reference by ExternalID to acme's person from globex is not resolved: that row's 400, nobody reports to acme's person.
    const refs = [`${HEADER},ExternalRefs.PrimaryReportsTo`, `${row(globex, `${p}-3`).join(',')},${p}-2`].join('\r\n') + '\r\n';
    const r = await post(refs, CSV, 'kind=individuals&mode=upsert', globex.admin.token).expect(accepted);
    await drain();
    const refErrors = (await t.http().get(`/v4/imports/${r.body.ID}/errors`).set('Authorization', bearer(globex.admin.token))).body as Json[];
    expect(refErrors.map((e) => [e.Line, e.Status])).toEqual([[2, 400]]);
    expect(JSON.stringify(refErrors[0])).toContain(`${p}-2`);
    expect(await byExt(globex, `${p}-3`)).toBeNull();
    const acmes = await byExt(acme, `${p}-2`);
    expect(acmes?.firstName).toBe('Ada');
    expect(await t.ds.getRepository(IndividualEntity).countBy({ primaryReportsTo: acmes!.id })).toBe(0);
  });

  it('roles: anonymous 401, a member 403, an API token by its scopes (imports:write and the collection’s write scope)', async () => {
    const file = csv([row(acme, uniq('S'))]);
    await t.http().post('/v4/imports?kind=individuals&mode=upsert').set('Content-Type', CSV).send(file).expect(401);
    expect((await post(file, CSV, undefined, member.token).expect(403)).body.type).toBe('urn:pms:problem:admin-required');
    const token = async (scopes: string) =>
      (
        await t
          .http()
          .post('/v4/apitokens')
          .set('Authorization', bearer(acme.admin.token))
          .send({ Name: uniq('tok'), Scopes: scopes })
          .expect(200)
      ).body.Secret as string;
    expect((await post(file, CSV, undefined, await token('individuals:write')).expect(403)).body.type).toBe('urn:pms:problem:insufficient-scope');
    const narrow = await post(file, CSV, undefined, await token('imports:write')).expect(403);
    expect(narrow.body.detail).toContain('individuals:write');
    const ok = await post(file, CSV, undefined, await token('imports:write individuals:write')).expect(accepted);
    await job(ok.body.ID, await token('imports:read')).expect(200);
    await drain();
  });

  it('an API token revoked while its import runs stops it at the next chunk: the job fails naming it, the chunks committed stay', async () => {
    const created = (
      await t
        .http()
        .post('/v4/apitokens')
        .set('Authorization', bearer(acme.admin.token))
        .send({ Name: uniq('tok'), Scopes: 'imports:write individuals:write' })
        .expect(200)
    ).body as { ID: string; Secret: string };
    const p = uniq('R');
    const res = await post(csv(Array.from({ length: 12 }, (_, i) => row(acme, `${p}-${i}`))), CSV, undefined, created.Secret).expect(accepted);
    // One chunk (5 rows) written, the replica then stops as a killed one would (its lease kept).
    expect(await replica().processOne({ maxChunks: 1 })).toMatchObject({ chunks: 1, outcome: 'stopped' });
    await t.http().delete(`/v4/apitokens/${created.ID}`).set('Authorization', bearer(acme.admin.token)).expect(200);
    await sleep(1100);
    await drain();
    expect((await job(res.body.ID)).body).toMatchObject({ State: 'failed', RowsWritten: 5, Problem: 'The API token that started the import was revoked' });
    expect(await countWith(acme, p)).toBe(5);
  });

  it('one import per site: a second is 409 until the first ends or is cancelled; DELETE cancels, and nothing more is written', async () => {
    const p = uniq('D');
    const res = await post(csv(Array.from({ length: 12 }, (_, i) => row(acme, `${p}-${i}`))), CSV).expect(accepted);
    expect((await post(csv([row(acme, `${p}-x`)]), CSV).expect(409)).body.type).toBe('urn:pms:problem:import-active');
    // Another site is not held up.
    const g = await post(csv([row(globex, `${p}-g`)]), CSV, undefined, globex.admin.token).expect(accepted);
    await replica().processOne({ maxChunks: 1 });
    const cancelled = await t.http().delete(`/v4/imports/${res.body.ID}`).set('Authorization', bearer(acme.admin.token)).expect(200);
    expect(cancelled.body).toMatchObject({ State: 'cancelled' });
    await sleep(1100);
    await drain();
    expect((await job(res.body.ID)).body).toMatchObject({ State: 'cancelled' });
    expect(await countWith(acme, p)).toBeLessThanOrEqual(5);
    const xml = await t.http().get(`/v4/imports/${res.body.ID}`).set('Authorization', bearer(acme.admin.token)).set('Accept', 'application/xml').expect(200);
    expect(xml.text).toMatch(/<ImportJob [^>]*>.*<State>cancelled<\/State>/s);
    await post(csv([row(acme, `${p}-after`)]), CSV).expect(accepted);
    await drain();
    expect((await job(g.body.ID, globex.admin.token)).body.State).toBe('succeeded');
  });

  it('the document’s examples of each file type are imported as they are (the organization of the examples replaced by the site’s)', async () => {
    const doc = (await t.http().get('/docs/openapi.json').expect(200)).body as Json;
    const content = (((doc.paths as Json)['/v4/imports'] as Json).post as { requestBody: { content: Record<string, { example?: unknown }> } }).requestBody
      .content;
    const zero = /00000000-0000-0000-0000-000000000000/g;
    for (const type of ['text/csv', 'application/x-ndjson', 'application/json', 'application/xml']) {
      const example = content[type].example;
      const file = (typeof example === 'string' ? example : JSON.stringify(example)).replace(zero, acme.orgId);
      const res = await post(file, type, 'kind=individuals&mode=upsert').expect(accepted);
      await drain();
      expect({ type, job: (await job(res.body.ID)).body }).toMatchObject({
        type,
        job: { State: 'succeeded', RowsFailed: 0, RowsWritten: type === 'application/xml' ? 1 : 2 },
      });
      // Jane's manager is given by ExternalRefs (the XML example names nobody).
      const manager = type === 'application/xml' ? null : (await byExt(acme, 'HR-1000'))?.id;
      expect({ type, manager: (await byExt(acme, 'HR-1001'))?.primaryReportsTo ?? null }).toEqual({ type, manager });
    }
  });

  it('bad files and queries: wrong encoding, charset, media type, too large, too many columns (CSV and XLSX), too deep, a row too wide, a broken CSV, unknown kind or mode', async () => {
    const latin1 = Buffer.concat([Buffer.from(`${HEADER}\r\n`), Buffer.from('X-1,Jos\xe9,L,u,a@b.c,a@b.c,x,T\r\n', 'latin1')]);
    expect((await post(latin1, CSV).expect(400)).body.detail).toMatch(/UTF-8/);
    await post('a,b\r\n', 'text/csv; charset=iso-8859-1').expect(415);
    await post('a,b\r\n', 'text/plain').expect(415);
    expect((await post(`${Array.from({ length: 1001 }, (_, i) => `c${i}`).join(',')}\r\n`, CSV).expect(400)).body.detail).toMatch(/1001 columns/);
    // A million columns: refused by the header's length as it arrives, before anything is parsed.
    expect((await post(`${'c,'.repeat(1_000_000)}c\r\n`, CSV).expect(400)).body.detail).toBe('The header row is longer than 1048576 bytes');
    // Not a workbook, and a workbook cut short.
    expect((await post(Buffer.from('not a zip file at all'), XLSX).expect(400)).body.type).toBe('urn:pms:problem:malformed-file');
    const book = new ExcelJS.Workbook();
    book.addWorksheet('S').addRow(['ExternalID']);
    const whole = Buffer.from(await book.xlsx.writeBuffer());
    await post(whole.subarray(0, Math.floor(whole.length / 2)), XLSX).expect(400);
    // A sheet whose header has more than 1,000 columns, and a JSON file nested deeper than a body may be: named problems.
    const wide = new ExcelJS.Workbook();
    wide.addWorksheet('S').addRow(Array.from({ length: 1001 }, (_, i) => `c${i}`));
    expect((await post(Buffer.from(await wide.xlsx.writeBuffer()), XLSX).expect(400)).body.detail).toMatch(/1001 columns/);
    const deep = `[${'['.repeat(100)}${']'.repeat(100)}]`;
    expect((await post(deep, 'application/json').expect(400)).body).toMatchObject({
      type: 'urn:pms:problem:malformed-file',
      detail: 'The file is nested deeper than 64 levels',
    });
    expect((await post(`${HEADER}\r\n"unclosed,b\r\n`, CSV).expect(400)).body.type).toBe('urn:pms:problem:malformed-file');
    // A misspelled column would be dropped from every row: refused by name.
    const typo = await post(`${HEADER.replace('FirstName', 'FirstNme')},ExternalRefs.PrimaryReportsTo,Created\r\n`, CSV).expect(400);
    expect(typo.body.detail).toMatch(/^The header names "FirstNme", which no field of individuals is/);
    expect((await post('', CSV).expect(400)).body.type).toBeDefined();
    expect(JSON.stringify((await post('a\r\n', CSV, 'kind=individuals&mode=merge').expect(400)).body.errors)).toContain('mode');
    // Every collection with bulk writes is a kind (the registry, collected at start-up); an unknown one is named with them.
    const kinds = JSON.stringify((await post('a\r\n', CSV, 'kind=salaries&mode=upsert').expect(400)).body.errors);
    for (const kind of ['departments', 'goals', 'individuals', 'permissions']) expect(kinds).toContain(kind);
    await post('a\r\n', CSV, 'mode=upsert').expect(400);
    // A key would promise a replay the route cannot give: refused, not ignored.
    const keyed = await t
      .http()
      .post('/v4/imports?kind=individuals&mode=upsert')
      .set('Authorization', bearer(acme.admin.token))
      .set('Content-Type', CSV)
      .set('Idempotency-Key', 'k-1')
      .send('a\r\n')
      .expect(400);
    expect(JSON.stringify(keyed.body.errors)).toContain('Idempotency-Key');
    // 5 GB announced: 413 from the Content-Length, before the body is read.
    const server = t.app.getHttpServer() as import('node:http').Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const status = await new Promise<number>((resolve, reject) => {
      const { port } = server.address() as AddressInfo;
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v4/imports?kind=individuals&mode=upsert',
          headers: { Authorization: bearer(acme.admin.token), 'Content-Type': CSV, 'Content-Length': String(5 * 1024 ** 3) },
        },
        (res) => {
          resolve(res.statusCode ?? 0);
          res.resume();
          req.destroy();
        },
      );
      req.on('error', reject);
      req.write(`${HEADER}\r\n`);
    });
    expect(status).toBe(413);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // Nothing refused is left holding the site's place.
    const ok = await post(csv([row(acme, uniq('B'))]), CSV).expect(accepted);
    await drain();
    expect((await job(ok.body.ID)).body.State).toBe('succeeded');
  });
});
