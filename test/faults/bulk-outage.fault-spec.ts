import { randomUUID } from 'node:crypto';
import { adminToken, AppProcess, startAppProcess } from './support/app-process.js';
import { PrivateMariaDb } from './support/mariadb.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Bulk requests while the database is killed (docs/bulk.md, "Round trips"; docs/scaling.md): the
 * service runs as its own process on a MariaDB of the test's own, which is SIGKILLed and restarted
 * while clients send bulk requests of new people, each person with an ExternalID that names its
 * batch. Atomic batches carry their writes between a savepoint of their own in the request's
 * transaction, and are sent with an Idempotency-Key; plain ones of 300 people are two chunks, each a
 * transaction of its own. What is checked, once the database is back:
 * - every answer is 200 or 503 (or none, cut off), never another 5xx;
 * - nothing is half-committed: an atomic batch has all its 40 people or none, a plain batch 0, 250,
 *   50 or 300 (its chunks whole: the second, written beside the first's commit, may commit without
 *   it when the first's ends with the database), and every stored person has their membership and
 *   exactly one create audit row;
 * - an atomic batch answered 200 has all 40; one whose answer was lost, sent again with its key until
 *   answered, ends with all 40, written once.
 */
const REQUEST_TIMEOUT_MS = 2000;
const ATOMIC_CLIENTS = 3;
const PLAIN_CLIENTS = 1;
const ATOMIC_SIZE = 40;
const PLAIN_SIZE = 300;
const RETRY_ATTEMPTS = 20;

interface Sent {
  batch: string;
  atomic: boolean;
  key: string | null;
  body: string;
  status: number;
  failed: number | null;
}

describe('bulk requests while the database is killed (own MariaDB, service as a process)', () => {
  const db = new PrivateMariaDb();
  let app: AppProcess;
  let token: string;
  let orgId: string;
  let siteId: string;
  const run = randomUUID().slice(0, 8);

  beforeAll(async () => {
    await db.start();
    await db.createDatabase('pms_bulk_faults');
    app = await startAppProcess({
      DATABASE_URL: `${db.url}/pms_bulk_faults`,
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      DB_ACQUIRE_TIMEOUT_MS: '1000',
      DB_QUERY_TIMEOUT_MS: '1500',
      // The builder's and the dispatcher's rounds are not under test here.
      DASHBOARD_SUMMARIES: 'off',
      WEBHOOKS: 'off',
    });
    token = await adminToken(app.base);
    const me = await fetch(`${app.base}/v4/me`, { headers: { Authorization: `Bearer ${token}` } });
    ({ PrimaryOrganizationID: orgId, SiteID: siteId } = (await me.json()) as { PrimaryOrganizationID: string; SiteID: string });
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    await db.destroy();
  }, 30_000);

  const bodyOf = (batch: string, size: number) =>
    JSON.stringify({
      Items: Array.from({ length: size }, (_, i) => ({
        Op: 'upsert',
        Record: {
          FirstName: 'Bulk',
          LastName: `${batch} ${i}`,
          UserName: `${batch}-${i}`,
          Email: 'bulk@example.test',
          UserEmail: 'bulk.login@example.test',
          PrimaryOrganizationID: orgId,
          PrimaryTitle: 'Analyst',
          PrimaryReportsTo: null,
          ExternalID: `${batch}-${i}`,
        },
      })),
    });

  /** One bulk request; status 0 when it got no answer (cut off, or given up after 15 s). */
  async function send(batch: string, atomic: boolean, key: string | null, body: string): Promise<Sent> {
    const headers: Record<string, string> = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    if (key) headers['Idempotency-Key'] = key;
    try {
      const res = await fetch(`${app.base}/v4/individuals/bulk${atomic ? '?atomic=true' : ''}`, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(15_000),
      });
      const answer = (await res.json().catch(() => null)) as { Failed?: number } | null;
      return { batch, atomic, key, body, status: res.status, failed: res.status === 200 ? (answer?.Failed ?? null) : null };
    } catch {
      return { batch, atomic, key, body, status: 0, failed: null };
    }
  }

  /** A closed-loop client sending batch after batch until `until` says stop. */
  async function client(atomic: boolean, until: () => boolean, sent: Sent[]): Promise<void> {
    for (let n = 0; !until(); n++) {
      const batch = `${run}-${atomic ? 'a' : 'p'}${randomUUID().slice(0, 8)}`;
      const s = await send(batch, atomic, atomic ? randomUUID() : null, bodyOf(batch, atomic ? ATOMIC_SIZE : PLAIN_SIZE));
      sent.push(s);
      // As a client told Retry-After does: a pause before the next batch.
      await sleep(s.status === 200 ? 20 : 500);
    }
  }

  /** Per batch: its people, those with their membership and account, and the create audit rows of its people. */
  async function stored(): Promise<Map<string, { people: number; members: number; creates: number; maxCreates: number }>> {
    const conn = await db.connect('pms_bulk_faults');
    try {
      const rows = async <T>(sql: string, params: unknown[]) => (await conn.query(sql, params))[0] as T[];
      const people = await rows<{ id: string; ext: string; user_id: string | null }>(
        'SELECT id, external_id AS ext, user_id FROM individuals WHERE site_id = ? AND external_id LIKE ?',
        [siteId, `${run}-%`],
      );
      const count = (list: { k: string; n: number | string }[]) => new Map(list.map((r) => [r.k, Number(r.n)]));
      const members = count(
        await rows('SELECT individual_id AS k, COUNT(*) AS n FROM organization_members WHERE site_id = ? GROUP BY individual_id', [siteId]),
      );
      const accounts = new Set((await rows<{ id: string }>('SELECT id FROM users WHERE site_id = ?', [siteId])).map((r) => r.id));
      const creates = count(
        await rows("SELECT row_id AS k, COUNT(*) AS n FROM audit_log WHERE site_id = ? AND kind = 'individual' AND action = 'create' GROUP BY row_id", [
          siteId,
        ]),
      );
      const out = new Map<string, { people: number; members: number; creates: number; maxCreates: number }>();
      for (const r of people) {
        const batch = r.ext.slice(0, r.ext.lastIndexOf('-'));
        const b = out.get(batch) ?? { people: 0, members: 0, creates: 0, maxCreates: 0 };
        const made = creates.get(r.id) ?? 0;
        b.people++;
        b.members += members.get(r.id) === 1 && r.user_id !== null && accounts.has(r.user_id) ? 1 : 0;
        b.creates += made;
        b.maxCreates = Math.max(b.maxCreates, made);
        out.set(batch, b);
      }
      return out;
    } finally {
      await conn.end();
    }
  }

  it('SIGKILL and restart under bulk load: no 5xx but 503, no batch or chunk half-committed, keyed atomic batches settle with all their people written once', async () => {
    const sent: Sent[] = [];
    let stop = false;
    const clients = [
      ...Array.from({ length: ATOMIC_CLIENTS }, () => client(true, () => stop, sent)),
      ...Array.from({ length: PLAIN_CLIENTS }, () => client(false, () => stop, sent)),
    ];
    await sleep(3000);
    await db.kill();
    await sleep(1500);
    await db.restart();
    await sleep(4000);
    stop = true;
    await Promise.all(clients);

    const statuses = new Map<number, number>();
    for (const s of sent) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
    process.stdout.write(`\n== bulk outage: ${sent.length} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))} ==\n`);
    expect(sent.filter((s) => s.status !== 200 && s.status !== 503 && s.status !== 0)).toEqual([]);
    // The outage was seen, and batches went through on both sides of it.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(ATOMIC_CLIENTS);
    expect((statuses.get(503) ?? 0) + (statuses.get(0) ?? 0)).toBeGreaterThan(0);

    const before = await stored();
    const half: unknown[] = [];
    for (const s of sent) {
      const b = before.get(s.batch) ?? { people: 0, members: 0, creates: 0, maxCreates: 0 };
      const whole = s.atomic ? [0, ATOMIC_SIZE] : [0, 250, PLAIN_SIZE - 250, PLAIN_SIZE];
      if (!whole.includes(b.people) || b.members !== b.people || b.creates !== b.people || b.maxCreates > 1) half.push({ ...s, body: undefined, stored: b });
      // Answered 200 with no failed item: all of it is there.
      if (s.status === 200 && s.failed === 0 && b.people !== (s.atomic ? ATOMIC_SIZE : PLAIN_SIZE))
        half.push({ ...s, body: undefined, acknowledged: true, stored: b });
    }
    expect(half).toEqual([]);

    // The keyed atomic batches whose answer was lost or 503: sent again with their keys until answered.
    const unknown = sent.filter((s) => s.atomic && s.status !== 200);
    const settled: Sent[] = [];
    for (const s of unknown) {
      let last = s;
      for (let attempt = 1; attempt <= RETRY_ATTEMPTS && last.status !== 200; attempt++) {
        last = await send(s.batch, true, s.key, s.body);
        if (last.status !== 200) await sleep(250);
      }
      settled.push(last);
    }
    expect(settled.filter((s) => s.status !== 200 || s.failed !== 0).map((s) => ({ batch: s.batch, status: s.status, failed: s.failed }))).toEqual([]);
    const after = await stored();
    const notOnce = unknown
      .map((s) => ({ batch: s.batch, stored: after.get(s.batch) }))
      .filter(({ stored: b }) => !b || b.people !== ATOMIC_SIZE || b.members !== ATOMIC_SIZE || b.creates !== ATOMIC_SIZE || b.maxCreates !== 1);
    expect(notOnce).toEqual([]);
    expect(app.child.exitCode).toBeNull();
  }, 120_000);
});
