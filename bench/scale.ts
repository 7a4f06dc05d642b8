/**
 * The 1,000,000-person site (issue 50's scale run, issue 51's targets on it): SCALE_ROWS (1,000,000)
 * individuals imported into one site from one CSV through `POST /v4/imports` (end to end, the importing
 * service's RSS read every 100 ms throughout: ≤ 400 MB), then on that site, as bench.ts measures its rows
 * (autocannon in its own process, each row between two halves of its baseline, medians of BENCH_ROUNDS):
 *
 *  - `GET /v4/individuals/{id}` against the yardstick's by-id read (the limit): ≥ 0.5×;
 *  - `filter=LastName sw "Person 1"` page of 100 (about a ninth of the site matches) against a plain
 *    page of 100: costs ≤ 2× (its rate ≥ 0.5× the plain page's);
 *  - `sort=-Updated` and `sort=FirstName` pages of 100 (indexed fields) against a plain page of 100:
 *    the same bound;
 *  - a cursor page of 100 near the end (within the last 5,100 rows) against the first cursor page:
 *    costs what the first page costs (taken as ≤ 1.25×);
 *  - after a period around today is added and the site's dashboard summaries are built for it (the
 *    time it took is printed): the dashboards of the whole organization (≤ 20 by-id reads) and of
 *    one person (≤ 3) against the by-id read, `GET /v4/me` and `GET /v4/organizations/{id}` against
 *    the limit (≥ 0.4×), and `POST /v4/comments` against the write limit (the yardstick inserting
 *    one comment in a transaction: ≥ 0.2×), as bench.ts measures them;
 *  - the CSV export of the whole site against the export limit (bench/raw-server.ts `GET
 *    /individuals.csv`), SCALE_EXPORT_ROUNDS (2) rounds taking turns: ≥ 0.5×, RSS growth ≤ 50 MB;
 *    and the XLSX export against the same limit: ≥ 0.25×.
 *
 * The service and the yardstick are their own processes on a database of their own, migrated first,
 * as deployed (bench/common.ts).
 *
 *   npm run bench:scale                      # MariaDB (BENCH_DATABASE_URL, default mysql://root@127.0.0.1:3306/)
 *   SCALE_ROWS=50000 npm run bench:scale     # a smaller site
 *   npm run bench:scale -- --sqlite          # the embedded SQLite file
 *
 * Knobs: SCALE_ROWS, SCALE_EXPORT_ROUNDS, BENCH_DURATION (5 s a row and round), BENCH_ROUNDS (2),
 * BENCH_CONNECTIONS (50, by-id reads), BENCH_PAGE_CONNECTIONS (10, pages).
 */
import {
  awaitSummaries,
  call,
  createDatabase,
  databasePid,
  exportRows,
  fmt,
  importCsv,
  load,
  log,
  migrateFirst,
  num,
  peopleCsv,
  quietAll,
  quietText,
  startService,
  startYardstick,
  stopProcess,
  tokenFor,
  versus,
} from './common.js';
import type { LoadJob } from './load.js';

const PASSWORD = 'bench-password-1';
const ROWS = num('SCALE_ROWS', 1_000_000);
const EXPORT_ROUNDS = num('SCALE_EXPORT_ROUNDS', 2);
/** At most this many seconds for the site's dashboard summaries to be built after the import. */
const SUMMARY_WAIT = num('BENCH_DASH_WAIT', 900);
const DURATION = num('BENCH_DURATION', 5);
const ROUNDS = num('BENCH_ROUNDS', 2);
const CONNECTIONS = num('BENCH_CONNECTIONS', 50);
const PAGE_CONNECTIONS = num('BENCH_PAGE_CONNECTIONS', 10);
/** The page the cursor walk reads to reach the end of the site (IDs only). */
const WALK_PAGE = 5000;

const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');

/**
 * Walks the site's list by cursor, WALK_PAGE IDs a page: answers a sample of IDs spread over the whole
 * site (the by-id rows read them) and the cursor of the last page that still has a full page of 100
 * after it (within the last WALK_PAGE + 100 rows).
 */
