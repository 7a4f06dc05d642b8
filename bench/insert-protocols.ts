/**
 * What the database alone charges for a bulk load of new people (docs/bulk.md, "Where a new
 * person's cost goes"): the rows a bulk request of new people writes — the individual, the login
 * account, the membership and an audit row for each (one `change_seqs` upsert a chunk), with the
 * service's columns and values — in transactions of a chunk of 250 people, on one mysql2 connection,
 * against the bulk limit's own statement in the same run:
 *
 * - `limit`: the yardstick's statement (bench/bulk-limit-sql.ts): the individual rows alone, 10
 *   columns, upserted 500 a statement and transaction, as `npm run bench:bulk`'s limit writes them;
 * - `text`: the service's six rows, one multi-row INSERT a table and chunk, its values formatted
 *   into the SQL by mysql2 (sql-escaper), as the service sends a chunk's carried inserts;
 * - `prepared`: the same, as multi-row INSERTs of INSERT_PROTOCOL_ROWS (50) rows prepared once and
 *   executed with binary values, the rest of a chunk as text.
 *
 * `limit ÷ text` is the ceiling of the bulk ratio for new people: what a service that did nothing
 * but send its rows (no HTTP, no JSON, no validation, no reads, no answer) would reach. The last
 * column, the limit's time a person over the database's CPU a person for these rows, is the bound
 * even for a sender that cost nothing and ran wholly beside the database.
 *
 * Per person: wall time, this process's CPU and the database server's (its process's CPU from
 * /proc, the whole server: nothing else should run). The tables are emptied with TRUNCATE between
 * runs, so no purge of a run's rows lands in the next. Rounds alternate the order.
 *
 *   npm run bench:protocols     # MariaDB (BENCH_DATABASE_URL), INSERT_PROTOCOL_PEOPLE (20,000) a run, 4 rounds
 */
import mysql from 'mysql2/promise';
import { BULK_CHUNK, UPSERT, upsertValues } from './bulk-limit-sql.js';
import { cpuMs, createDatabase, databasePid, fmt, log, median, migrateFirst, num } from './common.js';

const PEOPLE = num('INSERT_PROTOCOL_PEOPLE', 20_000);
const ROUNDS = num('INSERT_PROTOCOL_ROUNDS', 4);
const PREPARED_ROWS = num('INSERT_PROTOCOL_ROWS', 50);
const CHUNK = 250;

const SITE = '41cd578b-6153-4330-9055-7fb1bf02072e';
const ACTOR = '01a229b3-63aa-7290-bc66-d24b845d038e';
const ORG = '01a229b3-7cd6-7347-8999-d136be565169';

type Mode = 'limit' | 'text' | 'prepared';
const MODES: readonly Mode[] = ['limit', 'text', 'prepared'];
/** A row by column, the columns in the order the service's INSERT names them. */
type Row = Record<string, unknown>;

interface Person {
  individual: Row;
  user: Row;
  member: Row;
  audit: Row[];
}

let seq = 0;
let made = 0;

