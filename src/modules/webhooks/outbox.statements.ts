import type { RequestContext } from '../../common/context/request-context.js';
import { sqlInstant } from '../../database/journal.js';
import { instantOf } from '../../database/queries/audit.js';
import type { Housekeeper, TenantDb } from '../../database/tenant-db.js';
import { family, placeholders, sql } from '../../database/statements.js';
import { newRecordId } from '../../common/ids.js';

/**
 * The webhook dispatcher's statements (docs/events.md, "Delivery"). The outbox is the audit log
 * (src/database/journal.ts): each webhook keeps a cursor, the sequence number of the last event it
 * was handed. A replica claims a webhook with a lease (taken with `FOR UPDATE SKIP LOCKED` on
 * MySQL/MariaDB, so replicas claiming at the same moment pass each other by; SQLite runs one
 * write transaction at a time), delivers its events in sequence order, and moves the cursor on.
 */

export interface ClaimedWebhook {
  id: string;
  siteId: string;
  url: string;
  eventTypes: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpires: Date | null;
  cursorSeq: number;
  attempts: number;
  failingSince: Date | null;
}

const instant = (v: Date | string | null): Date | null => (v === null ? null : instantOf(v));

/** Active webhooks with events past their cursor, due and not leased: the look for work (`?` the limit). */
const DUE = sql<{ id: string }>(
  'outbox.due',
  `SELECT w.id FROM webhooks w JOIN change_seqs c ON c.site_id = w.site_id
   WHERE w.active = 1 AND c.seq > w.cursor_seq AND (w.next_attempt IS NULL OR w.next_attempt <= ?) AND (w.lease_until IS NULL OR w.lease_until < ?)
   ORDER BY w.next_attempt LIMIT ?`,
);

/**
 * `n` of the candidates, locked unless leased meanwhile; MySQL/MariaDB skip rows another replica is
 * claiming this very moment (`FOR UPDATE SKIP LOCKED`).
 */
const FREE = family(
  'outbox.free',
  (dialect: 'mysql' | 'sqlite', n: number) =>
    `SELECT id FROM webhooks WHERE id IN (${placeholders(n)}) AND active = ? AND (lease_until IS NULL OR lease_until < ?)${dialect === 'mysql' ? ' FOR UPDATE SKIP LOCKED' : ''}`,
  [
    ['mysql', 2],
    ['sqlite', 2],
  ],
).rows<{ id: string }>();

/** Leases `n` webhooks to a replica, unless leased meanwhile. */
const LEASE = family(
  'outbox.lease',
  (n: number) => `UPDATE webhooks SET lease_owner = ?, lease_until = ? WHERE id IN (${placeholders(n)}) AND (lease_until IS NULL OR lease_until < ?)`,
  [[2]],
);

/** `n` webhooks this replica leases, with what delivering their events takes. */
const CLAIMED = family(
  'outbox.claimed',
  (n: number) =>
    `SELECT id, site_id, url, event_types, secret, previous_secret, previous_secret_expires, cursor_seq, attempts, failing_since FROM webhooks WHERE id IN (${placeholders(n)}) AND lease_owner = ?`,
  [[2]],
).rows<Record<string, unknown>>();

/** A wave that failed: the cursor moves, the next attempt waits, the lease is given back. */
const SETTLE_FAILED = sql(
  'outbox.settle-failed',
  'UPDATE webhooks SET cursor_seq = ?, attempts = ?, failing_since = ?, next_attempt = ?, lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?',
);
/** A wave that went well: the cursor moves, the lease is renewed. */
const SETTLE_DONE = sql(
  'outbox.settle-done',
  'UPDATE webhooks SET cursor_seq = ?, attempts = 0, failing_since = NULL, next_attempt = NULL, lease_until = ? WHERE id = ? AND lease_owner = ?',
);
const RELEASE = sql('outbox.release', 'UPDATE webhooks SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?');

/**
 * Claims up to `limit` active webhooks that have events past their cursor and are due (no
 * backoff pending, no other replica's lease), for `leaseMs`. Answers them.
 */
export async function claimDue(db: TenantDb, owner: string, leaseMs: number, limit: number, mysql: boolean): Promise<ClaimedWebhook[]> {
  const now = new Date();
  // The look for work outside a transaction: most wakes find none (docs/events.md, "Delivery and ordering").
  const candidates = await db.pollRead(DUE, [sqlInstant(now), sqlInstant(now), Number(limit)]);
  if (candidates.length === 0) return [];
  const due = await db.housekeeping(async (h) => {
    const ids = candidates.map((c) => c.id);
    // Locks only the webhook rows (never the sites' counters, which writers hold), skipping rows
    // another replica is claiming this very moment.
    const free = await h.rows(FREE.of(mysql ? 'mysql' : 'sqlite', ids.length), [...ids, true, sqlInstant(now)]);
    if (free.length === 0) return [];
    const claimed = free.map((f) => f.id);
    // The lease condition again: on SQLite (no row locks) another process may have claimed since the read.
    await h.write(LEASE.of(claimed.length), [owner, sqlInstant(new Date(now.getTime() + leaseMs)), ...claimed, sqlInstant(now)]);
    return claimed;
  });
  if (due.length === 0) return [];
  const rows = await db.housekeeping((h) => h.rows(CLAIMED.of(due.length), [...due, owner]));
  return rows.map((r) => ({
    id: r.id as string,
    siteId: r.site_id as string,
    url: r.url as string,
    eventTypes: r.event_types as string,
    secret: r.secret as string,
    previousSecret: r.previous_secret as string | null,
    previousSecretExpires: instant(r.previous_secret_expires as string | null),
    cursorSeq: Number(r.cursor_seq),
    attempts: Number(r.attempts),
    failingSince: instant(r.failing_since as string | null),
  }));
}

