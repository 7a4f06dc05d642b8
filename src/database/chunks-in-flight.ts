/**
 * Two chunks at once (docs/bulk.md, "Two chunks at once"), for a bulk request's chunks and a file
 * import's: the chunk in flight, whose writes and commit are under way, and the next, running its
 * items beside it on a connection of its own. What decides whether a chunk may run beside the one
 * before (chunk-keys.ts) and what a chunk is, is the caller's; this holds the order they land in:
 * each chunk's result, once it committed, is told in the order the chunks started (the order of
 * the commits themselves is the database's: an import's job row keeps it, a request's does not
 * need it), and nothing is left running when the caller ends.
 */

/** A chunk's transaction under way: `ready` once its items have run and its writes and commit are under way; `done` once it committed. */
export interface ChunkInFlight<T> {
  ready: Promise<void>;
  done: Promise<T>;
}

/**
 * A chunk's transaction, started: `run` writes it and calls `ready` once its items have run. A
 * chunk that fails before it is ready is not ready: whoever waits for `ready` hears why.
 */
export function startChunk<T>(run: (ready: () => void) => Promise<T>): ChunkInFlight<T> {
  let told!: () => void;
  const readied = new Promise<void>((resolve) => (told = resolve));
  const done = run(() => told());
  const ready = Promise.race([readied, done.then(() => undefined)]);
  // Whoever waits for them later, neither is an unhandled rejection meanwhile.
  ready.catch(() => undefined);
  done.catch(() => undefined);
  return { ready, done };
}

/** At most one chunk in flight while the next runs its items; each lands, in turn, with `landed`. */
export class ChunksInFlight<W extends ChunkInFlight<T>, T> {
  private current: W | null = null;

  /** `landed`: told each chunk's result once it committed, in the order they started. */
  constructor(private readonly landed: (result: T) => void) {}

  /** The chunk whose writes and commit are under way, if any. */
  get inFlight(): W | null {
    return this.current;
  }

  /** The chunk in flight committed (its result told to `landed`); throws what it failed with. */
  async land(): Promise<void> {
    const w = this.current;
    if (!w) return;
    this.current = null;
    this.landed(await w.done);
  }

  /**
   * `w`, started while the chunk in flight commits: that one lands, then `w` is in flight once it
   * is ready. False, with nothing in flight, when `w` failed before it was ready (to be written
   * again alone); throws what the one before failed with, once `w` has ended.
   */
  async beside(w: W): Promise<boolean> {
    try {
      await this.land();
    } catch (e) {
      await w.done.catch(() => undefined);
      throw e;
    }
    this.current = w;
    const ready = await w.ready.then(
      () => true,
      () => false,
    );
    if (!ready) this.current = null;
    return ready;
  }

  /** A chunk started (`start`) once the one in flight landed, in flight once ready; throws what either failed with. */
  async alone(start: () => W | Promise<W>): Promise<void> {
    await this.land();
    this.current = await start();
    await this.current.ready;
  }

  /** Whatever is in flight has ended, however it ended (what a batch or a job waits for before it answers a failure). */
  async settled(): Promise<void> {
    await this.current?.done.catch(() => undefined);
  }
}