async function walk(origin: string, token: string): Promise<{ ids: string[]; lastCursor: string; pages: number }> {
  const ids: string[] = [];
  const pages: { cursor: string; rows: number }[] = [];
  let cursor = 'start';
  for (;;) {
    const res = await fetch(`${origin}/v4/individuals?limit=${WALK_PAGE}&fields=ID&cursor=${encodeURIComponent(cursor)}`, {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
    });
    if (res.status !== 200) throw new Error(`cursor walk: ${res.status} ${(await res.text()).slice(0, 500)}`);
    const page = (await res.json()) as { ID: string }[];
    pages.push({ cursor, rows: page.length });
    ids.push(...page.filter((_, k) => k % 50 === 0).map((r) => r.ID));
    const next = /<([^>]*)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    if (!next) break;
    cursor = new URL(next, origin).searchParams.get('cursor') ?? '';
    if (!cursor) throw new Error(`cursor walk: a next link without a cursor: ${next}`);
  }
  // The last page may hold a single row: the cursor taken is the last one with 100 rows or more from it on.
  let after = 0;
  for (let k = pages.length - 1; k >= 0; k--) {
    after += pages[k].rows;
    if (after >= 100) return { ids, lastCursor: pages[k].cursor, pages: pages.length };
  }
  throw new Error(`cursor walk: the site has ${after} individuals, fewer than a page of 100`);
}

