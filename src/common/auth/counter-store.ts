import { createClient } from 'redis';
import type { JsonLogger } from '../logging/json-logger.js';

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
  hit(key: string, windowMs: number): Promise<Counter>;
  peek(key: string): Promise<Counter | null>;
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

export const COUNTER_STORE = Symbol('COUNTER_STORE');

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

  async hit(key: string, windowMs: number): Promise<Counter> {
    const c = this.live(key) ?? { count: 0, resetAt: this.now() + windowMs };
    c.count += 1;
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

// INCR and set the window on the first hit, atomically; answer the count and the time left.
const HIT = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {c, redis.call('PTTL', KEYS[1])}`;

/**
 * Redis-backed counters. If Redis cannot be reached the store fails open (counts nothing, logs a
 * warning): logins keep working while throttling is degraded, instead of every login failing.
 */
export class RedisCounterStore implements CounterStore {
  private readonly client;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly logger: JsonLogger,
  ) {
    this.client = createClient({
      url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5000) },
    });
    this.client.on('error', (err: Error) => this.logger.event('warn', 'Redis', { msg: `Redis error: ${err.message}` }));
  }

  /**
   * Connects once at start-up (waiting at most 2 s). If Redis is not there yet the client keeps
   * reconnecting in the background and, meanwhile, every call fails open at once.
   */
  async connect(): Promise<this> {
    const connecting = this.client.connect().catch(() => undefined);
    await Promise.race([connecting, new Promise((r) => setTimeout(r, 2000).unref())]);
    if (!this.client.isReady) this.logger.event('warn', 'Redis', { msg: 'Redis is not reachable at start-up; login throttling counts nothing until it is' });
    return this;
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

  hit(key: string, windowMs: number): Promise<Counter> {
    return this.run(
      async () => {
        const [count, ttl] = (await this.client.eval(HIT, { keys: [this.prefix + key], arguments: [String(windowMs)] })) as [number, number];
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