/** A new person's rows — individual, login account, membership, and an audit row for each — by column, as the service writes them. */
function person(run: string): Person {
  const k = ++made;
  const now = new Date();
  const tail = k.toString(16).padStart(12, '0');
  const id = `01a229b3-96df-7394-86db-${tail}`;
  const user = `01a229b3-96df-7394-86dc-${tail}`;
  const member = `01a229b3-96df-7394-86dd-${tail}`;
  const userRow: Row = {
    id: user,
    site_id: SITE,
    user_name: `p${k}`,
    user_name_key: `p${k}`,
    email: `p${k}@example.test`,
    password_hash: null,
    is_global_admin: false,
    created: now,
    updated: now,
    token_generation: 0,
    tokens_revoked_at: null,
    active: true,
    deprovisioned: null,
  };
  const memberRow: Row = {
    id: member,
    site_id: SITE,
    created: now,
    created_by: ACTOR,
    updated: now,
    updated_by: ACTOR,
    individual_id: id,
    organization_id: ORG,
    title: 'Analyst',
    deleted_by_ref: false,
    version: 1,
  };
  const individual: Row = {
    created: now,
    created_by: ACTOR,
    updated: now,
    updated_by: ACTOR,
    version: 1,
    site_id: SITE,
    id,
    user_id: user,
    is_admin: false,
    prefix: null,
    suffix: null,
    first_name: 'Bench',
    last_name: `Person ${k}`,
    user_defined1: null,
    user_defined2: null,
    user_defined3: null,
    user_defined4: null,
    email: `p${k}@example.test`,
    primary_organization_id: ORG,
    primary_title: 'Analyst',
    primary_reports_to: null,
    hire_date: null,
    send_eval_survey: false,
    deleted: false,
    deleted_by_ref: false,
    last_comment_id: null,
    external_id: `${run}-${k}`,
  };
  const row = (kind: string, rowId: string, changes: object): Row => ({
    site_id: SITE,
    seq: ++seq,
    kind,
    row_id: rowId,
    action: 'create',
    gone: 0,
    changes: JSON.stringify(changes),
    actor_id: ACTOR,
    actor_kind: 'individual',
    actor_name: 'Admin',
    request_id: 'bench',
    at: now,
  });
  const audit = [
    row('user', user, {
      ID: [user],
      UserName: [`p${k}`],
      UserNameKey: [`p${k}`],
      Email: [`p${k}@example.test`],
      IsGlobalAdmin: [false],
      TokenGeneration: [0],
      Active: [true],
    }),
    row('individual', id, {
      ID: [id],
      UserID: [user],
      IsAdmin: [false],
      FirstName: ['Bench'],
      LastName: [`Person ${k}`],
      Email: [`p${k}@example.test`],
      PrimaryOrganizationID: [ORG],
      PrimaryTitle: ['Analyst'],
      SendEvalSurvey: [false],
      Deleted: [false],
      DeletedByRef: [false],
      ExternalID: [`${run}-${k}`],
    }),
    row('organization-member', member, { ID: [member], IndividualID: [id], OrganizationID: [ORG], Title: ['Analyst'], DeletedByRef: [false] }),
  ];
  return { individual, user: userRow, member: memberRow, audit };
}

const insertOf = (table: string, columns: readonly string[], rows: number) =>
  `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array.from({ length: rows }, () => `(${columns.map(() => '?').join(', ')})`).join(', ')}`;

async function insert(conn: mysql.Connection, mode: Mode, table: string, rows: Row[]): Promise<void> {
  const columns = Object.keys(rows[0]);
  const values = (from: number, to: number) => rows.slice(from, to).flatMap((r) => columns.map((c) => r[c]));
  let from = 0;
  if (mode === 'prepared')
    for (; from + PREPARED_ROWS <= rows.length; from += PREPARED_ROWS)
      await conn.execute(insertOf(table, columns, PREPARED_ROWS), values(from, from + PREPARED_ROWS) as never);
  if (from < rows.length) await conn.query(insertOf(table, columns, rows.length - from), values(from, rows.length));
}

/** The bulk limit's chunks (bench/bulk-limit-sql.ts): the people's individual rows alone, as the yardstick sends them. */
async function limitChunks(conn: mysql.Connection, people: Person[]): Promise<void> {
  for (let i = 0; i < people.length; i += BULK_CHUNK) {
    const chunk = people.slice(i, i + BULK_CHUNK);
    const now = new Date();
    const params = chunk.flatMap(({ individual: r }) =>
      upsertValues(r.id as string, SITE, now, {
        ExternalID: r.external_id as string,
        FirstName: r.first_name as string,
        LastName: r.last_name as string,
        Email: r.email as string,
        PrimaryOrganizationID: r.primary_organization_id as string,
        PrimaryTitle: r.primary_title as string,
      }),
    );
    await conn.query('BEGIN');
    await conn.query(UPSERT(chunk.length, false), params);
    await conn.query('COMMIT');
  }
}

