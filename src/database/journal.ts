import type { EntityManager, EntityMetadata } from 'typeorm';
import type { RequestContext } from '../common/context/request-context.js';

/**
 * The change journal of a write transaction (docs/audit.md, docs/delta-sync.md, docs/events.md).
 * ScopedRepository reports every row it inserts, updates or deletes here; when the outermost
 * transaction's work is done, and before it commits, `flush` writes one audit row per changed
 * record, numbered by the site's change sequence. The audit rows are at the same time the change
 * log delta sync reads and the outbox webhooks are delivered from: one table, written in the
 * write's own transaction, so nothing is recorded for a rollback and nothing lost on a commit.
 */

/** What happened to a row. Soft delete and undelete are updates of `Deleted`, named as such. */
export type AuditAction = 'create' | 'update' | 'delete' | 'undelete';

/** One changed field: wire name, before and after (absent for a secret, which is only `Changed`). */
export interface FieldChange {
  Field: string;
  Before?: unknown;
  After?: unknown;
  /** Set on secrets (passwords, webhook secrets): the values are never recorded. */
  Secret?: true;
}

/**
 * The stored form of a record's field changes (the audit row's `changes` column): one JSON object,
 * each changed field by its wire name, in the order diffRow found them, as `[Before, After]`, as
 * `[After]` when Before is null (every field of a create), and as `0` for a secret. A new
 * person's three rows take about half the bytes of the list of `{Field, Before, After}` objects
 * kept before 2026-11-28 (710 against 1,362), and every write sends and stores that much less.
 * Rows written before then hold that list; decodeChanges reads both.
 */
export function encodeChanges(fields: readonly FieldChange[]): string {
  // The text JSON.stringify gives the object, written field by field: the fields are distinct
  // wire names (diffRow), none of them an array index, so the object's key order is theirs. A
  // fifth less of the CPU than building the object (a dictionary of 20 keys for a new person);
  // joined, not appended to, so the text is one flat string (an appended one would be a chain of
  // pieces three times its size, held until the chunk's audit rows are sent).
  const parts = new Array<string>(fields.length);
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (f.Secret) {
      parts[i] = `${keyOf(f.Field)}0`;
      continue;
    }
    const before = f.Before ?? null;
    const after = JSON.stringify(f.After ?? null);
    parts[i] = before === null ? `${keyOf(f.Field)}[${after}]` : `${keyOf(f.Field)}[${JSON.stringify(before)},${after}]`;
  }
  return `{${parts.join(',')}}`;
}

/** A field's name as a JSON key with its colon, made once per name. */
const KEYS = new Map<string, string>();
function keyOf(field: string): string {
  let key = KEYS.get(field);
  if (key === undefined) {
    if (KEYS.size >= 4096) KEYS.clear();
    KEYS.set(field, (key = `${JSON.stringify(field)}:`));
  }
  return key;
}

/** A stored `changes` column as the list of field changes, in either stored form (encodeChanges). */
export function decodeChanges(text: string): FieldChange[] {
  const stored = JSON.parse(text) as FieldChange[] | Record<string, [unknown] | [unknown, unknown] | 0>;
  if (Array.isArray(stored)) return stored;
  const out: FieldChange[] = [];
  for (const field of Object.keys(stored)) {
    const v = stored[field];
    if (v === 0) out.push({ Field: field, Secret: true });
    else if (v.length === 1) out.push({ Field: field, Before: null, After: v[0] });
    else out.push({ Field: field, Before: v[0], After: v[1] });
  }
  return out;
}

/** One changed record, as recorded in the audit trail. */
export interface RowChange {
  kind: string;
  rowId: string;
  action: AuditAction;
  /** A hard delete leaves no row behind (delta sync answers a tombstone). */
  gone: boolean;
  fields: FieldChange[];
  /** The site whose trail records it, when not the transaction's (a change of another site's row by a global administrator). */
  siteId?: string;
}

/**
 * Who made a change: the caller's individual, or (issue 28) the API client's service principal
 * when the caller carries one (`caller.principal = { kind, name, id }`), or the service itself.
 */
export interface Actor {
  id: string | null;
  kind: string;
  name: string | null;
}

/**
 * Columns kept by the data layer, not by a change, and derived ones (an individual's newest
 * comment follows the comment writes): never listed as changed fields.
 */
