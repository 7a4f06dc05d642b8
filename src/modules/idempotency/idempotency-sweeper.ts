import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { IdempotencyStore } from '../../database/idempotency-store.js';

/**
 * Runs `IdempotencyStore.sweep` every IDEMPOTENCY_SWEEP_SECONDS in the background. Each replica
 * sweeps on its own; deleting expired rows twice is harmless. A failed sweep is logged and tried
 * again at the next tick.
 */
@Injectable()
export class IdempotencySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('IdempotencySweeper');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly store: IdempotencyStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.config.idempotencySweepSeconds * 1000);
    this.timer.unref();
  }

  /** Stops the timer and waits for a sweep in progress, before the database closes. */
  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One sweep now (also what the timer runs); a sweep already running is not doubled. */
  async tick(): Promise<void> {
    if (this.running) return this.running;
    const run = this.sweepOnce().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  private async sweepOnce(): Promise<void> {
    try {
      const deleted = await this.store.sweep();
      if (deleted > 0) this.logger.log(`deleted ${deleted} expired idempotency keys`);
    } catch (e) {
      this.logger.warn(`idempotency key sweep failed: ${(e as Error).message}`);
    }
  }
}
