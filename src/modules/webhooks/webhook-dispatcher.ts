import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { decodeChanges, type FieldChange } from '../../database/journal.js';
import { WebhookEntity } from '../../database/entities/webhook.entity.js';
import { changesAfter, type AuditRow } from '../../database/queries/audit.js';
import { claimDue, release, settle, type Backoff, type ClaimedWebhook } from './outbox.statements.js';
import { TenantDb } from '../../database/tenant-db.js';
import { eventType, parseTypes, plainType, subscribes } from './event-types.js';
import { WebhookEvents } from './webhook-events.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** Events read per webhook per statement. */
const BATCH = 100;
/** Webhooks one replica delivers to at once; more wait for a free place (they stay due). */
const MAX_DRAINS = 32;
/** Webhooks claimed per statement. */
const CLAIM = 20;
/**
 * The shortest time between two claims woken by commits (docs/events.md, "Delivery"). A claim is a
 * transaction of three statements; woken by every commit, a stream of writes paid for one claim per
 * write (more than the write's own audit rows cost). The commits within the gap share one claim;
 * an event waits at most this much longer for it.
 */
export const COMMIT_WAKE_GAP_MS = 25;

/** The delay before attempt `attempts + 1`: exponential from the base, capped, with ±25 % jitter. */
export function backoffMs(attempts: number, baseMs: number, maxMs: number, random = Math.random): number {
  const plain = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.max(1, Math.round(plain * (0.75 + random() * 0.5)));
}

/** An event of a webhook's queue: its sequence number and the record it is about. */
export interface QueuedEvent {
  seq: number;
  /** `kind:id` of the record: events of one record go out one after the other, in sequence order. */
  record: string;
}

/**
 * The events sent together next (docs/events.md, "Delivery"): the first not yet handled event of
 * each of the first `width` records, in sequence order. A record's later events wait until its
 * earlier one is handled, so order per record holds while different records go out at once.
 */
export function nextWave<E extends QueuedEvent>(queue: readonly E[], handled: ReadonlySet<number>, width: number): E[] {
  const records = new Set<string>();
  const wave: E[] = [];
  for (const e of queue) {
    if (wave.length >= width) break;
    if (handled.has(e.seq) || records.has(e.record)) continue;
    records.add(e.record);
    wave.push(e);
  }
  return wave;
}

/** The cursor after `from`: the last sequence number up to which every event is handled. */
export function handledUpTo(events: readonly { seq: number }[], handled: ReadonlySet<number>, from: number): number {
  let cursor = from;
  for (const e of events) {
    if (!handled.has(e.seq)) break;
    cursor = e.seq;
  }
  return cursor;
}

/**
 * The part of a batch a drain may deliver with the settings it claimed (docs/events.md, "Delivery"):
 * up to and including the first change of the webhook itself (a rotated secret, other event types,
 * a new URL). Events after that change go out under the new settings, read by the next claim;
 * `changed` says the drain must stop there and let go.
 */
export function upToOwnChange<R extends { kind: string; row_id: string }>(rows: readonly R[], webhookId: string): { rows: readonly R[]; changed: boolean } {
  const own = rows.findIndex((r) => r.kind === 'webhook' && r.row_id === webhookId);
  return own < 0 ? { rows, changed: false } : { rows: rows.slice(0, own + 1), changed: true };
}

interface Queued extends QueuedEvent {
  row: AuditRow;
  /** The row's changes, decoded once: for the subscription's check and the message. */
  fields: FieldChange[];
}