const BOOKKEEPING = new Set(['siteId', 'created', 'createdBy', 'updated', 'updatedBy', 'version', 'lastCommentId', 'lockSeq']);
/**
 * Columns of one kind that are the service's state, not the record's, kept with plain statements:
 * a webhook's delivery state (src/modules/webhooks/outbox.statements.ts), an API token's last use.
 */
const STATE_OF: Readonly<Record<string, ReadonlySet<string>>> = {
  webhook: new Set(['cursorSeq', 'failingSince', 'attempts', 'nextAttempt', 'leaseOwner', 'leaseUntil']),
  // When an API token last authenticated a request (src/modules/auth/api-token-uses.ts): its use, not a change.
  'api-token': new Set(['lastUsed']),
};
/** Properties whose values are never written to the trail, only that they changed. */
const SECRET = /password|secret/i;

/** `primaryOrganizationId` → `PrimaryOrganizationID`, `id` → `ID` (the inverse of resource.ts's columnOf). */
export function wireNameOf(property: string): string {
  if (property === 'id') return 'ID';
  const name = property.replace(/Id$/, 'ID');
  return name.charAt(0).toUpperCase() + name.slice(1);
}

const KINDS = new WeakMap<EntityMetadata, string>();

/** `IndividualEntity` → `individual`, `BasicRoleDialogEntity` → `basic-role-dialog` (worked out once per entity). */
export function kindOf(meta: EntityMetadata): string {
  let kind = KINDS.get(meta);
  if (kind === undefined) {
    const name = typeof meta.target === 'function' ? meta.target.name : meta.name;
    kind = name
      .replace(/Entity$/, '')
      .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
      .toLowerCase();
    KINDS.set(meta, kind);
  }
  return kind;
}

/** A column value as the trail keeps it: instants as ISO strings, booleans as booleans. */
function normalize(value: unknown, type: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (type === 'boolean' || type === Boolean) return value === true || value === 1 || value === '1' || value === 'true';
  if (type === 'datetime' && typeof value === 'string')
    return new Date(value.includes('T') || value.endsWith('Z') ? value : `${value.replace(' ', 'T')}Z`).toISOString();
  return value;
}

/**
 * Whether normalize() would answer the same for both: the same value, or two dates of the same
 * instant. Also what an update leaves out of its SET list (scoped-repository.ts, `changedOnly`) and
 * what a merged update sends once (transactions.ts, `mergedUpdate`).
 */
export function sameValue(x: unknown, y: unknown): boolean {
  return x === y || (x instanceof Date && y instanceof Date && x.getTime() === y.getTime());
}

/** A column diffRow reads: its property, its type, its wire name, whether it is a secret. */
interface DiffColumn {
  property: string;
  type: unknown;
  field: string;
  secret: boolean;
}

const DIFF_COLUMNS = new WeakMap<EntityMetadata, DiffColumn[]>();

/** The columns of an entity a change lists (not bookkeeping, not the kind's own state), worked out once per entity. */
function diffColumnsOf(meta: EntityMetadata): DiffColumn[] {
  let columns = DIFF_COLUMNS.get(meta);
  if (columns === undefined) {
    const state = STATE_OF[kindOf(meta)];
    columns = meta.columns
      .filter((col) => !BOOKKEEPING.has(col.propertyName) && !state?.has(col.propertyName))
      .map((col) => ({ property: col.propertyName, type: col.type, field: wireNameOf(col.propertyName), secret: SECRET.test(col.propertyName) }));
    DIFF_COLUMNS.set(meta, columns);
  }
  return columns;
}

/** The field changes between two states of a row (either may be null: create, delete). */
export function diffRow(meta: EntityMetadata, before: Record<string, unknown> | null, after: Record<string, unknown> | null): FieldChange[] {
  const out: FieldChange[] = [];
  const columns = diffColumnsOf(meta);
  for (let i = 0; i < columns.length; i++) {
    const col = columns[i];
    const p = col.property;
    // Unchanged (the same value, or the same instant): nothing to write out. An update keeps most
    // columns as they were, and writing a date out costs more than comparing it.
    if (before && after && sameValue(before[p], after[p])) continue;
    const b = before ? normalize(before[p], col.type) : null;
    const a = after ? normalize(after[p], col.type) : null;
    if (before && after && b === a) continue;
    if (!before && a === null) continue;
    if (!after && b === null) continue;
    if (col.secret) out.push({ Field: col.field, Secret: true });
    else out.push({ Field: col.field, Before: before ? b : null, After: after ? a : null });
  }
  return out;
}

