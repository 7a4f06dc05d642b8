import { createHash } from 'node:crypto';
import type { JsonLogger } from '../common/logging/json-logger.js';
import { redisClient, type RedisClient } from '../common/redis/redis-client.js';
import { setTimeout as sleep } from 'node:timers/promises';

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
  /**
   * Adds `amount` (1) to each key's counter, starting a window of windowMs for a key that has none;
   * answers the counters in the keys' order (one round trip to Redis).
   */
  hitAll(keys: readonly string[], windowMs: number, amount?: number): Promise<Counter[]>;
  /** One key's, at once, for a store in this process (no promise per request); absent for a remote store. */
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

  async hitAll(keys: readonly string[], windowMs: number, amount = 1): Promise<Counter[]> {
    return keys.map((key) => this.hitNow(key, windowMs, amount));
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

// Each key: INCRBY and set the window on its first hit, atomically; answer its count and the time
// left, two numbers a key in the keys' order. Sent by its SHA1 (EVALSHA), the text only when the
// server does not know it yet (NOSCRIPT: a new or restarted Redis).
const HIT_ALL = `local out = {}
for i, key in ipairs(KEYS) do
  local c = redis.call('INCRBY', key, ARGV[2])
  local t = redis.call('PTTL', key)
  if t < 0 then
    redis.call('PEXPIRE', key, ARGV[1])
    t = tonumber(ARGV[1])
  end
  out[2 * i - 1] = c
  out[2 * i] = t
end
return out`;
const HIT_ALL_SHA1 = createHash('sha1').update(HIT_ALL).digest('hex');

/** How long a counter call waits for Redis before it counts nothing (fails open). */
export const REDIS_COUNTER_TIMEOUT_MS = 1000;
/** How often the calls waiting on Redis are checked against that bound. */
const SWEEP_MS = 100;
/** Commands the client holds for Redis at most: past it a call fails open at once (Redis stalled under load). */
const MAX_QUEUED_COMMANDS = 10_000;

/**
 * Redis-backed counters. If Redis cannot be reached the store fails open (counts nothing, logs a
 * warning): logins keep working while throttling is degraded, instead of every login failing.
 * A Redis that stops answering (stalled, paused, its network cut) fails a call open after
 * REDIS_COUNTER_TIMEOUT_MS (1 s, checked every 100 ms). That bound is kept by one timer for every
 * call waiting, not by node-redis's command timeout: that one is an `AbortSignal.timeout` a
 * command, about 20 µs of CPU on every request (docs/limits.md, "Cost").
 */
export class RedisCounterStore implements CounterStore {
  /** Calls waiting on Redis, each with when it gives up. */
  private readonly waiting = new Set<{ giveUpAt: number; fail: (e: Error) => void }>();
  private readonly sweeper: NodeJS.Timeout;

  private constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
    private readonly logger: JsonLogger,
  ) {
    this.client.on('error', (err: Error) => this.logger.event('warn', 'Redis', { msg: `Redis error: ${err.message}` }));
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS).unref();
  }

  /**
   * Connects once at start-up (waiting at most 2 s). If Redis is not there yet the client keeps
   * reconnecting in the background and, meanwhile, every call fails open at once.
   */
  static async connect(url: string, prefix: string, logger: JsonLogger): Promise<RedisCounterStore> {
    const client = await redisClient({
      url,
      disableOfflineQueue: true,
      commandsQueueMaxLength: MAX_QUEUED_COMMANDS,
      // No timer a command: the store bounds its calls itself (above).
      commandOptions: { timeout: 0 },
      socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5000) },
    });
    const store = new RedisCounterStore(client, prefix, logger);
    const connecting = client.connect().catch(() => undefined);
    await Promise.race([connecting, sleep(2000, undefined, { ref: false })]);
    if (!client.isReady) logger.event('warn', 'Redis', { msg: 'Redis is not reachable at start-up; login throttling counts nothing until it is' });
    return store;
  }

  private async run<T>(fn: () => Promise<T>, fallback: T): Promise<T> {
    try {
      if (!this.client.isReady) throw new Error('not connected');
      return await this.bounded(fn());
    } catch (e) {
      this.warnUncounted((e as Error).message);
      return fallback;
    }
  }

  private lastWarning = 0;
  private unwarned = 0;

  /** Logs a call that counted nothing: the first at once, then one every 10 s with how many it stands for. */
  private warnUncounted(reason: string): void {
    const now = Date.now();
    if (now - this.lastWarning < 10_000) {
      this.unwarned++;
      return;
    }
    const more = this.unwarned ? ` (and ${this.unwarned} calls more since the last warning)` : '';
    this.lastWarning = now;
    this.unwarned = 0;
    this.logger.event('warn', 'Redis', { msg: `rate-limit store unavailable, not counting: ${reason}${more}` });
  }

  /** `answer`, or a failure once it has waited REDIS_COUNTER_TIMEOUT_MS (its late answer is dropped). */
  private bounded<T>(answer: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry = { giveUpAt: Date.now() + REDIS_COUNTER_TIMEOUT_MS, fail: reject };
      this.waiting.add(entry);
      answer.then(
        (v) => {
          this.waiting.delete(entry);
          resolve(v);
        },
        (e: unknown) => {
          this.waiting.delete(entry);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  }

  private sweep(): void {
    if (this.waiting.size === 0) return;
    const now = Date.now();
    for (const w of this.waiting) {
      if (w.giveUpAt > now) continue;
      this.waiting.delete(w);
      w.fail(new Error(`Redis did not answer within ${REDIS_COUNTER_TIMEOUT_MS} ms`));
    }
  }

  hitAll(keys: readonly string[], windowMs: number, amount = 1): Promise<Counter[]> {
    return this.run(
      async () => {
        const options = { keys: keys.map((k) => this.prefix + k), arguments: [String(windowMs), String(amount)] };
        let reply: unknown;
        try {
          reply = await this.client.evalSha(HIT_ALL_SHA1, options);
        } catch (e) {
          if (!(e as Error | undefined)?.message?.startsWith('NOSCRIPT')) throw e;
          reply = await this.client.eval(HIT_ALL, options);
        }
        const r = reply as number[];
        return keys.map((_, i) => ({ count: Number(r[2 * i]), ttlMs: Number(r[2 * i + 1]) > 0 ? Number(r[2 * i + 1]) : windowMs }));
      },
      keys.map(() => ({ count: 0, ttlMs: windowMs })),
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
    clearInterval(this.sweeper);
    if (this.client.isOpen) await this.client.close();
    else this.client.destroy();
  }
}
