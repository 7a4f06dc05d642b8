import { setImmediate as nextTurn, setTimeout as pause } from 'node:timers/promises';

/**
 * Turns of the event loop for long work that awaits little (docs/imports.md, "Sharing the
 * replica"): a bulk chunk whose writes are held and read ahead runs its items one after another
 * without a round trip, as one unbroken stretch of JavaScript, while requests wait for their
 * sockets to be read. `take()` answers at once until `sliceMs` have passed since the last turn,
 * then waits for the next turn of the event loop, where whatever is waiting (requests, their
 * database answers) runs first. The work stays where it was (its transaction open, its locks
 * held) and goes on.
 */
export class Turns {
  private last: number;

  /** `now` is the clock in milliseconds (a test's own clock; else `performance.now`). */
  constructor(
    private readonly sliceMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.last = now();
  }

  /** Resolves at once within the slice; after it, on the event loop's next turn. */
  async take(): Promise<void> {
    if (this.now() - this.last < this.sliceMs) return;
    await nextTurn();
    this.last = this.now();
  }
}

/**
 * Between two pieces of background work (an import's chunks, docs/imports.md "Sharing the
 * replica"): when requests are waiting (`busy`), waits as long as the last piece took (`workedMs`,
 * at most `maxMs`), so the background work has at most about half of the process while the API is
 * busy; else only lets the event loop take a turn. Answers how long it waited.
 */
export async function giveWay(busy: boolean, workedMs: number, maxMs: number): Promise<number> {
  if (!busy) {
    await nextTurn();
    return 0;
  }
  const ms = Math.max(0, Math.min(workedMs, maxMs));
  await pause(ms);
  return ms;
}