/** The action an update names: a change of `deleted` is a (soft) delete or an undelete. */
export function actionOf(fields: readonly FieldChange[]): AuditAction {
  const del = fields.find((f) => f.Field === 'Deleted');
  if (del) return del.After === true ? 'delete' : 'undelete';
  return 'update';
}

export function actorOf(ctx: RequestContext): Actor {
  const caller = ctx.caller as (RequestContext['caller'] & { principal?: { kind?: string; name?: string; id?: string } }) | null;
  if (!caller) return { id: null, kind: 'system', name: null };
  if (caller.principal)
    return {
      id: caller.principal.id ?? caller.individualId ?? caller.userId,
      kind: caller.principal.kind ?? 'api-client',
      name: caller.principal.name ?? null,
    };
  if (ctx.requestId === 'system') return { id: caller.individualId, kind: 'system', name: caller.userName };
  return { id: caller.individualId ?? caller.userId, kind: 'user', name: caller.userName };
}

/** A datetime(3) literal in UTC, as both drivers store instants (columns.ts). */
export function sqlInstant(d: Date): string {
  return d.toISOString().replace('T', ' ').slice(0, 23);
}

const AUDIT_COLUMNS = 'site_id, seq, kind, row_id, action, gone, changes, actor_id, actor_kind, actor_name, request_id, at';
const CHUNK = 400;
const INSERTS: string[] = [];
/** The INSERT of n audit rows (its text kept per n). */
function insertSql(n: number): string {
  return (INSERTS[n] ??=
    `INSERT INTO audit_log (${AUDIT_COLUMNS}) VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`);
}

/** The changes by the site whose trail records them, and those sites in one order for every transaction. */
function groupBySite(ctx: RequestContext, changes: readonly RowChange[]): { bySite: Map<string, RowChange[]>; sites: string[] } {
  const bySite = new Map<string, RowChange[]>();
  for (const c of changes) {
    const site = c.siteId ?? ctx.siteId;
    const list = bySite.get(site);
    if (list) list.push(c);
    else bySite.set(site, [c]);
  }
  return { bySite, sites: [...bySite.keys()].sort() };
}

/**
 * Writes the journal of one transaction: per site changed (in one order for every transaction, so
 * two cannot wait on each other), the site's change sequence moved on by the number of its changes
 * (the counter row stays locked until commit, so sequence order is commit order), then the audit
 * rows in a few multi-row INSERTs. Answers the sites whose trail got rows.
 */
export async function flushJournal(manager: EntityManager, sqlite: boolean, ctx: RequestContext, changes: readonly RowChange[]): Promise<string[]> {
  const { bySite, sites } = groupBySite(ctx, changes);
  for (const site of sites) await flushSite(manager, sqlite, ctx, site, bySite.get(site)!);
  return sites;
}

async function flushSite(manager: EntityManager, sqlite: boolean, ctx: RequestContext, siteId: string, changes: readonly RowChange[]): Promise<void> {
  const end = await nextSequence(manager, sqlite, siteId, changes.length);
  const start = end - changes.length + 1;
  const actor = actorOf(ctx);
  const at = sqlInstant(new Date());
  const requestId = ctx.requestId.slice(0, 64);
  for (let i = 0; i < changes.length; i += CHUNK) {
    const slice = changes.slice(i, i + CHUNK);
    const params: unknown[] = [];
    for (let j = 0; j < slice.length; j++) {
      const c = slice[j];
      params.push(siteId, start + i + j, c.kind, c.rowId, c.action, c.gone ? 1 : 0, encodeChanges(c.fields), actor.id, actor.kind, actor.name, requestId, at);
    }
    await manager.query(insertSql(slice.length), params);
  }
}

/** Statements sent as one text, with their parameters. */
export interface Batch {
  sql: string;
  params: unknown[];
}

/** Batches as one, in order (null when there is none). */
export function joinBatches(batches: readonly Batch[]): Batch | null {
  if (batches.length <= 1) return batches[0] ?? null;
  return { sql: batches.map((b) => b.sql).join(';\n'), params: paramsOf(batches) };
}

/**
 * The batches' parameters in order, in one array (a loop: flatMap over a bulk chunk's thousands of
 * parameters cost about 5 µs an item).
 */
export function paramsOf(batches: readonly Batch[]): unknown[] {
  const out: unknown[] = [];
  for (const b of batches) for (let i = 0; i < b.params.length; i++) out.push(b.params[i]);
  return out;
}

