import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearer, startApp, TestApp } from './harness.js';
import { createSite, TestSite } from '../factories/index.js';
import { createPeriod, DAY } from '../factories/goals.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationMemberEntity } from '../../src/database/entities/organization-member.entity.js';
import { GoalEntity } from '../../src/database/entities/goal.entity.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * An import's effects equal those of the same rows written one by one (issue 50, docs/imports.md
 * "How it is tested"), on SQLite and (DATABASE_URL) MariaDB.
 *
 * Two sites with the same starting data (a root organization, three departments with ExternalIDs,
 * a period, a webhook subscribed to every event). In `one`, a feed of people (managers named by
 * ExternalID, forward references among them, some in a second department, goals, rows that fail)
 * is written through the single routes (POST, PUT for changes); in `bulk`, the same rows are
 * imported (`POST /v4/imports`, CSV for people and memberships, NDJSON for goals). A second pass
 * changes some rows and leaves the others as they are: the single path PUTs the changed ones, the
 * import upserts the whole file again (an unchanged row writes nothing). Then, with IDs, site IDs
 * and timestamps replaced by stable names, both sites' audit trails (the list and every person's
 * history), change sequences (the sync route), webhook deliveries and dashboards (from the
 * summaries, caught up) must be equal, and the failing rows must fail alike.
 */
type Json = Record<string, unknown>;

const N = 60;
const RUN = Date.now().toString(36);
const CSV = 'text/csv';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** Keys whose values differ between any two writes (times, sequence numbers, request ids). */
const VOLATILE = new Set(['Seq', 'At', 'RequestID', 'Created', 'Updated', 'timestamp', 'id']);

/** One person of the feed as the HR system sends it: references by ExternalID. */
interface Row {
  ext: string;
  FirstName: string | null;
  LastName: string;
  UserName: string;
  Email: string | null;
  UserEmail: string;
  PrimaryTitle: string;
  dept: string;
  manager: string | null;
}