/**
 * Delivers the outbox (docs/events.md, "Delivery"). Woken right after every commit that recorded
 * changes — at once in the committing process, within milliseconds on the other replicas when
 * REDIS_URL is set — and every WEBHOOK_POLL_MS as a fallback, it claims the due webhooks (a lease;
 * no two replicas hold one webhook) and delivers each one's events past its cursor in waves: up to
 * WEBHOOK_CONCURRENCY records at once, each record's events in sequence order. Each wave ends in
 * one short transaction that logs its attempts, moves the cursor over every event handled so far
 * and renews the lease. A failure stops the webhook's queue until the backoff has passed; an
 * event still failing after WEBHOOK_RETRY_WINDOW_MS disables the endpoint with the reason. At
 * least once: a replica that dies after a send and before its wave's transaction leaves those
 * events to be sent again, under the same `webhook-id`.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  /** This replica's name on the leases it takes. */
  readonly owner = `replica-${randomUUID()}`;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  /** The claim running, if any; `again` asks for another right after it. */
  private claiming: Promise<void> | null = null;
  private again = false;
  /** The webhooks this replica is delivering to now. */
  private readonly draining = new Map<string, Promise<void>>();
  /** Moves on at every wake: a drain that saw it change while it worked looks again after it lets go. */
  private generation = 0;
  private stopped = false;
  /** When the last claim started, and the wake waiting for the end of the gap after it (COMMIT_WAKE_GAP_MS). */
  private lastClaimAt = 0;
  private deferred: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: TenantDb,
    private readonly events: WebhookEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.webhooks.deliver) return;
    this.unsubscribe = this.db.onCommit(() => this.wakeAfterCommit());
    this.timer = setInterval(() => this.wake(), this.config.webhooks.pollMs);
    this.timer.unref();
    this.wake();
  }

  /**
   * Stops taking work and gives the deliveries in flight a few seconds to finish; one still stuck
   * (on a database that does not answer) is left behind: its lease runs out and another replica
   * continues, so nothing is lost, and shutdown is not held up.
   */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    if (this.deferred) clearTimeout(this.deferred);
    const inFlight = [this.claiming, ...this.draining.values()].filter((p): p is Promise<void> => p !== null);
    if (inFlight.length) await Promise.race([Promise.all(inFlight), sleep(5000, undefined, { ref: false })]);
  }

  /**
   * A commit's wake: at once when no claim started in the last COMMIT_WAKE_GAP_MS, else one wake at
   * the end of that gap, shared by every commit until then.
   */
  wakeAfterCommit(): void {
    if (this.stopped || this.deferred) return;
    const wait = this.lastClaimAt + COMMIT_WAKE_GAP_MS - Date.now();
    if (wait <= 0) return this.wake();
    this.deferred = setTimeout(() => {
      this.deferred = null;
      this.wake();
    }, wait);
    this.deferred.unref();
  }

  /** Claims the due webhooks now, or right after the claim running; never waits for deliveries in flight. */
  wake(): void {
    if (this.stopped) return;
    this.generation++;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.lastClaimAt = Date.now();
    this.claiming = this.claim()
      .catch((e: Error) => this.logger.warn(`claiming webhooks failed, tried again shortly: ${e.message}`))
      .finally(() => {
        this.claiming = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Claims due webhooks (while there are free places) and starts delivering to each; does not wait for the deliveries. */
  private async claim(): Promise<void> {
    for (;;) {
      const free = Math.min(CLAIM, MAX_DRAINS - this.draining.size);
      if (free <= 0 || this.stopped) return;
      const claimed = await claimDue(this.db, this.owner, this.leaseMs, free, !this.db.isSqlite);
      for (const w of claimed) {
        const drain = this.drain(w).finally(() => {
          const wasFull = this.draining.size >= MAX_DRAINS;
          this.draining.delete(w.id);
          // A place came free: webhooks left waiting for one are claimed now.
          if (wasFull) this.wake();
        });
        this.draining.set(w.id, drain);
      }
      if (claimed.length < free) return;
    }
  }

  /**
   * How long a claim holds without progress: a wave's sends (each answered or timed out within
   * WEBHOOK_TIMEOUT_MS) and its statements; every wave renews it. A replica that dies leaves its
   * claims to run out within this time.
   */
  private get leaseMs(): number {
    return this.config.webhooks.timeoutMs * 2 + 5000;
  }

  private async drain(w: ClaimedWebhook): Promise<void> {
    const ctx = RequestContext.system(w.siteId);
    const subscribed = parseTypes(w.eventTypes);
    let cursor = w.cursorSeq;
    try {
      for (;;) {
        const seen = this.generation;
        const read = await changesAfter(this.db, ctx, null, cursor, BATCH);
        if (this.stopped) break;
        if (read.length === 0) {
          await release(this.db, w.id, this.owner);
          // A commit woke the dispatcher after the read: its events may be past the cursor.
          if (this.generation !== seen) this.wake();
          return;
        }
        const { rows, changed } = upToOwnChange(read, w.id);
        const events = rows.map((row): Queued => ({ row, fields: decodeChanges(row.changes), seq: Number(row.seq), record: `${row.kind}:${row.row_id}` }));
        const handled = new Set<number>();
        const queue: Queued[] = [];
        for (const e of events) {
          const type = eventType(e.row.kind, e.row.action, e.fields);
          if (subscribes(subscribed, type, plainType(e.row.kind, e.row.action))) queue.push(e);
          // Not subscribed: passed over, the cursor moves over it with the next wave.
          else handled.add(e.seq);
        }
        const next = await this.waves(w, queue, events, handled, cursor);
        if (next === null) return;
        cursor = next;
        if (changed) {
          // The webhook's own settings changed: the next claim reads them before its later events go out.
          await release(this.db, w.id, this.owner);
          this.wake();
          return;
        }
      }
      await release(this.db, w.id, this.owner);
    } catch (e) {
      this.logger.warn(`webhook ${w.id}: ${(e as Error).message}`);
      await release(this.db, w.id, this.owner).catch(() => undefined);
    }
  }

  /**
   * Sends one batch's subscribed events in waves; answers the cursor after the batch, or null
   * when the webhook is no longer this replica's to deliver (a failure backed it off, or the
   * lease was lost).
   */
  private async waves(w: ClaimedWebhook, queue: readonly Queued[], events: readonly Queued[], handled: Set<number>, from: number): Promise<number | null> {
    const cfg = this.config.webhooks;
    let cursor = from;
    for (;;) {
      // An endpoint that is failing is probed with the event at the head alone until it answers again.
      const wave = nextWave(queue, handled, w.attempts > 0 ? 1 : cfg.concurrency);
      // The event at the head of the queue: its attempts are counted across failures.
      const head = queue.find((e) => !handled.has(e.seq));
      const sent = await Promise.all(
        wave.map(async (e) => {
          const message = await this.events.message(e.row, e.fields);
          return { e, ...(await this.events.attempt(w, message, e === head ? w.attempts + 1 : 1)) };
        }),
      );
      for (const s of sent) if (s.result.ok) handled.add(s.e.seq);
      const next = handledUpTo(events, handled, cursor);
      const failed = sent.filter((s) => !s.result.ok).sort((a, b) => a.e.seq - b.e.seq)[0];
      let backoff: Backoff | null = null;
      if (failed) {
        const now = new Date();
        // Progress made: the failing event is a new head, counted from one.
        const fresh = next > cursor;
        const attempts = fresh ? 1 : w.attempts + 1;
        const failingSince = fresh ? now : (w.failingSince ?? now);
        backoff = { attempts, failingSince, next: new Date(now.getTime() + backoffMs(attempts, cfg.retryBaseMs, cfg.retryMaxMs)) };
      }
      const held = await settle(this.db, w.id, this.owner, { logs: sent.map((s) => s.log), cursor: next, leaseMs: this.leaseMs, backoff });
      if (!held) return null;
      if (failed && backoff) {
        if (Date.now() - backoff.failingSince.getTime() >= cfg.retryWindowMs) await this.disable(w, backoff, failed.log.error ?? 'failed');
        return null;
      }
      w.attempts = 0;
      w.failingSince = null;
      cursor = next;
      if (queue.every((e) => handled.has(e.seq))) return handledUpTo(events, handled, cursor);
    }
  }

  /**
   * The endpoint failed for the whole retry window: switched off with the reason the administrator
   * reads, as a change of the webhook by the service itself (in the audit trail, docs/audit.md).
   */
  private async disable(w: ClaimedWebhook, b: Backoff, error: string): Promise<void> {
    const reason = `Disabled at ${new Date().toISOString()}: deliveries failed since ${b.failingSince.toISOString()} (${b.attempts} attempts); last error: ${error}`;
    await this.db.transaction(RequestContext.system(w.siteId), (tx) =>
      tx.repo(WebhookEntity, 'Webhook').update(w.id, { active: false, disabledReason: reason.slice(0, 500), nextAttempt: null }),
    );
    this.logger.warn(`webhook ${w.id} disabled: ${reason}`);
  }
}
