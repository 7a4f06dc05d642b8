import { randomUUID } from 'node:crypto';
import { bearer, DB_KIND, startApp, TestApp } from './harness.js';
import { createSite, TestSite } from '../factories/index.js';
import {
  ImportErrorEntity,
  ImportFilePartEntity,
  ImportFilePartMysqlEntity,
  ImportJobEntity,
  ImportWaitingRowEntity,
  ImportWaitingRowMysqlEntity,
} from '../../src/database/entities/import-job.entity.js';
import { ImportProcessor } from '../../src/modules/imports/import-processor.js';
import { ImportRetention } from '../../src/modules/imports/import-retention.js';
import { declaredStatements } from '../../src/database/statements.js';
import { sqlInstant } from '../../src/database/journal.js';

/**
 * The retention of ended imports (docs/imports.md, "Retention"; issue 50): the sweep deletes the
 * jobs that succeeded, failed or were cancelled more than IMPORT_RETENTION_DAYS ago, in every site,
 * with their failed rows, waiting rows and file parts, and nothing else; and the claim poll reads
 * as much with thousands of ended jobs as with a few (database plan). On SQLite and (DATABASE_URL)
 * MariaDB. The processor's timer is off (IMPORTS=off): the tests run it by hand.
 */
const DAY = 24 * 3600_000;
const CSV = 'text/csv';
const HEADER = 'ExternalID,FirstName,LastName,UserName,Email,UserEmail,PrimaryOrganizationID,PrimaryTitle,PrimaryReportsTo';
let seq = 0;
const uniq = (p: string) => `${p}${Date.now().toString(36)}${(seq++).toString(36)}`;

/** The text of a named statement (of this database's dialect, for a family of dialects), as the service runs it. */
const statementText = (name: string) => {
  const { variants } = declaredStatements().find((d) => d.name === name)!;
  return (variants.find((v) => v.args === `('${DB_KIND}')`) ?? variants[0]).text;
};

