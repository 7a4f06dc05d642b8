/**
 * Bulk writes (docs/bulk.md): rows a second of 1,000 new individuals written by one
 * `POST /v4/individuals/bulk`, against the same 1,000 rows written by single `POST /v4/individuals`
 * (one at a time, and BULK_CONCURRENCY (8) in flight), then the same bulk sent again (nothing
 * changes) and with every row changed. The service is its own process, migrated first, as deployed.
 *
 * The bulk limit (issue 50): the yardstick (bench/raw-server.ts, node:http + mysql2) upserts the
 * same people's individual rows by (site_id, external_id) with multi-row INSERTs of 500, each in a
 * transaction, and nothing else; BULK_ROUNDS (3) rounds each time 1,000 new and 1,000 changed rows
 * through both, taking turns, and the medians give the ratios the targets are on (bulk upsert
 * ≥ 0.3× the limit, stretch 0.5×). The service writes more for each row than the limit does: the
 * person's login account (the items carry a UserName), their membership, an audit row for each of
 * the three; the table after the ratios says how many rows the database wrote an item for each (MariaDB),
 * and the next where the service's chunks of those rounds spent their time (its metrics'
 * `pms_bulk_chunk_phase_seconds`: reads ahead, items, writes and commit; docs/operations.md "Metrics").
 *
 * The import (docs/imports.md): IMPORT_BENCH_ROWS (100,000; 0 leaves it out) new people with the bulk
 * rows' fields, one CSV, `POST /v4/imports?kind=individuals&mode=upsert` until the job has succeeded,
 * end to end: rows a second and their ratio to the bulk limit's for new rows (≥ 0.25×), measured around
 * it (IMPORT_LIMIT_ROUNDS (3) rounds of 1,000 new rows right before the import and as many right after,
 * the median: the machine's pace drifts over the minutes between the rounds above and the import), the
 * service's RSS read throughout (peak). Then by-id reads (autocannon as bench.ts drives them, BENCH_CONNECTIONS (50)
 * for BENCH_DURATION (5) s) quiet, and while a second import of as many other people runs: p99 ≤ 3×
 * the quiet p99, rate ≥ 0.5× the quiet rate.
 *
 *   npm run bench:bulk              # MariaDB (BENCH_DATABASE_URL, default mysql://root@127.0.0.1:3306/)
 *   npm run bench:bulk -- --sqlite  # the embedded SQLite file
 */
import { randomUUID } from 'node:crypto';
import {
  addPhasesSpent,
  benchPerson as person,
  bulkPhases,
  type BulkPhases,
  call,
  createDatabase,
  databasePid,
  fmt,
  importCsv,
  dbRowCounter,
  load,
  log,
  median,
  migrateFirst,
  noPhases,
  num,
  peopleCsv,
  quietAll,
  quietText,
  settle,
  startService,
  startYardstick,
  stopProcess,
  tokenFor,
} from './common.js';
import type { LoadJob, LoadResult } from './load.js';

const PASSWORD = 'bench-password-1';
const ROWS = num('BULK_ROWS', 1000);
const CONCURRENCY = num('BULK_CONCURRENCY', 8);
const ROUNDS = num('BULK_ROUNDS', 3);
const IMPORT_ROWS = num('IMPORT_BENCH_ROWS', 100_000);
const READ_DURATION = num('BENCH_DURATION', 5);
const READ_CONNECTIONS = num('BENCH_CONNECTIONS', 50);
/** Rounds of the bulk limit's new rows measured right before the import alone, and as many right after. */
const AROUND_ROUNDS = num('IMPORT_LIMIT_ROUNDS', 3);

async function seconds(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
}

async function timed(what: string, rows: number, fn: () => Promise<void>): Promise<string> {
  const s = await seconds(fn);
  log(`${what}: ${fmt(rows)} rows in ${fmt(s, 2)} s`);
  return `| ${what} | ${fmt(rows)} | ${fmt(s, 2)} s | ${fmt(rows / s)} |`;
}

