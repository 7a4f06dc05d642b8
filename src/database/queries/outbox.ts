import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { RequestContext } from '../../common/context/request-context.js';
import { sqlInstant } from '../journal.js';
import { instantOf } from './audit.js';
import type { TenantDb } from '../tenant-db.js';

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

/**
 * Claims up to `limit` active webhooks that have events past their cursor and are due (no
 * backoff pending, no other replica's lease), for `leaseMs`. Answers them.
 */
export async function claimDue(db: TenantDb, owner: string, leaseMs: number, limit: number, mysql: boolean): Promise<ClaimedWebhook[]> {
  const now = new Date();
  // The look for work outside a transaction: most wakes find none (docs/events.md, "Delivery and ordering").
  const candidates = await db.pollRead<{ id: string }>(
    `SELECT w.id FROM webhooks w JOIN change_seqs c ON c.site_id = w.site_id
     WHERE w.active = 1 AND c.seq > w.cursor_seq AND (w.next_attempt IS NULL OR w.next_attempt <= ?) AND (w.lease_until IS NULL OR w.lease_until < ?)
     ORDER BY w.next_attempt LIMIT ${Number(limit)}`,
    [sqlInstant(now), sqlInstant(now)],
  );
  if (candidates.length === 0) return [];
  const due = await db.housekeeping(async (m) => {
    const ids = candidates.map((c) => c.id);
    const marks = ids.map(() => '?').join(', ');
    // Locks only the webhook rows (never the sites' counters, which writers hold), skipping rows
    // another replica is claiming this very moment.
    const free = (await m.query(
      `SELECT id FROM webhooks WHERE id IN (${marks}) AND active = ? AND (lease_until IS NULL OR lease_until < ?)${mysql ? ' FOR UPDATE SKIP LOCKED' : ''}`,
      [...ids, true, sqlInstant(now)],
    )) as { id: string }[];
    if (free.length === 0) return [];
    const claimed = free.map((f) => f.id);
    // The lease condition again: on SQLite (no row locks) another process may have claimed since the read.
    await m.query(
      `UPDATE webhooks SET lease_owner = ?, lease_until = ? WHERE id IN (${claimed.map(() => '?').join(', ')}) AND (lease_until IS NULL OR lease_until < ?)`,
      [owner, sqlInstant(new Date(now.getTime() + leaseMs)), ...claimed, sqlInstant(now)],
    );
    return claimed;
  });
  if (due.length === 0) return [];
  const rows = (await db.housekeeping((m) =>
    m.query(
      `SELECT id, site_id, url, event_types, secret, previous_secret, previous_secret_expires, cursor_seq, attempts, failing_since FROM webhooks WHERE id IN (${due.map(() => '?').join(', ')}) AND lease_owner = ?`,
      [...due, owner],
    ),
  )) as Record<string, unknown>[];
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
  const affected = await db.housekeeping(async (m) => {
    await insertDeliveries(m, wave.logs);
    const b = wave.backoff;
    // The structured answer carries the changed-row count on both drivers.
    const res = (await m.queryRunner!.query(
      b
        ? 'UPDATE webhooks SET cursor_seq = ?, attempts = ?, failing_since = ?, next_attempt = ?, lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?'
        : 'UPDATE webhooks SET cursor_seq = ?, attempts = 0, failing_since = NULL, next_attempt = NULL, lease_until = ? WHERE id = ? AND lease_owner = ?',
      b
        ? [wave.cursor, b.attempts, sqlInstant(b.failingSince), sqlInstant(b.next), webhookId, owner]
        : [wave.cursor, sqlInstant(new Date(Date.now() + wave.leaseMs)), webhookId, owner],
      true,
    )) as { affected?: number };
    return res.affected ?? 0;
  });
  return affected > 0;
}

/** Gives the claim back (the work is done, or the replica is stopping). */
export function release(db: TenantDb, webhookId: string, owner: string): Promise<unknown> {
  return db.housekeeping((m) => m.query('UPDATE webhooks SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?', [webhookId, owner]));
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

/** Writes logged attempts in one multi-row INSERT; answers their ids. */
async function insertDeliveries(m: EntityManager, logs: readonly DeliveryRecord[]): Promise<string[]> {
  if (logs.length === 0) return [];
  const now = sqlInstant(new Date());
  const ids = logs.map(() => randomUUID());
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
  const row = '(?, ?, ?, NULL, ?, NULL, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
  await m.query(`INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS}) VALUES ${logs.map(() => row).join(', ')}`, params);
  return ids;
}

/** Logs one attempt made outside the dispatcher (a ping, a redelivery; docs/events.md, "Delivery log"); answers its id. */
export async function logDelivery(db: TenantDb, d: DeliveryRecord): Promise<string> {
  const [id] = await db.housekeeping((m) => insertDeliveries(m, [d]));
  return id;
}

/** Removes a webhook's delivery log (with the webhook, in the caller's transaction). */
export function deleteDeliveries(db: TenantDb, ctx: RequestContext, webhookId: string): Promise<unknown> {
  return db.sql(ctx, 'DELETE FROM webhook_deliveries WHERE site_id = ? AND webhook_id = ?', [ctx.siteId, webhookId]);
}