/** A local webhook receiver: every request's JSON body, in arrival order. */
class Receiver {
  readonly got: Json[] = [];
  private server!: Server;
  url = '';
  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.got.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json);
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }
  /** The events past `seq`, once each (delivery is at least once: a message id may come again). */
  events(seq: number): Json[] {
    const seen = new Set<string>();
    return this.got.filter((e) => {
      const data = e.data as Json | undefined;
      if (!data || Number(data.Seq) <= seq || seen.has(String(e.id))) return false;
      seen.add(String(e.id));
      return true;
    });
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

async function until<T>(what: string, fn: () => T | Promise<T>, ms = 60_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const pad = (i: number) => String(i).padStart(2, '0');
const ext = (i: number) => `HR-${pad(i)}`;

/**
 * The feed of a pass, in file order: reports before their managers in the first rows (a forward
 * reference), the rest after them. `tag` makes the user names unique across the two sites (user
 * names are global); `admin` is the site administrator's user name (a row that takes it is a 409).
 */
function feed(pass: 1 | 2, tag: string, admin: string): Row[] {
  const count = pass === 1 ? N : N + 2;
  const rows: Row[] = [];
  for (let i = 0; i < count; i++) {
    let manager = i === 0 ? null : i <= 3 ? ext(0) : ext(1 + (i % 3));
    let dept = `D-${(i % 3) + 1}`;
    let title = i <= 3 ? 'Manager' : 'Analyst';
    if (pass === 2) {
      if (i > 0 && i % 5 === 0) title = `Senior ${title}`;
      if (i > 3 && i % 7 === 0) manager = ext(1 + ((i + 1) % 3));
      if (i > 0 && i % 11 === 0) dept = `D-${((i + 2) % 3) + 1}`;
    }
    rows.push({
      ext: ext(i),
      FirstName: i === 13 || (pass === 2 && i === 17) ? null : `First${pad(i)}`,
      LastName: `Last${pad(i)}`,
      UserName: i === 39 ? admin : `${tag}.p${pad(i)}`,
      Email: i === 26 ? null : `p${pad(i)}@example.test`,
      UserEmail: `p${pad(i)}@example.test`,
      PrimaryTitle: i === 52 ? 'x'.repeat(300) : title,
      dept,
      manager,
    });
  }
  return [...rows.slice(4, 10), ...rows.slice(0, 4), ...rows.slice(10)];
}

/** People of the feed that every pass writes (the others fail). */
const FAILING = new Set([13, 26, 39, 52].map(ext));

/** Second-department memberships: every fourth person after the managers, and one that duplicates a primary membership (409). */
function memberships(pass: 1 | 2): { ind: string; org: string; Title: string | null }[] {
  const out: { ind: string; org: string; Title: string | null }[] = [];
  for (let i = 4; i < N; i += 4) {
    if (FAILING.has(ext(i))) continue;
    out.push({ ind: ext(i), org: `D-${((i + 1) % 3) + 1}`, Title: pass === 2 && i % 8 === 0 ? 'Also, lead' : 'Also' });
  }
  if (pass === 1) out.push({ ind: ext(8), org: `D-${(8 % 3) + 1}`, Title: 'Twice' });
  return out;
}

/** Goals of every second person, half completed, and one without a name (400). */
function goals(periodId: number): { ind: string; goal: Json }[] {
  const out: { ind: string; goal: Json }[] = [];
  for (let i = 0; i < N; i += 2) {
    if (FAILING.has(ext(i))) continue;
    out.push({
      ind: ext(i),
      goal: {
        Name: i === 10 ? '' : `Goal ${ext(i)}`,
        Completed: i % 4 === 0,
        Comment: 'On track',
        Why: 'Because',
        DueDate: '2026-12-31T00:00:00Z',
        PeriodID: periodId,
        ...Object.fromEntries(
          [1, 2, 3, 4, 5].flatMap((n) => [
            [`Measure${n}`, `Step ${n}`],
            [`Measure${n}Completed`, false],
            [`Measure${n}StartDate`, '2026-01-01T00:00:00Z'],
            [`Measure${n}EndDate`, '2026-12-31T00:00:00Z'],
          ]),
        ),
      },
    });
  }
  return out;
}

const cell = (v: string | null) => (v === null ? '' : /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const csv = (header: string[], rows: (string | null)[][]) => [header.join(','), ...rows.map((r) => r.map(cell).join(','))].join('\r\n') + '\r\n';

describe('an import equals the same rows written one by one', () => {
  let t: TestApp;
  let one: TestSite;
  let bulk: TestSite;
  const receivers = new Map<string, Receiver>();
  const periods = new Map<string, number>();
  /** Each site's departments by ExternalID. */
  const depts = new Map<string, Map<string, string>>();
  const tags = new Map<string, string>();
  let lastWrite = new Date();

  const as = (s: TestSite) => bearer(s.admin.token);
  const get = (s: TestSite, path: string) => t.http().get(path).set('Authorization', as(s));

  /** The site's change sequence: the newest entry of its trail. */
  const sequence = async (s: TestSite) => Number(((await get(s, '/v4/audit?limit=1').expect(200)).body as Json[])[0].Seq);

  /** The site's trail after `after`, oldest first, paged by `before` as the Link header names it. */
  async function trail(s: TestSite, after: number): Promise<Json[]> {
    const out: Json[] = [];
    let path = '/v4/audit?limit=200';
    for (;;) {
      const res = await get(s, path).expect(200);
      const page = res.body as Json[];
      out.push(...page.filter((e) => Number(e.Seq) > after));
      const next = /<([^>]+)>;\s*rel="next"/.exec(String(res.headers.link ?? ''));
      if (!next || page.some((e) => Number(e.Seq) <= after)) break;
      path = new URL(next[1], 'http://x').pathname + new URL(next[1], 'http://x').search;
    }
    return out.sort((a, b) => Number(a.Seq) - Number(b.Seq));
  }

  /**
   * Stable names for a site's IDs: the site, its units by ExternalID, the administrator, each
   * person and their login account by ExternalID, memberships by their two ends, goals by name,
   * the webhook; the user-name tag. Read from the database once the writes are done.
   */
  async function namer(s: TestSite) {
    const names = new Map<string, string>([
      [s.siteId, 'SITE'],
      [s.orgId, 'ORG:root'],
      [s.admin.individualId, 'ADMIN'],
      [s.admin.userId, 'ADMIN-USER'],
    ]);
    for (const [k, id] of depts.get(s.siteId)!) names.set(id, `ORG:${k}`);
    for (const p of await t.ds.getRepository(IndividualEntity).find({ where: { siteId: s.siteId } })) {
      if (!p.externalId) continue;
      names.set(p.id, `IND:${p.externalId}`);
      if (p.userId) names.set(p.userId, `USER:${p.externalId}`);
    }
    for (const m of await t.ds.getRepository(OrganizationMemberEntity).find({ where: { siteId: s.siteId } }))
      names.set(m.id, `MEM:${names.get(m.individualId) ?? m.individualId}:${names.get(m.organizationId) ?? m.organizationId}`);
    const goalNames = new Map<string, string>();
    for (const g of await t.ds.getRepository(GoalEntity).find({ where: { siteId: s.siteId } })) goalNames.set(String(g.id), `GOAL:${g.name}`);
    const hooks = (await get(s, '/v4/webhooks').expect(200)).body as Json[];
    for (const h of hooks) names.set(String(h.ID), 'WEBHOOK');
    const tag = tags.get(s.siteId)!;
    const text = (v: string) =>
      v
        .replace(UUID, (u) => names.get(u.toLowerCase()) ?? `UUID?${u}`)
        .split(tag)
        .join('TAG')
        .split(s.admin.userName)
        .join('ADMIN-NAME')
        .split(s.admin.userName.toLowerCase())
        .join('ADMIN-NAME');
    const goal = (v: unknown) => goalNames.get(String(v)) ?? `GOAL?${String(v)}`;
    const value = (v: unknown, key = ''): unknown => {
      if (key === 'PeriodID' && v !== null) return 'PERIOD';
      // Goals have the service's integer IDs.
      if ((key === 'GoalID' || key === 'ID') && typeof v === 'number') return goal(v);
      if (typeof v === 'string') return text(v);
      if (Array.isArray(v)) return v.map((x) => value(x));
      if (v && typeof v === 'object')
        return Object.fromEntries(
          Object.entries(v as Json)
            .filter(([k]) => !VOLATILE.has(k))
            .map(([k, x]) => [k, value(x, k)]),
        );
      return v;
    };
    /** An audit entry (or a webhook event's data): what changed, of which record, by whom. */
    const entry = (e: Json) => {
      const kind = String(e.Kind);
      const row = kind === 'goal' ? goal(e.RowID ?? e.ID) : value(String(e.RowID ?? e.ID));
      const changes = ((e.Changes as Json[] | null) ?? []).map((c) => {
        const field = String(c.Field);
        const v = (x: unknown) =>
          x === null || x === undefined ? x : field === 'PeriodID' ? 'PERIOD' : kind === 'goal' && field === 'ID' ? goal(x) : value(x);
        return { Field: field, Before: v(c.Before), After: v(c.After), Secret: c.Secret ?? false };
      });
      const actor = (e.Actor as Json | undefined) ?? { ID: e.ActorID, Kind: e.ActorKind, Name: e.ActorName };
      return { Kind: kind, Row: row, Action: e.Action, Changes: changes, Actor: value({ ID: actor.ID, Kind: actor.Kind, Name: actor.Name }) };
    };
    return { value, entry, goal };
  }

  /** The JSON lines of a multiset, sorted: equal multisets give equal lists. */
  const sorted = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).sort();
  /** Entries grouped by their record, each record's in sequence order. */
  const byRecord = (xs: { Row: unknown }[]) => {
    const out: Record<string, unknown[]> = {};
    for (const x of xs) (out[String(x.Row)] ??= []).push(x);
    return out;
  };

  // ---- the single writes --------------------------------------------------------------------

  /** A written person's ID in the site, by ExternalID (the integrator's own map). */
  const ids = new Map<string, Map<string, string>>();
  /** What the single path last wrote of each person, to PUT only what changed. */
  const lastSent = new Map<string, string>();

  const personBody = (s: TestSite, r: Row) => ({
    ExternalID: r.ext,
    FirstName: r.FirstName,
    LastName: r.LastName,
    UserName: r.UserName,
    Email: r.Email,
    UserEmail: r.UserEmail,
    PrimaryOrganizationID: depts.get(s.siteId)!.get(r.dept),
    PrimaryTitle: r.PrimaryTitle,
    PrimaryReportsTo: r.manager === null ? null : (ids.get(s.siteId)!.get(r.manager) ?? null),
  });

  /** One by one, managers before their reports (the single write needs the manager's ID): each failure's status and problem. */
  async function writePeople(s: TestSite, rows: Row[]): Promise<Json[]> {
    const mine = ids.get(s.siteId)!;
    const ordered = [...rows.filter((r) => r.manager === null), ...rows.filter((r) => r.manager === ext(0)), ...rows];
    const done = new Set<string>();
    const failures: Json[] = [];
    for (const r of ordered) {
      if (done.has(r.ext)) continue;
      done.add(r.ext);
      const body = personBody(s, r);
      const key = `${s.siteId}/${r.ext}`;
      if (lastSent.get(key) === JSON.stringify(body)) continue;
      const id = mine.get(r.ext);
      const res = id
        ? await t
            .http()
            .put(`/v4/individuals/${id}`)
            .set('Authorization', as(s))
            .send({ ...body, ID: id })
        : await t.http().post('/v4/individuals').set('Authorization', as(s)).send(body);
      if (res.status === 200) {
        mine.set(r.ext, String(res.body.ID));
        lastSent.set(key, JSON.stringify(body));
      } else failures.push({ ExternalID: r.ext, Status: res.status, Problem: res.body });
    }
    return failures;
  }

  const memberIds = new Map<string, string>();
  async function writeMemberships(s: TestSite, pass: 1 | 2): Promise<Json[]> {
    const failures: Json[] = [];
    for (const m of memberships(pass)) {
      const key = `${s.siteId}/${m.ind}/${m.org}`;
      const body = { IndividualID: ids.get(s.siteId)!.get(m.ind), OrganizationID: depts.get(s.siteId)!.get(m.org), Title: m.Title };
      if (lastSent.get(key) === JSON.stringify(body)) continue;
      const id = memberIds.get(key);
      const res = id
        ? await t.http().put(`/v4/departmentmembers/${id}`).set('Authorization', as(s)).send({ ID: id, Title: m.Title })
        : await t.http().post('/v4/departmentmembers').set('Authorization', as(s)).send(body);
      if (res.status === 200) {
        memberIds.set(key, String(res.body.ID));
        lastSent.set(key, JSON.stringify(body));
      } else failures.push({ ExternalID: m.ind, Status: res.status, Problem: res.body });
    }
    return failures;
  }

  async function writeGoals(s: TestSite): Promise<Json[]> {
    const failures: Json[] = [];
    for (const g of goals(periods.get(s.siteId)!)) {
      const res = await t
        .http()
        .post('/v4/goals')
        .set('Authorization', as(s))
        .send({ ...g.goal, IndividualID: ids.get(s.siteId)!.get(g.ind) });
      if (res.status !== 200) failures.push({ ExternalID: g.ind, Status: res.status, Problem: res.body });
    }
    return failures;
  }

  // ---- the imports --------------------------------------------------------------------------

  /** Posts a file, waits for its job to end, and answers its failed rows. */
  async function runImport(s: TestSite, kind: string, mode: string, type: string, file: string): Promise<Json[]> {
    const posted = await t.http().post(`/v4/imports?kind=${kind}&mode=${mode}`).set('Authorization', as(s)).set('Content-Type', type).send(file).expect(202);
    const job = await until(`import ${String(posted.body.ID)}`, async () => {
      const j = (await get(s, `/v4/imports/${posted.body.ID}`).expect(200)).body as Json;
      return j.State === 'queued' || j.State === 'running' ? null : j;
    });
    const errors = (await get(s, `/v4/imports/${posted.body.ID}/errors`).expect(200)).body as Json[];
    const rows = file.trimEnd().split(/\r?\n/).length - (type === CSV ? 1 : 0);
    expect(job).toMatchObject({ State: 'succeeded', RowsTotal: rows, RowsRead: rows, RowsFailed: errors.length, RowsWritten: rows - errors.length });
    return errors;
  }

  const PEOPLE = [
    'ExternalID',
    'FirstName',
    'LastName',
    'UserName',
    'Email',
    'UserEmail',
    'PrimaryOrganizationID',
    'PrimaryTitle',
    'PrimaryReportsTo',
    'ExternalRefs.PrimaryOrganizationID',
    'ExternalRefs.PrimaryReportsTo',
  ];
  const peopleFile = (rows: Row[]) =>
    csv(
      PEOPLE,
      rows.map((r) => [r.ext, r.FirstName, r.LastName, r.UserName, r.Email, r.UserEmail, null, r.PrimaryTitle, null, r.dept, r.manager]),
    );
  const membersFile = (pass: 1 | 2) =>
    csv(
      ['ExternalRefs.IndividualID', 'ExternalRefs.OrganizationID', 'Title'],
      memberships(pass).map((m) => [m.ind, m.org, m.Title]),
    );
  const goalsFile = (periodId: number) =>
    goals(periodId)
      .map((g) => JSON.stringify({ ...g.goal, ExternalRefs: { IndividualID: g.ind } }))
      .join('\n') + '\n';

  /** A failure as both paths name it: the row's key, its status, the problem's type and the fields it names. */
  const failure = (f: Json) => {
    const p = f.Problem as Json;
    return {
      ExternalID: f.ExternalID,
      Status: f.Status,
      type: p.type,
      status: p.status,
      fields: ((p.errors as Json[] | null) ?? []).map((e) => String(e.field)).sort(),
    };
  };

  /**
   * A people file's failed rows: each names its line (the header is line 1), and the row at that
   * line is the one whose ExternalID the error gives.
   */
  const byLine = (rows: Row[], errors: Json[]) => {
    expect(errors.map((f) => [f.Line, f.ExternalID])).toEqual(errors.map((f) => [f.Line, rows[Number(f.Line) - 2]?.ext]));
    return errors;
  };

  beforeAll(async () => {
    t = await startApp({
      DASHBOARD_SUMMARIES: 'on',
      IMPORT_POLL_MS: '50',
      // Several chunks: the first holds the forward references, later ones name managers of earlier chunks.
      IMPORT_CHUNK_ROWS: '20',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_POLL_MS: '50',
    });
    const start = new Date(Date.now() - 30 * DAY);
    const end = new Date(Date.now() + 60 * DAY);
    for (const [tag, set] of [
      [`s1${RUN}`, (s: TestSite) => (one = s)],
      [`s2${RUN}`, (s: TestSite) => (bulk = s)],
    ] as const) {
      const s = await createSite(t, { name: 'Equivalence Co' });
      set(s);
      tags.set(s.siteId, tag);
      ids.set(s.siteId, new Map());
      periods.set(s.siteId, (await createPeriod(t, s.siteId, { name: 'Now', start, end })).id);
      const units = new Map<string, string>();
      for (const k of [1, 2, 3]) {
        const res = await t
          .http()
          .post('/v4/departments')
          .set('Authorization', as(s))
          .send({ Name: `Department ${k}`, ExternalID: `D-${k}`, ParentID: s.orgId, RowType: 56 })
          .expect(200);
        units.set(`D-${k}`, String(res.body.ID));
      }
      depts.set(s.siteId, units);
      const r = await new Receiver().start();
      receivers.set(s.siteId, r);
      await t.http().post('/v4/webhooks').set('Authorization', as(s)).send({ URL: r.url, EventTypes: '*' }).expect(200);
    }
  }, 120_000);

  afterAll(async () => {
    for (const r of receivers.values()) await r.stop();
    await t?.close();
  });

  it('audit trail, change sequence, webhook deliveries, dashboards and failures are the same, and an unchanged row writes nothing', async () => {
    const started = Date.now();
    const cursor = { one: await sequence(one), bulk: await sequence(bulk) };

    // ---- pass 1: create -------------------------------------------------------------------
    const rows1 = { one: feed(1, tags.get(one.siteId)!, one.admin.userName), bulk: feed(1, tags.get(bulk.siteId)!, bulk.admin.userName) };
    const single1 = [...(await writePeople(one, rows1.one)), ...(await writeMemberships(one, 1)), ...(await writeGoals(one))];
    const file1 = [
      ...byLine(rows1.bulk, await runImport(bulk, 'individuals', 'upsert', CSV, peopleFile(rows1.bulk))),
      ...(await runImport(bulk, 'departmentmembers', 'create', CSV, membersFile(1))).map((f) => ({ ...f, ExternalID: memberships(1)[Number(f.Line) - 2].ind })),
      ...(await runImport(bulk, 'goals', 'create', 'application/x-ndjson', goalsFile(periods.get(bulk.siteId)!))).map((f) => ({
        ...f,
        ExternalID: goals(0)[Number(f.Line) - 1].ind,
      })),
    ];
    // The failing rows fail alike: the same rows, statuses, problem types and fields.
    expect(file1.map(failure)).toEqual(single1.map(failure));
    expect(single1.map((f) => [f.ExternalID, f.Status])).toEqual([
      [ext(13), 400],
      [ext(26), 400],
      [ext(39), 409],
      [ext(52), 400],
      [ext(8), 409],
      [ext(10), 400],
    ]);
    const mid = { one: await sequence(one), bulk: await sequence(bulk) };

    // ---- pass 2: some rows change, the others are sent again as they are -------------------
    const rows2 = { one: feed(2, tags.get(one.siteId)!, one.admin.userName), bulk: feed(2, tags.get(bulk.siteId)!, bulk.admin.userName) };
    const single2 = [...(await writePeople(one, rows2.one)), ...(await writeMemberships(one, 2))];
    const file2 = [
      ...byLine(rows2.bulk, await runImport(bulk, 'individuals', 'upsert', CSV, peopleFile(rows2.bulk))),
      ...(await runImport(bulk, 'departmentmembers', 'upsert', CSV, membersFile(2))).map((f) => ({ ...f, ExternalID: memberships(2)[Number(f.Line) - 2].ind })),
    ];
    expect(file2.map(failure)).toEqual(single2.map(failure));
    expect(single2.map((f) => [f.ExternalID, f.Status])).toEqual([
      [ext(13), 400],
      [ext(17), 400],
      [ext(26), 400],
      [ext(39), 409],
      [ext(52), 400],
    ]);
    lastWrite = new Date();

    const name = { one: await namer(one), bulk: await namer(bulk) };

    // ---- the audit trail --------------------------------------------------------------------
    const trails = { one: await trail(one, cursor.one), bulk: await trail(bulk, cursor.bulk) };
    const entries = { one: trails.one.map(name.one.entry), bulk: trails.bulk.map(name.bulk.entry) };
    expect(JSON.stringify(entries)).not.toMatch(/UUID\?|GOAL\?/);
    expect(entries.one.length).toBeGreaterThan(3 * N);
    expect(sorted(entries.bulk)).toEqual(sorted(entries.one));
    // Each record's own changes in sequence order (the order of the change sequence and of its webhook events).
    expect(byRecord(entries.bulk)).toEqual(byRecord(entries.one));

    // Pass 2 wrote exactly the changed rows: the same entries, and no entry of a row sent unchanged.
    const second = {
      one: trails.one.filter((e) => Number(e.Seq) > mid.one).map(name.one.entry),
      bulk: trails.bulk.filter((e) => Number(e.Seq) > mid.bulk).map(name.bulk.entry),
    };
    expect(sorted(second.bulk)).toEqual(sorted(second.one));
    const changed = new Set(
      [...Array(N).keys()]
        .filter((i) => !FAILING.has(ext(i)) && i !== 17 && ((i > 0 && (i % 5 === 0 || i % 11 === 0)) || (i > 3 && i % 7 === 0)))
        .map((i) => `IND:${ext(i)}`),
    );
    const people2 = new Set(second.bulk.filter((e) => e.Kind === 'individual').map((e) => String(e.Row)));
    expect([...people2].sort()).toEqual([...changed, `IND:${ext(60)}`, `IND:${ext(61)}`].sort());
    // …and the change sequence moved by as many entries in both.
    expect((await sequence(bulk)) - mid.bulk).toBe(second.bulk.length);
    expect((await sequence(one)) - mid.one).toBe(second.one.length);

    // Every person's history (GET /v4/individuals/{id}/history) is the same.
    const histories = async (s: TestSite, n: Awaited<ReturnType<typeof namer>>) => {
      const out: Record<string, unknown> = {};
      for (const [k, id] of ids.get(s.siteId)!) out[k] = ((await get(s, `/v4/individuals/${id}/history`).expect(200)).body as Json[]).map(n.entry);
      return out;
    };
    // The import's people are found by their ExternalIDs, as an integrator would.
    for (const r of rows2.bulk) {
      if (FAILING.has(r.ext)) continue;
      const found = (await get(bulk, `/v4/individuals?filter=${encodeURIComponent(`ExternalID eq "${r.ext}"`)}`).expect(200)).body as Json[];
      expect({ ext: r.ext, n: found.length }).toEqual({ ext: r.ext, n: 1 });
      ids.get(bulk.siteId)!.set(r.ext, String(found[0].ID));
    }
    expect(await histories(bulk, name.bulk)).toEqual(await histories(one, name.one));

    // ---- the change sequence: what the sync routes answer since the start --------------------
    for (const kind of ['individuals', 'departmentmembers', 'goals', 'departments']) {
      const sync = async (s: TestSite, after: number, n: Awaited<ReturnType<typeof namer>>) => {
        const res = await get(s, `/v4/sync/${kind}?updatedSince=seq-${after}&limit=500`).expect(200);
        return sorted((res.body as Json[]).map((e) => n.value({ ...e, ID: kind === 'goals' ? n.goal(e.ID) : e.ID })));
      };
      expect({ kind, entries: await sync(bulk, cursor.bulk, name.bulk) }).toEqual({ kind, entries: await sync(one, cursor.one, name.one) });
    }

    // ---- webhook deliveries: one event per entry, the same events ----------------------------
    const events = async (s: TestSite, after: number, count: number, n: Awaited<ReturnType<typeof namer>>) => {
      const r = receivers.get(s.siteId)!;
      await until(`${count} events of ${s.siteId}`, () => r.events(after).length >= count);
      await sleep(200);
      return r.events(after).map((e) => ({ type: e.type, ...n.entry(e.data as Json) }));
    };
    const delivered = {
      one: await events(one, cursor.one, entries.one.length, name.one),
      bulk: await events(bulk, cursor.bulk, entries.bulk.length, name.bulk),
    };
    expect(delivered.bulk).toHaveLength(entries.bulk.length);
    expect(sorted(delivered.bulk)).toEqual(sorted(delivered.one));
    // Per record, in commit order.
    expect(byRecord(delivered.bulk)).toEqual(byRecord(delivered.one));

    // ---- dashboards of the organization and its departments, from the caught-up summaries ----
    const dashboard = async (s: TestSite, kind: string, id: string, n: Awaited<ReturnType<typeof namer>>) => {
      const body = await until(
        `${kind}/${id} from the summaries`,
        async () => {
          const res = await get(s, `/v4/${kind}/${id}/dashboards?period=${periods.get(s.siteId)}`).expect(200);
          const fresh = res.headers['dashboard-source'] === 'summaries' && new Date(String(res.headers['dashboard-as-of'])) >= lastWrite;
          return fresh ? (res.body as Json) : null;
        },
        30_000,
      );
      return n.value(body);
    };
    for (const [kind, key] of [
      ['organizations', 'root'],
      ['departments', 'D-1'],
      ['departments', 'D-2'],
      ['departments', 'D-3'],
    ] as const) {
      const id = (s: TestSite) => (key === 'root' ? s.orgId : depts.get(s.siteId)!.get(key)!);
      const a = await dashboard(one, kind, id(one), name.one);
      const b = await dashboard(bulk, kind, id(bulk), name.bulk);
      expect({ key, dashboard: b }).toEqual({ key, dashboard: a });
      if (key === 'root') expect(a).toMatchObject({ PersonalGoalsTotal: goals(0).length - 1 });
    }
    process.stdout.write(`import equivalence: ${entries.one.length} entries a site, ${Date.now() - started} ms\n`);
  }, 600_000);
});
