import type { JsonLogger } from '../common/logging/json-logger.js';
import { redisClient, type RedisClient } from '../common/redis/redis-client.js';

/** A fixed-window counter: the window starts at the first hit and lasts windowMs. */
export interface Counter {
  count: number;
  /** Milliseconds until the window ends. */
  ttlMs: number;
}

/**
 * Where rate-limit counters live. In memory by default (each instance counts on its own); in
 * Redis when REDIS_URL is set, so every instance behind a load balancer shares the counts.
 */
export interface CounterStore {
  /** Adds `amount` (1) to the key's counter, starting a window of windowMs when there is none. */
  hit(key: string, windowMs: number, amount?: number): Promise<Counter>;
  /** The same, at once, for a store in this process (no promise per request); absent for a remote store. */
  hitNow?(key: string, windowMs: number, amount?: number): Counter;
  peek(key: string): Promise<Counter | null>;
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

export const COUNTER_STORE = Symbol('COUNTER_STORE');
/** The request budgets' counters (docs/limits.md): the same store as COUNTER_STORE with Redis, a store of their own in memory. */
export const BUDGET_STORE = Symbol('BUDGET_STORE');

export class MemoryCounterStore implements CounterStore {
  private readonly counters = new Map<string, { count: number; resetAt: number }>();
  /** Injectable clock for tests. */
  now: () => number = () => Date.now();

  private live(key: string) {
    const c = this.counters.get(key);
    if (c && c.resetAt <= this.now()) {
      this.counters.delete(key);
      return undefined;
    }
    return c;
  }

  async hit(key: string, windowMs: number, amount = 1): Promise<Counter> {
    return this.hitNow(key, windowMs, amount);
  }

  hitNow(key: string, windowMs: number, amount = 1): Counter {
    const c = this.live(key) ?? { count: 0, resetAt: this.now() + windowMs };
    c.count += amount;
    this.counters.set(key, c);
    // Keep memory bounded under a spray of random user names.
    if (this.counters.size > 100_000) for (const k of [...this.counters.keys()].slice(0, 10_000)) this.counters.delete(k);
    return { count: c.count, ttlMs: c.resetAt - this.now() };
  }

  async peek(key: string): Promise<Counter | null> {
    const c = this.live(key);
    return c ? { count: c.count, ttlMs: c.resetAt - this.now() } : null;
  }

  async reset(key: string): Promise<void> {
    this.counters.delete(key);
  }

  async close(): Promise<void> {}
}

// INCRBY and set the window on the first hit, atomically; answer the count and the time left.
const HIT = `local c = redis.call('INCRBY', KEYS[1], ARGV[2])
local t = redis.call('PTTL', KEYS[1])
if t < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  t = tonumber(ARGV[1])
end
return {c, t}`;

/**
 * Redis-backed counters. If Redis cannot be reached the store fails open (counts nothing, logs a
 * warning): logins keep working while throttling is degraded, instead of every login failing.
 */
export class RedisCounterStore implements CounterStore {
  private constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
    private readonly logger: JsonLogger,
  ) {
    this.client.on('error', (err: Error) => this.logger.event('warn', 'Redis', { msg: `Redis error: ${err.message}` }));
  }

  /**
   * Connects once at start-up (waiting at most 2 s). If Redis is not there yet the client keeps
   * reconnecting in the background and, meanwhile, every call fails open at once.
   */
  static async connect(url: string, prefix: string, logger: JsonLogger): Promise<RedisCounterStore> {
    const client = await redisClient({
      url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5000) },
    });
    const store = new RedisCounterStore(client, prefix, logger);
    const connecting = client.connect().catch(() => undefined);
    await Promise.race([connecting, new Promise((r) => setTimeout(r, 2000).unref())]);
    if (!client.isReady) logger.event('warn', 'Redis', { msg: 'Redis is not reachable at start-up; login throttling counts nothing until it is' });
    return store;
  }

  private async run<T>(fn: () => Promise<T>, fallback: T): Promise<T> {
    try {
      if (!this.client.isReady) throw new Error('not connected');
      return await fn();
    } catch (e) {
      this.logger.event('warn', 'Redis', { msg: `rate-limit store unavailable, not counting: ${(e as Error).message}` });
      return fallback;
    }
  }

  hit(key: string, windowMs: number, amount = 1): Promise<Counter> {
    return this.run(
      async () => {
        const [count, ttl] = (await this.client.eval(HIT, { keys: [this.prefix + key], arguments: [String(windowMs), String(amount)] })) as [number, number];
        return { count: Number(count), ttlMs: Number(ttl) > 0 ? Number(ttl) : windowMs };
      },
      { count: 0, ttlMs: windowMs },
    );
  }

  peek(key: string): Promise<Counter | null> {
    return this.run(async () => {
      const [count, ttl] = await Promise.all([this.client.get(this.prefix + key), this.client.pTTL(this.prefix + key)]);
      return count === null ? null : { count: Number(count), ttlMs: Math.max(0, Number(ttl)) };
    }, null);
  }

  async reset(key: string): Promise<void> {
    await this.run(() => this.client.del(this.prefix + key), 0);
  }

  async close(): Promise<void> {
    if (this.client.isOpen) await this.client.close();
    else this.client.destroy();
  }
}