async function main(): Promise<void> {
  const sqlite = process.argv.includes('--sqlite');
  const started = Date.now();
  const database = await createDatabase(sqlite);
  const dbPid = sqlite ? null : databasePid();
  migrateFirst(database.url);
  const { service, origin } = await startService(database.url, PASSWORD);
  const { raw, rawOrigin } = await startYardstick(database.url);
  const lines: string[] = [];
  const exports: string[] = [];
  try {
    const token = await tokenFor(origin, 'admin', PASSWORD);
    const me = (await call(origin, token, 'GET', '/v4/me')) as { PrimaryOrganizationID: string; SiteID: string };
    const file = peopleCsv('scale', ROWS, me.PrimaryOrganizationID);
    log(`importing ${fmt(ROWS)} individuals from one CSV of ${fmt(file.byteLength / 1e6, 1)} MB`);
    const imp = await importCsv(origin, token, file, service.pid);
    const rate = ROWS / imp.s;
    log(
      `imported ${fmt(ROWS)} rows in ${fmt(imp.s, 1)} s (${fmt(rate)} rows/s), RSS peak ${fmt(imp.peakRssMb)} MB (${fmt(imp.postPeakRssMb)} MB while the POST stored and checked the file)`,
    );
    lines.push(`| import of ${fmt(ROWS)} individuals from one CSV, end to end | ${fmt(rate)} rows/s (${fmt(imp.s, 1)} s) | | |`);
    lines.push(
      `| the importing service's RSS, peak (read every 100 ms; during the POST that stored and checked the file: ${fmt(imp.postPeakRssMb)} MB) | ${fmt(imp.peakRssMb)} MB | ≤ 400 MB | ${verdict(imp.peakRssMb <= 400)} |`,
    );
    // The import's changes reach the whole site: its summaries are built again, and the rows are measured after,
    // once the database has done what the import left it (its purge, flushing pages).
    await awaitSummaries(origin, token, [`/v4/organizations/${me.PrimaryOrganizationID}/dashboards`], SUMMARY_WAIT);
    const afterImport = await quietAll([service.pid, raw.pid, dbPid], `${origin}/health/ready`, SUMMARY_WAIT * 1000);
    log(`after the import (service, yardstick${dbPid ? ', database' : ''}): ${quietText(afterImport)}`);

    const t0 = Date.now();
    const { ids, lastCursor, pages } = await walk(origin, token);
    log(`cursor walk: ${pages} pages of ${fmt(WALK_PAGE)} IDs in ${fmt((Date.now() - t0) / 1000, 1)} s`);
    const h = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
    const job = (requests: LoadJob['requests'], connections = PAGE_CONNECTIONS): LoadJob => ({ origin, requests, connections, duration: DURATION });
    const page = (query: string) => job([{ path: `/v4/individuals?limit=100${query}`, headers: h }]);
    const limitById: LoadJob = {
      ...job(
        ids.map((id) => ({ path: `/individuals/${id}?site=${me.SiteID}` })),
        CONNECTIONS,
      ),
      origin: rawOrigin,
    };
    const byId = job(
      ids.map((id) => ({ path: `/v4/individuals/${id}`, headers: h })),
      CONNECTIONS,
    );
    const plain = page('');
    const filtered = page(`&filter=${encodeURIComponent('LastName sw "Person 1"')}`);
    const byUpdated = page('&sort=-Updated');
    const byFirstName = page('&sort=FirstName');
    const first = page('&cursor=start');
    const end = page(`&cursor=${encodeURIComponent(lastCursor)}`);
    for (const [name, j] of [
      ['the first cursor page', first],
      ['the cursor page near the end', end],
    ] as const) {
      const rows = (await call(origin, token, 'GET', j.requests[0].path)) as unknown[];
      if (rows.length !== 100) throw new Error(`${name}: ${rows.length} rows, not 100`);
    }
    // Each half of a row starts on a quiet machine: the service, the yardstick and the local database
    // idle (the database's purge and page flushing after the import and the writes are not timed with
    // the reads after them).
    const settleAll = async () => {
      const q = await quietAll([service.pid, raw.pid, dbPid], `${origin}/health/ready`);
      if (q.waitedMs > 2000 || !q.quiet) log(`before a row: ${quietText(q)}`);
    };
    /** One second of each job first, the processes idle before each. */
    const warm = async (jobs: readonly LoadJob[]) => {
      for (const j of jobs) {
        await settleAll();
        await load({ ...j, duration: 1 });
      }
    };
    log('warm-up');
    await warm([limitById, byId, plain, filtered, byUpdated, byFirstName, first, end]);
    const id = await versus('by-id read', byId, limitById, ROUNDS, settleAll);
    const f = await versus('filtered page of 100', filtered, plain, ROUNDS, settleAll);
    const su = await versus('page of 100 sorted by -Updated', byUpdated, plain, ROUNDS, settleAll);
    const sf = await versus('page of 100 sorted by FirstName', byFirstName, plain, ROUNDS, settleAll);
    const c = await versus('cursor page at the end', end, first, ROUNDS, settleAll);
    lines.push(
      `| \`GET /v4/individuals/{id}\` ÷ the limit (\`SELECT * … WHERE id = ?\`, ${fmt(id.baseRps)} req/s) | ${fmt(id.ratio, 2)} (${fmt(id.rps)} req/s) | ≥ 0.5 | ${verdict(id.ratio >= 0.5)} |`,
      `| \`?limit=100&filter=LastName sw "Person 1"\`: cost ÷ a plain page of 100 (${fmt(f.baseRps)} req/s) | ${fmt(1 / f.ratio, 2)}× (${fmt(f.rps)} req/s) | ≤ 2× | ${verdict(1 / f.ratio <= 2)} |`,
      ...(
        [
          ['-Updated', su],
          ['FirstName', sf],
        ] as const
      ).map(
        ([field, r]) =>
          `| \`?limit=100&sort=${field}\`: cost ÷ a plain page of 100 (${fmt(r.baseRps)} req/s) | ${fmt(1 / r.ratio, 2)}× (${fmt(r.rps)} req/s) | ≤ 2× | ${verdict(1 / r.ratio <= 2)} |`,
      ),
      `| \`?limit=100&cursor=…\` near the end (within the last ${fmt(WALK_PAGE + 100)}): cost ÷ the first cursor page (${fmt(c.baseRps)} req/s) | ${fmt(1 / c.ratio, 2)}× (${fmt(c.rps)} req/s) | ≤ 1.25× | ${verdict(1 / c.ratio <= 1.25)} |`,
    );

    // The rest of the read mix on the same site (bench.ts's targets): a period around today gives the
    // site dashboards; its summaries are built for the whole site first, then the dashboards of the
    // whole organization and of one person are measured in by-id reads, `GET /v4/me` and an
    // organization by id against the limit, and a comment written against the write limit last (a
    // write moves the summaries on; the dashboards are measured before).
    const year = new Date().getUTCFullYear();
    await call(origin, token, 'POST', '/v4/periods', { Name: `FY ${year}`, StartDate: `${year}-01-01T00:00:00Z`, EndDate: `${year}-12-31T23:59:59.999Z` });
    const orgDashboards = `/v4/organizations/${me.PrimaryOrganizationID}/dashboards`;
    const built = Date.now();
    await awaitSummaries(origin, token, [orgDashboards, `/v4/individuals/${ids[1]}/dashboards`], SUMMARY_WAIT);
    const buildS = (Date.now() - built) / 1000;
    const orgDash = job([{ path: orgDashboards, headers: h }]);
    const personDash = job(ids.slice(0, 2000).map((id) => ({ path: `/v4/individuals/${id}/dashboards`, headers: h })));
    const meJob = job([{ path: '/v4/me', headers: h }], CONNECTIONS);
    const orgById = job([{ path: `/v4/organizations/${me.PrimaryOrganizationID}`, headers: h }], CONNECTIONS);
    const limitWrite: LoadJob = {
      ...job(
        ids.map((id) => ({ path: `/comments?site=${me.SiteID}&on=${id}`, method: 'POST' as const })),
        CONNECTIONS,
      ),
      origin: rawOrigin,
    };
    const comment = job(
      ids.map((id, k) => ({
        path: '/v4/comments',
        method: 'POST' as const,
        headers: { ...h, 'Content-Type': 'application/json' },
        body: JSON.stringify({ AncestorType: 'individuals', AncestorID: id, Body: `Scale comment ${k}` }),
      })),
      CONNECTIONS,
    );
    await warm([orgDash, personDash, meJob, orgById]);
    const od = await versus('organization dashboards (the whole site)', orgDash, byId, ROUNDS, settleAll);
    const pd = await versus('individual dashboards', personDash, byId, ROUNDS, settleAll);
    const mr = await versus('GET /v4/me', meJob, limitById, ROUNDS, settleAll);
    const or = await versus('organization by id', orgById, limitById, ROUNDS, settleAll);
    const cw = await versus('POST /v4/comments', comment, limitWrite, ROUNDS, settleAll);
    lines.push(
      `| the site's dashboard summaries built for a new period (the whole site) | ${fmt(buildS)} s | | |`,
      `| \`GET /v4/organizations/{id}/dashboards\` (the whole site) in by-id reads (${fmt(od.rps)} against ${fmt(od.baseRps)} req/s) | ${fmt(1 / od.ratio, 1)}× | ≤ 20× | ${verdict(1 / od.ratio <= 20)} |`,
      `| \`GET /v4/individuals/{id}/dashboards\` in by-id reads (${fmt(pd.rps)} against ${fmt(pd.baseRps)} req/s) | ${fmt(1 / pd.ratio, 1)}× | ≤ 3× | ${verdict(1 / pd.ratio <= 3)} |`,
      `| \`GET /v4/me\` ÷ the limit (${fmt(mr.baseRps)} req/s) | ${fmt(mr.ratio, 2)} (${fmt(mr.rps)} req/s) | ≥ 0.4 | ${verdict(mr.ratio >= 0.4)} |`,
      `| \`GET /v4/organizations/{id}\` ÷ the limit (${fmt(or.baseRps)} req/s) | ${fmt(or.ratio, 2)} (${fmt(or.rps)} req/s) | ≥ 0.4 | ${verdict(or.ratio >= 0.4)} |`,
      `| \`POST /v4/comments\` ÷ the write limit (one comment inserted in a transaction, ${fmt(cw.baseRps)} req/s) | ${fmt(cw.ratio, 2)} (${fmt(cw.rps)} req/s) | ≥ 0.2 | ${verdict(cw.ratio >= 0.2)} |`,
    );

    await settleAll();
    exports.push(
      ...(await exportRows({
        origin,
        token,
        servicePid: service.pid,
        rawOrigin,
        rawPid: raw.pid,
        siteId: me.SiteID,
        // The site's other individuals (the administrator) are exported too.
        rows: ROWS,
        formats: [
          { name: 'CSV', accept: 'text/csv', target: 0.5 },
          { name: 'XLSX', accept: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', target: 0.25 },
        ],
        rounds: EXPORT_ROUNDS,
        warm: false,
      })),
    );
  } finally {
    await stopProcess(raw);
    await stopProcess(service);
    await database.drop();
  }
  const kind = sqlite ? 'SQLite' : 'MariaDB';
  console.log(
    [
      `| ${kind}, one site of ${fmt(ROWS)} imported individuals, ${ROUNDS} rounds × ${DURATION} s a row | measured | target | |`,
      '|---|---:|---|---|',
      ...lines,
    ].join('\n'),
  );
  console.log(
    ['', `| the whole site as CSV, medians of ${EXPORT_ROUNDS} rounds | rows/s | ÷ the limit | target | |`, '|---|---:|---:|---|---|', ...exports].join('\n'),
  );
  console.log(`\nTotal run time ${Math.round((Date.now() - started) / 1000)} s.`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