/** The service's chunks: each table's rows of CHUNK people, and the site's change sequence moved on, in one transaction. */
async function serviceChunks(conn: mysql.Connection, mode: Mode, people: Person[]): Promise<void> {
  for (let i = 0; i < people.length; i += CHUNK) {
    const chunk = people.slice(i, i + CHUNK);
    await conn.query('START TRANSACTION');
    const tables: [string, Row[]][] = [
      ['users', chunk.map((p) => p.user)],
      ['individuals', chunk.map((p) => p.individual)],
      ['organization_members', chunk.map((p) => p.member)],
      ['audit_log', chunk.flatMap((p) => p.audit)],
    ];
    for (const [table, rows] of tables) await insert(conn, mode, table, rows);
    await conn.query('INSERT INTO change_seqs (site_id, seq) VALUES (?, LAST_INSERT_ID(?)) ON DUPLICATE KEY UPDATE seq = LAST_INSERT_ID(seq + ?)', [
      SITE,
      3 * chunk.length,
      3 * chunk.length,
    ]);
    await conn.query('COMMIT');
  }
}

interface Result {
  wall: number;
  service: number;
  db: number;
}

async function run(conn: mysql.Connection, dbPid: number, mode: Mode, name: string): Promise<Result> {
  const people = Array.from({ length: PEOPLE }, () => person(name));
  const cpu0 = process.cpuUsage();
  const db0 = cpuMs(dbPid);
  const t0 = performance.now();
  await (mode === 'limit' ? limitChunks(conn, people) : serviceChunks(conn, mode, people));
  const wall = ((performance.now() - t0) * 1000) / PEOPLE;
  const used = process.cpuUsage(cpu0);
  const out = { wall, service: (used.user + used.system) / PEOPLE, db: ((cpuMs(dbPid) - db0) * 1000) / PEOPLE };
  log(`${name}: ${mode}, ${fmt(PEOPLE)} people: ${fmt(out.wall, 1)} µs a person, this process ${fmt(out.service, 1)} µs, the database ${fmt(out.db, 1)} µs`);
  return out;
}

const TABLES = ['individuals', 'users', 'organization_members', 'audit_log', 'change_seqs'];
const LABELS: Record<Mode, string> = {
  limit: `the bulk limit: the individual rows alone, upserts of ${BULK_CHUNK}`,
  text: "the service's six rows: one multi-row INSERT a table and chunk",
  prepared: `the service's six rows: INSERTs of ${PREPARED_ROWS} rows prepared, binary values`,
};

async function main(): Promise<void> {
  const dbPid = databasePid();
  if (dbPid === null) throw new Error('bench:protocols reads the local database server’s CPU: run it beside mariadbd or mysqld');
  const database = await createDatabase(false);
  try {
    migrateFirst(database.url);
    const conn = await mysql.createConnection({ uri: database.url, timezone: 'Z', maxPreparedStatements: 16 });
    // The memberships' organization (a foreign key).
    await conn.query('INSERT INTO organizations (id, site_id, created, updated, name) VALUES (?, ?, NOW(3), NOW(3), ?)', [ORG, SITE, 'Bench']);
    const results: Record<Mode, Result[]> = { limit: [], text: [], prepared: [] };
    for (let round = 0; round <= ROUNDS; round++) {
      for (const mode of round % 2 ? [...MODES].reverse() : MODES) {
        await conn.query('SET FOREIGN_KEY_CHECKS = 0');
        for (const table of TABLES) await conn.query(`TRUNCATE TABLE ${table}`);
        await conn.query('SET FOREIGN_KEY_CHECKS = 1');
        const r = await run(conn, dbPid, mode, `r${round}${mode[0]}`);
        // Round 0 warms up.
        if (round > 0) results[mode].push(r);
      }
    }
    await conn.end();
    const wall = (mode: Mode) => median(results[mode].map((r) => r.wall));
    console.log(
      `\n| ${fmt(PEOPLE)} people a run, medians of ${ROUNDS} rounds | µs a person | this process, µs | the database, µs | the limit ÷ this | the limit ÷ the database's CPU |`,
    );
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const mode of MODES) {
      const rs = results[mode];
      console.log(
        `| ${LABELS[mode]} | ${fmt(wall(mode), 1)} | ${fmt(median(rs.map((r) => r.service)), 1)} | ${fmt(median(rs.map((r) => r.db)), 1)} | ${fmt(wall('limit') / wall(mode), 2)} | ${fmt(wall('limit') / median(rs.map((r) => r.db)), 2)} |`,
      );
    }
  } finally {
    await database.drop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
