import { Logger } from '@nestjs/common';

/**
 * A background sweep that runs every `everyMs` on each replica (retention of the audit trail, of
 * webhook deliveries): never two rounds at once, a failed round logged and tried again at the
 * next tick, the timer unref'd so it keeps no process alive, and `stop` waiting for a round under
 * way before the database closes. `round` answers what to log (null: nothing happened).
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly what: string,
    private readonly everyMs: number,
    private readonly round: () => Promise<string | null>,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One round now (what the timer runs); a round under way is joined, not doubled. */
  tick(): Promise<void> {
    this.running ??= this.round()
      .then(
        (said) => {
          if (said) this.logger.log(said);
        },
        (e: unknown) => this.logger.warn(`${this.what} failed, tried again in ${Math.round(this.everyMs / 1000)} s: ${(e as Error).message}`),
      )
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }
}
