import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { PeriodicTask } from '../../common/tasks/periodic-task.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { TenantDb } from '../../database/tenant-db.js';
import { type ImportsPruned, pruneImports } from './imports.statements.js';

/** Ended jobs of a site found per statement, and deleted per statement once their rows are gone. */
const JOB_BATCH = 500;

/**
 * The retention of ended imports (docs/imports.md, "Retention"): every AUDIT_PRUNE_SECONDS, the
 * jobs that succeeded, failed or were cancelled more than IMPORT_RETENTION_DAYS ago are deleted
 * with their failed rows (and any waiting rows or file parts left), in short batched statements,
 * so a nightly feed cannot grow the import tables without end. A queued, running or receiving job
 * is never touched. Each replica sweeps, whether or not it processes imports (IMPORTS); deleting
 * twice is harmless.
 */
@Injectable()
export class ImportRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly task: PeriodicTask;

  constructor(
    private readonly db: TenantDb,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.task = new PeriodicTask(new Logger('ImportRetention'), 'import retention sweep', config.auditPruneSeconds * 1000, async () => {
      const n = await this.prune();
      return n.jobs
        ? `pruned ${n.jobs} imports that ended more than ${this.config.imports.retentionDays} days ago, with ${n.errors} failed rows, ${n.waitingRows} waiting rows and ${n.fileParts} file parts`
        : null;
    });
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  /** One sweep; answers what it deleted. */
  prune(now = new Date()): Promise<ImportsPruned> {
    const cutoff = new Date(now.getTime() - this.config.imports.retentionDays * 24 * 3600_000);
    return pruneImports(this.db, cutoff, JOB_BATCH);
  }
}