/** What failed in a wave, to be tried again after `next` (docs/events.md, "Retries"). */
export interface Backoff {
  attempts: number;
  failingSince: Date;
  next: Date;
}

/**
 * Ends one wave of deliveries in one short transaction (docs/events.md, "Delivery"): the attempts
 * are logged, the cursor moves to `cursor` (every event up to it was handled: delivered or not
 * subscribed) and either the lease is renewed for `leaseMs` (all went well) or, after a failure,
 * the next attempt waits until `backoff.next` and the lease is given back. Answers false when the
 * lease is no longer this replica's (it ran out and another replica claimed the webhook): the
 * caller stops at once; what it sent meanwhile is sent again by the other replica, under the same
 * message ids.
 */
export async function settle(
  db: TenantDb,
  webhookId: string,
  owner: string,
  wave: { logs: readonly DeliveryRecord[]; cursor: number; leaseMs: number; backoff: Backoff | null },
): Promise<boolean> {
  const affected = await db.housekeeping(async (h) => {
    await insertDeliveries(h, wave.logs);
    const b = wave.backoff;
    return b
      ? h.write(SETTLE_FAILED, [wave.cursor, b.attempts, sqlInstant(b.failingSince), sqlInstant(b.next), webhookId, owner])
      : h.write(SETTLE_DONE, [wave.cursor, sqlInstant(new Date(Date.now() + wave.leaseMs)), webhookId, owner]);
  });
  return affected > 0;
}

/** Gives the claim back (the work is done, or the replica is stopping). */
export function release(db: TenantDb, webhookId: string, owner: string): Promise<unknown> {
  return db.housekeeping((h) => h.write(RELEASE, [webhookId, owner]));
}

export interface DeliveryRecord {
  webhookId: string;
  siteId: string;
  eventId: string;
  eventType: string;
  seq: number;
  attempt: number;
  status: 'delivered' | 'failed';
  responseCode: number | null;
  durationMs: number;
  error: string | null;
  payload: string;
}

const DELIVERY_COLUMNS =
  'id, site_id, created, created_by, updated, updated_by, version, webhook_id, event_id, event_type, seq, attempt, status, response_code, duration_ms, error, payload';

/** `n` logged attempts in one multi-row INSERT. */
const INSERT_DELIVERIES = family(
  'outbox.insert-deliveries',
  (n: number) =>
    `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS}) VALUES ${Array.from({ length: n }, () => '(?, ?, ?, NULL, ?, NULL, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
  [[1], [3]],
);
const DELETE_DELIVERIES = sql('outbox.delete-deliveries', 'DELETE FROM webhook_deliveries WHERE site_id = ? AND webhook_id = ?');
const WEBHOOKS = sql<{ site_id: string; id: string }>('outbox.webhooks', 'SELECT site_id, id FROM webhooks');
const OLD_DELIVERIES = sql<{ id: string }>(
  'outbox.old-deliveries',
  'SELECT id FROM webhook_deliveries WHERE site_id = ? AND webhook_id = ? AND created < ? ORDER BY created LIMIT ?',
);
/** `n` delivery attempts of a site, by id. */
const PRUNE_DELIVERIES = family('outbox.prune-deliveries', (n: number) => `DELETE FROM webhook_deliveries WHERE site_id = ? AND id IN (${placeholders(n)})`, [
  [3],
]);

/** Writes logged attempts in one multi-row INSERT; answers their ids. */
async function insertDeliveries(h: Housekeeper, logs: readonly DeliveryRecord[]): Promise<string[]> {
  if (logs.length === 0) return [];
  const now = sqlInstant(new Date());
  const ids = logs.map(() => newRecordId());
  const params: unknown[] = [];
  logs.forEach((d, i) =>
    params.push(
      ids[i],
      d.siteId,
      now,
      now,
      d.webhookId,
      d.eventId,
      d.eventType,
      d.seq,
      d.attempt,
      d.status,
      d.responseCode,
      d.durationMs,
      d.error?.slice(0, 500) ?? null,
      d.payload,
    ),
  );
  await h.write(INSERT_DELIVERIES.of(logs.length), params);
  return ids;
}

/** Logs one attempt made outside the dispatcher (a ping, a redelivery; docs/events.md, "Delivery log"); answers its id. */
export async function logDelivery(db: TenantDb, d: DeliveryRecord): Promise<string> {
  const [id] = await db.housekeeping((h) => insertDeliveries(h, [d]));
  return id;
}

/** Removes a webhook's delivery log (with the webhook, in the caller's transaction). */
export function deleteDeliveries(db: TenantDb, ctx: RequestContext, webhookId: string): Promise<unknown> {
  return db.sql(ctx, DELETE_DELIVERIES, [ctx.siteId, webhookId]);
}

/**
 * Deletes up to `batch` of the oldest delivery attempts logged before `cutoff`, over every
 * webhook (docs/events.md, "Delivery log"): the rows are found per webhook on
 * `ix_webhook_deliveries_webhook` (site, webhook, created), then deleted by id in one short
 * statement outside any request's transaction. Answers how many were deleted.
 */
export async function pruneDeliveries(db: TenantDb, cutoff: Date, batch: number): Promise<number> {
  const webhooks = await db.pollRead(WEBHOOKS, []);
  let deleted = 0;
  for (const w of webhooks) {
    if (deleted >= batch) break;
    const old = await db.pollRead(OLD_DELIVERIES, [w.site_id, w.id, sqlInstant(cutoff), batch - deleted]);
    if (old.length === 0) continue;
    await db.housekeepingWrite(PRUNE_DELIVERIES.of(old.length), [w.site_id, ...old.map((o) => o.id)]);
    deleted += old.length;
  }
  return deleted;
}
