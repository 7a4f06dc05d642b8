import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { PeriodicTask } from '../../common/tasks/periodic-task.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { pruneDeliveries } from './outbox.statements.js';
import { TenantDb } from '../../database/tenant-db.js';

const BATCH = 1000;

/**
 * The delivery log's retention (docs/events.md, "Delivery log"): every AUDIT_PRUNE_SECONDS, the
 * attempts logged more than WEBHOOK_DELIVERY_RETENTION_DAYS ago are deleted, a thousand per short
 * statement, so a failing endpoint's retries cannot grow the table without end. Each replica
 * sweeps; deleting twice is harmless.
 */
@Injectable()
export class DeliveryRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly task: PeriodicTask;

  constructor(
    private readonly db: TenantDb,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.task = new PeriodicTask(new Logger('DeliveryRetention'), 'webhook delivery retention sweep', config.auditPruneSeconds * 1000, async () => {
      const n = await this.prune();
      return n ? `pruned ${n} webhook delivery attempts older than ${this.config.webhooks.deliveryRetentionDays} days` : null;
    });
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  /** One sweep; answers the number of attempts deleted. */
  async prune(now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - this.config.webhooks.deliveryRetentionDays * 24 * 3600_000);
    let total = 0;
    for (;;) {
      const n = await pruneDeliveries(this.db, cutoff, BATCH);
      total += n;
      if (n < BATCH) return total;
    }
  }
}