describe(`import retention (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  let globex: TestSite;
  let processor: ImportProcessor;
  const mysql = DB_KIND === 'mysql';

  beforeAll(async () => {
    t = await startApp({ IMPORTS: 'off', IMPORT_RETENTION_DAYS: '30', IMPORT_CHUNK_ROWS: '5', IMPORT_LEASE_MS: '60000' });
    acme = await createSite(t);
    globex = await createSite(t);
    processor = t.app.get(ImportProcessor);
  });
  afterAll(async () => t?.close());

  /** A CSV of `good` people and `bad` rows without a first name (each a failed row). */
  const csv = (site: TestSite, good: number, bad: number) =>
    [
      HEADER,
      ...Array.from({ length: good + bad }, (_, i) =>
        [
          uniq('R'),
          i < good ? 'Ada' : '',
          uniq('L'),
          uniq('ret.'),
          `${uniq('ada')}@example.test`,
          `${uniq('ada')}@example.test`,
          site.orgId,
          'Analyst',
          '',
        ].join(','),
      ),
    ].join('\r\n') + '\r\n';
  const post = async (site: TestSite, body: string): Promise<string> => {
    const res = await t
      .http()
      .post('/v4/imports?kind=individuals&mode=upsert')
      .set('Authorization', bearer(site.admin.token))
      .set('Content-Type', CSV)
      .send(body);
    if (res.status !== 202) throw new Error(`expected 202 Accepted, got ${res.status}: ${res.text}`);
    return res.body.ID as string;
  };
  const drain = async () => {
    while (await processor.processOne()) {
      /* next */
    }
  };
  const getJob = (site: TestSite, id: string) => t.http().get(`/v4/imports/${id}`).set('Authorization', bearer(site.admin.token));
  const getErrors = (site: TestSite, id: string) => t.http().get(`/v4/imports/${id}/errors`).set('Authorization', bearer(site.admin.token));
  const jobs = () => t.ds.getRepository(ImportJobEntity);
  const errorRows = () => t.ds.getRepository(ImportErrorEntity);
  const waitingRows = () => t.ds.getRepository(mysql ? ImportWaitingRowMysqlEntity : ImportWaitingRowEntity);
  const fileParts = () => t.ds.getRepository(mysql ? ImportFilePartMysqlEntity : ImportFilePartEntity);
  /** Moves a job's end (and its start and creation) `days` back. */
  const endedAgo = (id: string, days: number) => {
    const at = new Date(Date.now() - days * DAY);
    return jobs().update({ id }, { created: at, started: at, finished: at });
  };
  /** How many rows of each kind a job keeps. */
  const kept = async (id: string) => ({
    errors: await errorRows().countBy({ importId: id }),
    waiting: await waitingRows().countBy({ importId: id }),
    parts: await fileParts().countBy({ importId: id }),
  });
  /** Rows a job would keep had its end not deleted them (a replica stopped half-way through it). */
  const leftovers = async (site: TestSite, importId: string, n: { errors?: number; waiting?: number; parts?: number }) => {
    const now = new Date();
    const base = { siteId: site.siteId, importId, created: now, updated: now };
    const problem = JSON.stringify({ type: 'urn:pms:problem:validation-failed', title: 'Validation failed', status: 400 });
    const errors = Array.from({ length: n.errors ?? 0 }, (_, i) => ({ ...base, line: 1000 + i, status: 400, externalId: null, problem }));
    for (let k = 0; k < errors.length; k += 500) await errorRows().insert(errors.slice(k, k + 500));
    for (let i = 0; i < (n.waiting ?? 0); i++)
      await waitingRows().insert({ ...base, rowNo: i, line: i + 2, pass: 1, externalId: `W${i}`, problem, item: JSON.stringify({ Op: 'upsert', Record: {} }) });
    for (let i = 0; i < (n.parts ?? 0); i++) await fileParts().insert({ ...base, partNo: i, data: Buffer.from(`part ${i}`).toString('base64') });
  };

  it('deletes exactly the imports that ended more than IMPORT_RETENTION_DAYS ago, in every site, with their failed rows, waiting rows and file parts; a running, queued or recent job is untouched', async () => {
    // acme: an old job with failed rows (2 from its file, 2,500 more: the errors go in several statements) …
    const acmeOld = await post(acme, csv(acme, 1, 2));
    await drain();
    await leftovers(acme, acmeOld, { errors: 2500 });
    await endedAgo(acmeOld, 31);
    // … one that ended 29 days ago, with a failed row …
    const acmeRecent = await post(acme, csv(acme, 2, 1));
    await drain();
    await endedAgo(acmeRecent, 29);
    // … an old cancelled one whose waiting rows and file parts were left behind …
    const acmeCancelled = await post(acme, csv(acme, 3, 0));
    await t.http().delete(`/v4/imports/${acmeCancelled}`).set('Authorization', bearer(acme.admin.token)).expect(200);
    await leftovers(acme, acmeCancelled, { waiting: 3, parts: 2 });
    await endedAgo(acmeCancelled, 40);
    // … and one running (one chunk of five written, its lease held), created 90 days ago.
    const acmeRunning = await post(acme, csv(acme, 12, 0));
    expect(await processor.processOne({ maxChunks: 1 })).toMatchObject({ outcome: 'stopped' });
    const ago90 = new Date(Date.now() - 90 * DAY);
    await jobs().update({ id: acmeRunning }, { created: ago90, started: ago90 });
    await leftovers(acme, acmeRunning, { errors: 2 });
    // globex: an old job with a failed row, an old one that failed with waiting rows left, and a queued one created 90 days ago.
    const globexOld = await post(globex, csv(globex, 1, 1));
    await drain();
    await endedAgo(globexOld, 300);
    const globexFailed = await post(globex, csv(globex, 1, 0));
    await drain();
    await jobs().update({ id: globexFailed }, { state: 'failed', problem: 'The file could not be read on' });
    await leftovers(globex, globexFailed, { waiting: 4, errors: 1 });
    await endedAgo(globexFailed, 31);
    const globexQueued = await post(globex, csv(globex, 2, 0));
    await jobs().update({ id: globexQueued }, { created: ago90 });

    const before = {
      acmeRecent: await kept(acmeRecent),
      acmeRunning: await kept(acmeRunning),
      globexQueued: await kept(globexQueued),
      acmeRecentJob: (await getJob(acme, acmeRecent).expect(200)).body,
      acmeRecentErrors: (await getErrors(acme, acmeRecent).expect(200)).body,
      running: await jobs().findOneByOrFail({ id: acmeRunning }),
      queued: await jobs().findOneByOrFail({ id: globexQueued }),
    };
    expect(before.acmeRecent).toEqual({ errors: 1, waiting: 0, parts: 0 });
    expect(before.acmeRunning.parts).toBeGreaterThan(0);
    expect(before.globexQueued.parts).toBeGreaterThan(0);
    expect(before.running).toMatchObject({ state: 'running', active: 1, finished: null });
    expect(before.queued).toMatchObject({ state: 'queued', active: 1, finished: null });

    const pruned = await t.app.get(ImportRetention).prune();
    expect(pruned).toEqual({ jobs: 4, errors: 2 + 2500 + 1 + 1, waitingRows: 3 + 4, fileParts: 2 });

    // Exactly the old ended jobs are gone, with every row they kept.
    const left = (await jobs().find({ where: [{ siteId: acme.siteId }, { siteId: globex.siteId }], select: { id: true } })).map((j) => j.id).sort();
    expect(left).toEqual([acmeRecent, acmeRunning, globexQueued].sort());
    for (const id of [acmeOld, acmeCancelled, globexOld, globexFailed]) expect({ id, ...(await kept(id)) }).toEqual({ id, errors: 0, waiting: 0, parts: 0 });
    for (const [site, id] of [
      [acme, acmeOld],
      [acme, acmeCancelled],
      [globex, globexOld],
      [globex, globexFailed],
    ] as const) {
      await getJob(site, id).expect(404);
      await getErrors(site, id).expect(404);
    }
    // The others are as they were: their rows, their answers, the running job's lease and the queued one's place.
    expect(await kept(acmeRecent)).toEqual(before.acmeRecent);
    expect(await kept(acmeRunning)).toEqual(before.acmeRunning);
    expect(await kept(globexQueued)).toEqual(before.globexQueued);
    expect((await getJob(acme, acmeRecent).expect(200)).body).toEqual(before.acmeRecentJob);
    expect((await getErrors(acme, acmeRecent).expect(200)).body).toEqual(before.acmeRecentErrors);
    expect(await jobs().findOneByOrFail({ id: acmeRunning })).toEqual(before.running);
    expect(await jobs().findOneByOrFail({ id: globexQueued })).toEqual(before.queued);

    // A second sweep finds nothing; the recent job goes once it is past the retention.
    expect(await t.app.get(ImportRetention).prune()).toEqual({ jobs: 0, errors: 0, waitingRows: 0, fileParts: 0 });
    expect(await t.app.get(ImportRetention).prune(new Date(Date.now() + 2 * DAY))).toEqual({ jobs: 1, errors: 1, waitingRows: 0, fileParts: 0 });
    await getJob(acme, acmeRecent).expect(404);

    // The jobs still going end as they would have (the running one resumed once its lease runs out, as after a replica's death).
    await jobs().update({ id: acmeRunning }, { leaseUntil: new Date(Date.now() - 1000) });
    await drain();
    expect((await getJob(acme, acmeRunning).expect(200)).body).toMatchObject({ State: 'succeeded', RowsWritten: 12 });
    expect((await getJob(globex, globexQueued).expect(200)).body).toMatchObject({ State: 'succeeded', RowsWritten: 2 });
  });

  describe('database plans', () => {
    let busy: TestSite;
    /** Inserts `n` jobs of the site that ended `days` ago, straight into the table. */
    const ended = async (site: TestSite, n: number, days: number) => {
      const at = new Date(Date.now() - days * DAY);
      const rows = Array.from({ length: n }, (_, i) => ({
        id: randomUUID(),
        siteId: site.siteId,
        created: at,
        updated: at,
        kind: 'individuals',
        mode: 'upsert',
        format: 'csv',
        state: (['succeeded', 'failed', 'cancelled'] as const)[i % 3],
        active: null,
        caller: '{}',
        started: at,
        finished: at,
      }));
      for (let k = 0; k < rows.length; k += 500) await jobs().insert(rows.slice(k, k + 500));
    };

    beforeAll(async () => {
      busy = await createSite(t);
      await ended(busy, 20, 1);
      // A queued job in the busy site, which the poll finds.
      await post(busy, csv(busy, 1, 0));
    });

    it('the claim poll reads as many rows with 3,000 ended jobs as with 20: from the sites to each one’s active job (ux_import_jobs_site_active), never the ended ones', async () => {
      const due = statementText('imports.due');
      const params = [sqlInstant(new Date()), 5];
      if (mysql) {
        const runner = t.ds.createQueryRunner();
        try {
          const counters = async () =>
            ((await runner.query("SHOW SESSION STATUS LIKE 'Handler_read%'")) as { Value: string }[]).reduce((sum, r) => sum + Number(r.Value), 0);
          const reads = async () => {
            const at = await counters();
            const found = (await runner.query(due, params)) as { site_id: string }[];
            expect(found.map((r) => r.site_id)).toContain(busy.siteId);
            return (await counters()) - at;
          };
          await runner.query('ANALYZE TABLE import_jobs, change_seqs');
          const few = await reads();
          await ended(busy, 2980, 1);
          await runner.query('ANALYZE TABLE import_jobs, change_seqs');
          const many = await reads();
          const plan = (await runner.query(`EXPLAIN ${due}`, params)) as { table: string; type: string; key: string | null; rows: number }[];
          // Each site's active job by the unique index (site, active); the ended jobs are never read.
          expect(plan.find((p) => p.table === 'j')).toMatchObject({ type: expect.stringMatching(/^(eq_)?ref$/), key: 'ux_import_jobs_site_active' });
          expect({ few, many, grew: many > few }).toMatchObject({ grew: false });
          expect(few).toBeLessThan(100);
        } finally {
          await runner.release();
        }
      } else {
        await ended(busy, 2980, 1);
        const plan = ((await t.ds.query(`EXPLAIN QUERY PLAN ${due}`, params)) as { detail: string }[]).map((r) => r.detail);
        expect(plan).toContainEqual(expect.stringMatching(/^SEARCH j USING INDEX ux_import_jobs_site_active \(site_id=\? AND active=\?\)/));
        expect(plan.filter((d) => /^SCAN j\b/.test(d))).toEqual([]);
      }
    });

    it('the sweep finds a site’s ended jobs by ix_import_jobs_site_finished', async () => {
      const sql = statementText('imports.ended-jobs');
      const params = [busy.siteId, sqlInstant(new Date()), 500];
      if (mysql) {
        const plan = (await t.ds.query(`EXPLAIN ${sql}`, params)) as { key: string | null; Extra: string }[];
        // The site's entries up to the cutoff, in the index's order: no sort.
        expect(plan).toEqual([expect.objectContaining({ key: 'ix_import_jobs_site_finished' })]);
        expect(plan[0].Extra).not.toMatch(/filesort/);
      } else {
        const plan = ((await t.ds.query(`EXPLAIN QUERY PLAN ${sql}`, params)) as { detail: string }[]).map((r) => r.detail);
        expect(plan).toEqual([expect.stringMatching(/^SEARCH import_jobs USING INDEX ix_import_jobs_site_finished \(site_id=\? AND finished<\?\)/)]);
      }
      // And deletes them all, in batches of 500.
      expect((await t.app.get(ImportRetention).prune(new Date(Date.now() + 31 * DAY))).jobs).toBeGreaterThanOrEqual(3000);
      // The busy site's queued job alone is left.
      expect(await jobs().findBy({ siteId: busy.siteId })).toEqual([expect.objectContaining({ state: 'queued', finished: null })]);
    });
  });
});
