/**
 * Runs a piece of background work once for a burst of wakes (docs/dashboards.md, "Summaries"): a
 * commit's wake runs it at once when it has not started within the last `gapMs`, else once at the
 * end of that gap, shared by every commit until then; a wake while it runs asks for one more run
 * right after it. So a burst of writes costs one run, and no commit waits more than `gapMs` plus
 * the run in progress.
 */
export class Coalescer {
  private running: Promise<void> | null = null;
  private again = false;
  private lastRunAt = Number.NEGATIVE_INFINITY;
  private deferred: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly gapMs: number,
    private readonly run: () => Promise<void>,
    private readonly onError: (e: Error) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** A commit's wake: now, or at the end of the gap after the last run's start. */
  afterCommit(): void {
    if (this.stopped || this.deferred) return;
    const wait = this.lastRunAt + this.gapMs - this.now();
    if (wait <= 0) return this.wake();
    this.deferred = setTimeout(() => {
      this.deferred = null;
      this.wake();
    }, wait);
    this.deferred.unref?.();
  }

  /** Runs now, or right after the run in progress. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.lastRunAt = this.now();
    this.running = this.run()
      .catch((e: Error) => this.onError(e))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Resolves when no run is in progress (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Takes no more wakes and waits for the run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.deferred) clearTimeout(this.deferred);
    this.deferred = null;
    await this.idle();
  }
}
