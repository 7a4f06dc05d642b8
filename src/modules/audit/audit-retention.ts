import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { SiteEntity } from '../../database/entities/site.entity.js';
import { pruneBatch } from '../../database/queries/audit.js';
import { TenantDb } from '../../database/tenant-db.js';
import { PeriodicTask } from '../../common/tasks/periodic-task.js';

const BATCH = 1000;

/**
 * The retention sweep (docs/audit.md, "Retention"): every AUDIT_PRUNE_SECONDS, each site's entries
 * older than AUDIT_RETENTION_DAYS are deleted oldest first, a thousand per short statement outside
 * any write transaction, so writes never wait on it; events a webhook has not been handed yet
 * are kept. Each replica sweeps; deleting twice is harmless.
 */
@Injectable()
export class AuditRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly task: PeriodicTask;

  constructor(
    private readonly db: TenantDb,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.task = new PeriodicTask(new Logger('AuditRetention'), 'audit retention sweep', config.auditPruneSeconds * 1000, async () => {
      const n = await this.prune();
      return n ? `pruned ${n} audit entries older than ${this.config.auditRetentionDays} days` : null;
    });
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  /** One sweep over every site; answers the number of entries deleted. */
  async prune(now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - this.config.auditRetentionDays * 24 * 3600_000);
    const sites = await this.db.global(null, SiteEntity).find({ select: { id: true } });
    let total = 0;
    for (const site of sites) {
      const ctx = RequestContext.system(site.id);
      for (;;) {
        const n = await pruneBatch(this.db, ctx, cutoff, BATCH);
        total += n;
        if (n < BATCH) break;
      }
    }
    return total;
  }
}