/**
 * The values every audit row of one site in one journal batch shares, set as the session's
 * variables right after the change sequence's upsert: its new value (LAST_INSERT_ID()), the site,
 * the actor, the request, and the server's clock read once after the counter's lock was taken. Each
 * batch sets them before its rows use them, so what a pooled connection kept from an earlier batch
 * is never read.
 */
const JOURNAL_VARIABLES =
  'SET @pms_seq = LAST_INSERT_ID(), @pms_site = ?, @pms_actor = ?, @pms_actor_kind = ?, @pms_actor_name = ?, @pms_request = ?, @pms_at = UTC_TIMESTAMP(3)';

/**
 * The journal of one transaction as one batch of statements for MySQL/MariaDB, to be sent with
 * the COMMIT in a single round trip (TenantDb.transaction): per site changed, in one order for
 * every transaction, the upsert that moves its change sequence on and leaves the new value in
 * the session's `LAST_INSERT_ID()` (the counter row stays locked until the COMMIT that follows,
 * so sequence order is commit order), then the audit rows numbered from that value and stamped
 * with the server's clock after the lock was taken (so stamps follow the sequence on one server).
 * Null when nothing changed. Answers the sites whose trail gets rows.
 */
export function journalBatch(ctx: RequestContext, changes: readonly RowChange[]): { batch: Batch | null; sites: string[] } {
  if (!changes.length) return { batch: null, sites: [] };
  const { bySite, sites } = groupBySite(ctx, changes);
  const actor = actorOf(ctx);
  const requestId = ctx.requestId.slice(0, 64);
  const statements: string[] = [];
  const params: unknown[] = [];
  for (const site of sites) {
    const list = bySite.get(site)!;
    const n = list.length;
    // LAST_INSERT_ID(expr) sets the value for both branches: the site's first change and a counter moved on.
    statements.push('INSERT INTO change_seqs (site_id, seq) VALUES (?, LAST_INSERT_ID(?)) ON DUPLICATE KEY UPDATE seq = LAST_INSERT_ID(seq + ?)');
    params.push(site, n, n);
    // What every row of the site shares, sent once into the session's variables (JOURNAL_VARIABLES)
    // rather than with each row: a bulk chunk's rows would repeat about 160 bytes each.
    statements.push(JOURNAL_VARIABLES);
    params.push(site, actor.id, actor.kind, actor.name, requestId);
    for (let i = 0; i < n; i += CHUNK) {
      const slice = list.slice(i, i + CHUNK);
      const rows: string[] = [];
      for (let j = 0; j < slice.length; j++) {
        const c = slice[j];
        // Row i + j of n is numbered end - (n - 1 - (i + j)); the offset is a number this code computed.
        rows.push(`(@pms_site, @pms_seq - ${n - 1 - (i + j)}, ?, ?, ?, ?, ?, @pms_actor, @pms_actor_kind, @pms_actor_name, @pms_request, @pms_at)`);
        params.push(c.kind, c.rowId, c.action, c.gone ? 1 : 0, encodeChanges(c.fields));
      }
      statements.push(`INSERT INTO audit_log (${AUDIT_COLUMNS}) VALUES ${rows.join(', ')}`);
    }
  }
  return { batch: { sql: statements.join(';\n'), params }, sites };
}

/**
 * Moves the site's change sequence on by `n` and answers its new value, in one statement. On
 * MySQL/MariaDB the row lock the upsert takes is held until commit, so a transaction numbered
 * later commits later; `LAST_INSERT_ID(expr)` hands the value back in the statement's own answer.
 * SQLite runs one write transaction at a time and answers with RETURNING.
 */
async function nextSequence(manager: EntityManager, sqlite: boolean, siteId: string, n: number): Promise<number> {
  if (sqlite) {
    const rows = (await manager.query(
      'INSERT INTO change_seqs (site_id, seq) VALUES (?, ?) ON CONFLICT(site_id) DO UPDATE SET seq = seq + excluded.seq RETURNING seq',
      [siteId, n],
    )) as { seq: number }[];
    return Number(rows[0].seq);
  }
  const res = (await manager.query('INSERT INTO change_seqs (site_id, seq) VALUES (?, ?) ON DUPLICATE KEY UPDATE seq = LAST_INSERT_ID(seq + ?)', [
    siteId,
    n,
    n,
  ])) as { affectedRows: number; insertId: number };
  // One row affected: the site's first change (the counter starts at n); two: the counter moved.
  return res.affectedRows === 1 ? n : Number(res.insertId);
}