async function main(): Promise<void> {
  const sqlite = process.argv.includes('--sqlite');
  const database = await createDatabase(sqlite);
  migrateFirst(database.url);
  const { service, origin, metrics } = await startService(database.url, PASSWORD);
  const { raw, rawOrigin } = await startYardstick(database.url);
  const out: string[] = [];
  const ratios: string[] = [];
  const imported: string[] = [];
  let counter: Awaited<ReturnType<typeof dbRowCounter>> = null;
  try {
    const token = await tokenFor(origin, 'admin', PASSWORD);
    const me = (await call(origin, token, 'GET', '/v4/me')) as { PrimaryOrganizationID: string };
    const org = me.PrimaryOrganizationID;
    // Warm-up: the first writes prepare statements and fill caches.
    for (let i = 0; i < 20; i++) await call(origin, token, 'POST', '/v4/individuals', person('warm', i, org));

    out.push(
      await timed('single POST /v4/individuals, one at a time', ROWS, async () => {
        for (let i = 0; i < ROWS; i++) await call(origin, token, 'POST', '/v4/individuals', person('one', i, org));
      }),
    );
    out.push(
      await timed(`single POST /v4/individuals, ${CONCURRENCY} in flight`, ROWS, async () => {
        let next = 0;
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (next < ROWS) await call(origin, token, 'POST', '/v4/individuals', person('par', next++, org));
          }),
        );
      }),
    );
    const items = (title: string) => Array.from({ length: ROWS }, (_, i) => ({ Op: 'upsert', Record: person('bulk', i, org, title) }));
    /** The records' IDs of the last bulk checked (the people the import rows read by id). */
    let written: string[] = [];
    const check = (answer: unknown) => {
      const a = answer as { Failed: number; Results: { Status: number; ID: string; Problem: unknown }[] };
      if (a.Failed) throw new Error(`bulk: ${a.Failed} items failed, e.g. ${JSON.stringify(a.Results.find((r) => r.Status !== 200))}`);
      written = a.Results.map((r) => r.ID);
    };
    out.push(
      await timed('POST /v4/individuals/bulk, 1,000 new (upsert by ExternalID)', ROWS, async () =>
        check(await call(origin, token, 'POST', '/v4/individuals/bulk', { Items: items('Analyst') })),
      ),
    );
    out.push(
      await timed('the same bulk again (nothing changes, nothing written)', ROWS, async () =>
        check(await call(origin, token, 'POST', '/v4/individuals/bulk', { Items: items('Analyst') })),
      ),
    );
    out.push(
      await timed('the same bulk, every row changed (PrimaryTitle)', ROWS, async () =>
        check(await call(origin, token, 'POST', '/v4/individuals/bulk', { Items: items('Lead') })),
      ),
    );
    out.push(
      await timed('POST /v4/individuals/bulk?atomic=true, 1,000 new', ROWS, async () =>
        check(
          await call(origin, token, 'POST', '/v4/individuals/bulk?atomic=true', {
            Items: Array.from({ length: ROWS }, (_, i) => ({ Op: 'create', Record: person('atom', i, org) })),
          }),
        ),
      ),
    );

    // The bulk limit, BULK_ROUNDS rounds: new rows, then every row changed, through the service and the yardstick in turn.
    const rawSite = randomUUID();
    const rawPeople = (run: string, title: string) =>
      Array.from({ length: ROWS }, (_, i) => {
        const p = person(run, i, org, title);
        return { ExternalID: p.ExternalID, FirstName: p.FirstName, LastName: p.LastName, Email: p.Email, PrimaryOrganizationID: org, PrimaryTitle: title };
      });
    const rawBulk = async (people: unknown[]) => {
      const res = await fetch(`${rawOrigin}/individuals/bulk?site=${rawSite}`, { method: 'POST', body: JSON.stringify(people) });
      if (res.status !== 200) throw new Error(`yardstick bulk: ${res.status}`);
      await res.text();
    };
    const serviceBulk = async (run: string, title: string) =>
      check(
        await call(origin, token, 'POST', '/v4/individuals/bulk', {
          Items: Array.from({ length: ROWS }, (_, i) => ({ Op: 'upsert', Record: person(run, i, org, title) })),
        }),
      );
    const t = { serviceNew: [] as number[], serviceChanged: [] as number[], rawNew: [] as number[], rawChanged: [] as number[] };
    // What the database wrote for each step (its rows written and changed, read around it).
    counter = await dbRowCounter(database.url);
    const dbRows = { serviceNew: { ins: 0, upd: 0 }, serviceChanged: { ins: 0, upd: 0 }, rawNew: { ins: 0, upd: 0 }, rawChanged: { ins: 0, upd: 0 } };
    // And where the service's chunks spent their time, from its metrics (docs/operations.md, "Metrics").
    const phases = { serviceNew: noPhases(), serviceChanged: noPhases() };
    // Each step starts on a quiet machine: the service, the yardstick and the local database idle
    // (what the step before left running, the service's deferred work or the database's purge and
    // page flushing, would otherwise be timed with whichever step came next).
    const dbPid = sqlite ? null : databasePid();
    const waits = Object.fromEntries(Object.keys(t).map((k) => [k, { waitedMs: 0, cpuMs: [0, 0, 0], steps: 0 }])) as Record<
      keyof typeof t,
      { waitedMs: number; cpuMs: number[]; steps: number }
    >;
    /** Waits until the service, the yardstick and the local database are idle together; a wait cut short is logged, naming `what`. */
    const quiet = async (what: string) => {
      const q = await quietAll([service.pid, raw.pid, dbPid], `${origin}/health/ready`);
      if (!q.quiet) log(`${what}: ${quietText(q)}; timed all the same`);
      return q;
    };
    const step = async (key: keyof typeof t, fn: () => Promise<void>) => {
      const q = await quiet(key);
      const w = waits[key];
      w.waitedMs += q.waitedMs;
      q.cpuMs.forEach((ms, k) => (w.cpuMs[k] += ms));
      w.steps++;
      const before = await counter?.read();
      const spent = key in phases && metrics ? await bulkPhases(metrics, 'Individual') : null;
      t[key].push(await seconds(fn));
      const after = await counter?.read();
      if (before && after) {
        dbRows[key].ins += after.inserted - before.inserted;
        dbRows[key].upd += after.updated - before.updated;
      }
      if (spent) addPhasesSpent(phases[key as keyof typeof phases], spent, await bulkPhases(metrics!, 'Individual'));
    };
    for (let r = 0; r < ROUNDS; r++) {
      const run = `round${r}`;
      const service = async () => {
        await step('serviceNew', () => serviceBulk(run, 'Analyst'));
        await step('serviceChanged', () => serviceBulk(run, 'Lead'));
      };
      const limit = async () => {
        await step('rawNew', () => rawBulk(rawPeople(run, 'Analyst')));
        await step('rawChanged', () => rawBulk(rawPeople(run, 'Lead')));
      };
      // Taking turns, the order reversed every other round.
      if (r % 2 === 0) await limit().then(service);
      else await service().then(limit);
      log(
        `bulk round ${r + 1}/${ROUNDS}: service ${fmt(t.serviceNew[r], 2)} s new, ${fmt(t.serviceChanged[r], 2)} s changed; limit ${fmt(t.rawNew[r], 3)} s, ${fmt(t.rawChanged[r], 3)} s`,
      );
    }
    // What each step left running: the wait before the step after it (the order alternates).
    for (const [key, w] of Object.entries(waits))
      log(
        `quiet before ${key}: ${fmt(w.waitedMs / w.steps)} ms a round; CPU meanwhile (ms): service ${fmt(w.cpuMs[0] / w.steps)}, yardstick ${fmt(w.cpuMs[1] / w.steps)}` +
          (dbPid ? `, database ${fmt(w.cpuMs[2] / w.steps)}` : ''),
      );
    const rate = (xs: number[]) => ROWS / median(xs);
    for (const [what, svc, lim] of [
      [`bulk upsert of ${fmt(ROWS)} new individuals`, t.serviceNew, t.rawNew],
      [`bulk upsert of ${fmt(ROWS)} changed individuals`, t.serviceChanged, t.rawChanged],
    ] as const) {
      const ratio = rate(svc) / rate(lim);
      ratios.push(`| ${what} | ${fmt(rate(svc))} | ${fmt(rate(lim))} | ${fmt(ratio, 2)} | ≥ 0.3 (0.5) | ${ratio >= 0.3 ? 'met' : '**not met**'} |`);
    }
    if (counter) {
      const per = (w: { ins: number; upd: number }) => `${fmt(w.ins / (ROUNDS * ROWS), 1)} written, ${fmt(w.upd / (ROUNDS * ROWS), 1)} changed`;
      ratios.push(
        '',
        '| rows the database wrote an item (Handler_write, Handler_update; all rounds) | service | limit |',
        '|---|---:|---:|',
        `| a new individual | ${per(dbRows.serviceNew)} | ${per(dbRows.rawNew)} |`,
        `| a changed individual | ${per(dbRows.serviceChanged)} | ${per(dbRows.rawChanged)} |`,
      );
    }
    if (metrics) {
      const ms = (p: { chunks: number }, v: number) => (p.chunks ? fmt((1000 * v) / p.chunks, 1) : '–');
      const row = (what: string, p: BulkPhases) => `| ${what} | ${fmt(p.chunks)} | ${ms(p, p.readsAhead)} | ${ms(p, p.items)} | ${ms(p, p.commit)} |`;
      ratios.push(
        '',
        "| the service's chunks of the rounds above (mean ms a chunk; its metrics' pms_bulk_chunk_phase_seconds) | chunks | reads ahead | items | writes and commit |",
        '|---|---:|---:|---:|---:|',
        row('new individuals', phases.serviceNew),
        row('changed individuals', phases.serviceChanged),
      );
    }
    // The limit's new rows once more, on a quiet machine: the import is compared with the limit
    // measured around it (AROUND_ROUNDS rounds before it and as many after), not minutes before.
    const limitRound = async (run: string): Promise<number> => {
      await quiet('the limit around the import');
      return ROWS / (await seconds(() => rawBulk(rawPeople(run, 'Analyst'))));
    };
    if (IMPORT_ROWS > 0) imported.push(...(await importRows(origin, metrics, token, org, service.pid, written, rate(t.rawNew), limitRound, quiet)));
  } finally {
    await counter?.end();
    await stopProcess(raw);
    await stopProcess(service);
    await database.drop();
  }
  console.log([`| ${sqlite ? 'SQLite' : 'MariaDB'} | rows | time | rows/s |`, '|---|---:|---:|---:|', ...out].join('\n'));
  console.log(
    [
      '',
      `| the bulk limit (medians of ${ROUNDS} rounds) | service rows/s | limit rows/s | ratio | target (stretch) | |`,
      '|---|---:|---:|---:|---|---|',
      ...ratios,
    ].join('\n'),
  );
  if (imported.length)
    console.log(['', `| the import (${fmt(IMPORT_ROWS)} individuals from one CSV) | measured | target | |`, '|---|---:|---|---|', ...imported].join('\n'));
}

