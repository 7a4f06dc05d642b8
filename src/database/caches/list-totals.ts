import { InvalidationBus } from '../../common/invalidation/invalidation-bus.js';
import type { Cache } from './cache.js';

/** The InvalidationBus topic of list totals; the key is the site id. */
export const LIST_TOTALS_TOPIC = 'list-totals';

/**
 * The totals of lists (`X-Total-Count`), each reused for a short time (docs/performance.md, "List
 * totals"). Counting a site's individuals reads every entry of an index: on 10,000 individuals it
 * cost a page of 500 a third of its database time. A total counted less than `ttlMs()` ago is
 * answered again, unless this process committed a write in that site since the count began: every
 * transaction of TenantDb moves its site's generation on commit (`written`), and a total counted
 * in an older generation is counted again. So a client sees the totals of its own writes at once.
 * The generation moves through the InvalidationBus: with REDIS_URL set, writes made through
 * another replica reach this one's totals within milliseconds (docs/scaling.md); without it, and
 * for writes made straight in SQL, they show within `ttlMs()` (0 counts every time).
 *
 * Bounded: at most MAX_TOTALS totals and MAX_SITES site generations; the oldest leave first.
 */
export class ListTotals implements Cache {
  readonly name = 'list-totals';
  private readonly totals = new Map<string, Kept>();
  private readonly generations = new Map<string, number>();
  private nextGeneration = 1;
  /** The newest generation forgotten (MAX_SITES): what a site without one of its own is at. */
  private floor = 0;
  hits = 0;
  misses = 0;

  constructor(
    private readonly ttlMs: () => number,
    private readonly now: () => number = Date.now,
    private readonly bus: InvalidationBus = new InvalidationBus(),
  ) {
    bus.on(LIST_TOTALS_TOPIC, (siteId) => (siteId === undefined ? this.forgetAll() : this.moveOn(siteId)));
  }

  /** A transaction of `siteId` committed: its totals counted before now are not reused, here or on any replica. */
  written(siteId: string): void {
    this.bus.publish(LIST_TOTALS_TOPIC, siteId);
  }

  /** Every total counted before now is stale (invalidations may have been missed). */
  private forgetAll(): void {
    this.totals.clear();
  }

  /** Totals (and site values) kept now. */
  entries(): number {
    return this.totals.size;
  }

  clear(): void {
    this.forgetAll();
  }

  private moveOn(siteId: string): void {
    this.generations.delete(siteId);
    this.generations.set(siteId, this.nextGeneration++);
    if (this.generations.size > MAX_SITES) {
      const [oldest, generation] = this.generations.entries().next().value as [string, number];
      this.generations.delete(oldest);
      this.floor = Math.max(this.floor, generation);
    }
  }

  /**
   * The total named `key` (which must say everything the count depends on: list, filters) of the
   * site: reused when fresh, else `count()`ed and kept. Any other small value read from the site's
   * rows is kept the same way (the site's periods: TenantDb.siteValue), under a key of its own;
   * a value kept is shared by every caller, who must not change it.
   */
  async of<V>(siteId: string, key: string, count: () => Promise<V>): Promise<V> {
    const ttl = this.ttlMs();
    if (ttl <= 0) return count();
    const full = siteId + '\u0000' + key;
    // A site without a generation of its own (never written here, or forgotten) is at the floor,
    // which is at least its forgotten generation: a total counted before its last write never
    // matches it, one counted after may.
    const generation = this.generations.get(siteId) ?? this.floor;
    const at = this.now();
    const kept = this.totals.get(full);
    if (kept !== undefined && kept.generation === generation) {
      // A count under way in the same generation is waited for, not run again: the requests that
      // find a total expired at the same moment (every connection of a busy client) count once.
      if (kept.counting) {
        this.hits++;
        return kept.counting as Promise<V>;
      }
      if (at - kept.at < ttl) {
        this.hits++;
        return kept.n as V;
      }
    }
    this.misses++;
    // Kept with the generation and time from before the count: a write committed while it runs
    // makes it stale at once (the requests after that write count again).
    const counting = count();
    const entry: Kept = { n: undefined, at, generation, counting };
    this.totals.delete(full);
    this.totals.set(full, entry);
    if (this.totals.size > MAX_TOTALS) this.totals.delete(this.totals.keys().next().value as string);
    try {
      const n = await counting;
      entry.n = n;
      entry.counting = undefined;
      return n;
    } catch (e) {
      if (this.totals.get(full) === entry) this.totals.delete(full);
      throw e;
    }
  }
}

/** A total (or kept value) of a site, counted at `at` in the site's `generation`; `counting` while it is counted. */
interface Kept {
  n: unknown;
  at: number;
  generation: number;
  counting?: Promise<unknown>;
}

const MAX_TOTALS = 10_000;
const MAX_SITES = 10_000;
