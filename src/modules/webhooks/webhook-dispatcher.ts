import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { changesAfter } from '../../database/queries/audit.js';
import { advance, backOff, claimDue, disable, release, type ClaimedWebhook } from '../../database/queries/outbox.js';
import { TenantDb } from '../../database/tenant-db.js';
import { eventType, parseTypes, plainType, subscribes } from '../../common/events/event-types.js';
import { WebhookEvents } from './webhook-events.js';

/** Events read per webhook per round. */
const BATCH = 100;

/** The delay before attempt `attempts + 1`: exponential from the base, capped, with ±25 % jitter. */
export function backoffMs(attempts: number, baseMs: number, maxMs: number, random = Math.random): number {
  const plain = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.max(1, Math.round(plain * (0.75 + random() * 0.5)));
}

/**
 * Delivers the outbox (docs/events.md, "Delivery"): after every commit that recorded changes in
 * this replica, and every WEBHOOK_POLL_MS for the commits of other replicas, it claims the due
 * webhooks (a lease; no two replicas hold one webhook), and sends each one's events past its
 * cursor in sequence order, moving the cursor on after each 2xx. A failure stops that webhook's
 * queue (order per record, and per endpoint, is kept) until the backoff has passed; an event still
 * failing after WEBHOOK_RETRY_WINDOW_MS disables the endpoint with the reason. At least once: a
 * replica that dies after a send and before moving the cursor leaves the event to be sent again,
 * under the same `webhook-id`.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  /** This replica's name on the leases it takes. */
  readonly owner = `replica-${randomUUID()}`;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: TenantDb,
    private readonly events: WebhookEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.webhooks.deliver) return;
    this.db.onCommit(() => this.wake());
    this.timer = setInterval(() => this.wake(), this.config.webhooks.pollMs);
    this.timer.unref();
    this.wake();
  }

  /**
   * Stops taking work and gives the round in flight a few seconds to finish; one still stuck (on a
   * database that does not answer) is left behind: its lease runs out and another replica
   * continues, so nothing is lost, and shutdown is not held up.
   */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.running) await Promise.race([this.running, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  }

  /** Runs a round now, or right after the one running. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.round()
      .catch((e: Error) => this.logger.warn(`delivery round failed, tried again shortly: ${e.message}`))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** One round: claims the due webhooks and works through each one's queue (concurrently across webhooks). */
  async round(): Promise<void> {
    const leaseMs = this.leaseMs;
    for (;;) {
      const claimed = await claimDue(this.db, this.owner, leaseMs, 20, !this.db.isSqlite);
      if (claimed.length === 0 || this.stopped) return;
      await Promise.all(claimed.map((w) => this.drain(w)));
    }
  }

  /** How long a claim holds without progress: a few sends' time; every event handled renews it. */
  private get leaseMs(): number {
    return this.config.webhooks.timeoutMs * 3 + 30_000;
  }

  private async drain(w: ClaimedWebhook): Promise<void> {
    const ctx = RequestContext.system(w.siteId);
    const subscribed = parseTypes(w.eventTypes);
    let cursor = w.cursorSeq;
    try {
      for (;;) {
        const rows = await changesAfter(this.db, ctx, null, cursor, BATCH);
        if (rows.length === 0 || this.stopped) break;
        let skipped = false;
        for (const row of rows) {
          const type = eventType(row.kind, row.action, JSON.parse(row.changes) as { Field: string }[]);
          if (subscribes(subscribed, type, plainType(row.kind, row.action))) {
            if (skipped && !(await advance(this.db, w.id, this.owner, cursor, this.leaseMs))) return;
            skipped = false;
            const message = await this.events.message(row);
            const result = await this.events.deliver(w, message, w.attempts + 1);
            if (!result.ok) {
              await this.failed(w, result.error ?? 'failed');
              return;
            }
            w.attempts = 0;
            w.failingSince = null;
            cursor = Number(row.seq);
            // Lost the lease (it ran out): another replica has the webhook now; stop here.
            if (!(await advance(this.db, w.id, this.owner, cursor, this.leaseMs))) return;
          } else {
            // Not subscribed: passed over, the cursor written once for the run of them.
            cursor = Number(row.seq);
            skipped = true;
          }
        }
        if (skipped && !(await advance(this.db, w.id, this.owner, cursor, this.leaseMs))) return;
      }
      await release(this.db, w.id, this.owner);
    } catch (e) {
      this.logger.warn(`webhook ${w.id}: ${(e as Error).message}`);
      await release(this.db, w.id, this.owner).catch(() => undefined);
    }
  }

  private async failed(w: ClaimedWebhook, error: string): Promise<void> {
    const cfg = this.config.webhooks;
    const now = new Date();
    const since = w.failingSince ?? now;
    const attempts = w.attempts + 1;
    if (now.getTime() - since.getTime() >= cfg.retryWindowMs) {
      const reason = `Disabled at ${now.toISOString()}: deliveries failed since ${since.toISOString()} (${attempts} attempts); last error: ${error}`;
      await disable(this.db, w.id, reason);
      this.logger.warn(`webhook ${w.id} disabled: ${reason}`);
      return;
    }
    await backOff(this.db, w.id, this.owner, attempts, since, new Date(now.getTime() + backoffMs(attempts, cfg.retryBaseMs, cfg.retryMaxMs)));
  }
}