/**
 * The import rows (docs/imports.md): IMPORT_BENCH_ROWS new people (the bulk rows' fields) from one CSV,
 * `POST /v4/imports?kind=individuals&mode=upsert` until the job has succeeded, end to end, alone (rows a
 * second, and their ratio to `limitRate`, the bulk limit's rows a second for new rows in this run:
 * ≥ 0.25×), the service's RSS read every 100 ms throughout. Then by-id reads of `ids` (autocannon, as
 * bench.ts drives them: BENCH_CONNECTIONS, BENCH_DURATION s) quiet, and while a second import of as many
 * other new people runs: p99 ≤ 3× and rate ≥ 0.5× the quiet ones. Answers the table rows.
 */
async function importRows(
  origin: string,
  metrics: string | null,
  token: string,
  org: string,
  pid: number,
  ids: string[],
  roundsLimitRate: number,
  limitRound: (run: string) => Promise<number>,
  waitQuiet: (what: string) => Promise<unknown>,
): Promise<string[]> {
  const reads: LoadJob = {
    origin,
    requests: ids.map((id) => ({ path: `/v4/individuals/${id}`, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } })),
    connections: READ_CONNECTIONS,
    duration: READ_DURATION,
  };
  const measure = async (what: string) => {
    const r = await load(reads);
    if (r.non2xx || r.errors) throw new Error(`by-id reads ${what}: ${r.non2xx} non-2xx, ${r.errors} errors ${JSON.stringify(r.statuses)}`);
    log(`by-id reads ${what}: ${fmt(r.rps)} req/s, p99 ${r.p99} ms`);
    return r;
  };
  const ready = `${origin}/health/ready`;
  await settle(pid, ready);
  await load({ ...reads, duration: 1 });

  const file = peopleCsv('import', IMPORT_ROWS, org);
  const limitBefore: number[] = [];
  for (let k = 0; k < AROUND_ROUNDS; k++) limitBefore.push(await limitRound(`around-before-${k}`));
  await waitQuiet('the import alone');
  const phasesBefore = metrics ? await bulkPhases(metrics, 'Individual') : null;
  const alone = await importCsv(origin, token, file, pid);
  const rate = IMPORT_ROWS / alone.s;
  const limitAfter: number[] = [];
  for (let k = 0; k < AROUND_ROUNDS; k++) limitAfter.push(await limitRound(`around-after-${k}`));
  const limitRate = median([...limitBefore, ...limitAfter]);
  log(
    `bulk limit around the import: before ${limitBefore.map((r) => fmt(r)).join(', ')}; after ${limitAfter.map((r) => fmt(r)).join(', ')} rows/s (the rounds above: ${fmt(roundsLimitRate)})`,
  );
  // Where its chunks spent the import's time (the service's metrics), beside the time end to end.
  let phases = '';
  if (metrics && phasesBefore) {
    const spent = addPhasesSpent(noPhases(), phasesBefore, await bulkPhases(metrics, 'Individual'));
    const sec = (v: number) => `${fmt(v, 1)} s`;
    phases =
      `| the import's bulk chunks (the service's metrics; each import chunk's own commit is outside them): reads ahead, items, held writes sent | ${fmt(spent.chunks)} chunks: ` +
      `${sec(spent.readsAhead)}, ${sec(spent.items)}, ${sec(spent.commit)} of ${sec(alone.s)} | | |`;
  }
  log(
    `import alone: ${fmt(IMPORT_ROWS)} rows in ${fmt(alone.s, 1)} s, ${fmt(rate)} rows/s, RSS peak ${fmt(alone.peakRssMb)} MB (${fmt(alone.postPeakRssMb)} MB during the POST)`,
  );

  await settle(pid, ready);
  const quiet = await measure('quiet');
  await settle(pid, ready);
  const busy = await importCsv(origin, token, peopleCsv('import2', IMPORT_ROWS, org), pid, async (job): Promise<{ r: LoadResult; throughout: boolean }> => {
    const r = await measure('while the import runs');
    return { r, throughout: (await job()).State === 'running' };
  });
  if (!busy.during) throw new Error('the second import ended before the reads could start');
  const during = busy.during.r;
  const note = busy.during.throughout ? '' : ' (**the import ended before the reads did**: raise IMPORT_BENCH_ROWS)';
  const p99 = during.p99 / quiet.p99;
  const share = during.rps / quiet.rps;
  const ratio = rate / limitRate;
  const peak = Math.max(alone.peakRssMb, busy.peakRssMb);
  return [
    `| import end to end (\`POST /v4/imports\` until it has succeeded), alone | ${fmt(rate)} rows/s (${fmt(alone.s, 1)} s) | | |`,
    `| ÷ the bulk limit measured around it (${fmt(limitRate)} rows/s, new rows: the median of ${AROUND_ROUNDS} rounds before it and ${AROUND_ROUNDS} after) | ${fmt(ratio, 2)} | ≥ 0.25 | ${ratio >= 0.25 ? 'met' : '**not met**'} |`,
    `| ÷ the bulk limit of the rounds above (${fmt(roundsLimitRate)} rows/s) | ${fmt(rate / roundsLimitRate, 2)} | | |`,
    ...(phases ? [phases] : []),
    `| the service's RSS, peak while importing (read every 100 ms) | ${fmt(peak)} MB | ≤ 400 MB | ${peak <= 400 ? 'met' : '**not met**'} |`,
    `| by-id reads quiet: rate, p99 | ${fmt(quiet.rps)} req/s, ${fmt(quiet.p99)} ms | | |`,
    `| by-id reads while an import runs${note}: rate, p99 | ${fmt(during.rps)} req/s, ${fmt(during.p99)} ms | | |`,
    `| by-id p99 while importing ÷ quiet | ${fmt(p99, 2)}× | ≤ 3× | ${p99 <= 3 && !note ? 'met' : '**not met**'} |`,
    `| by-id rate while importing ÷ quiet | ${fmt(share, 2)} | ≥ 0.5 | ${share >= 0.5 && !note ? 'met' : '**not met**'} |`,
    `| the import under those reads, end to end | ${fmt(IMPORT_ROWS / busy.s)} rows/s (${fmt(busy.s, 1)} s) | | |`,
  ];
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
