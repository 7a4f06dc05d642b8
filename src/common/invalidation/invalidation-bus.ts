import { randomUUID } from 'node:crypto';
import type { JsonLogger } from '../logging/json-logger.js';
import { redisClient, type RedisClient } from '../redis/redis-client.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What a handler is told: the key that changed (e.g. a site id), or `undefined` for "anything of
 * this topic may have changed" (sent by a publisher without a key, and after this process may
 * have missed messages: docs/scaling.md, "Cross-replica freshness").
 */
export type InvalidationHandler = (key: string | undefined) => void;

/** How invalidations leave this process and arrive from the others. */
export interface InvalidationTransport {
  /** Sends a batch of `topic`/`key` pairs to every other process. Never throws. */
  send(batch: readonly WireInvalidation[]): void;
  /** Called with every batch another process sent; `resync` when messages may have been missed. */
  start(receive: (batch: readonly WireInvalidation[]) => void, resync: () => void): Promise<void>;
  close(): Promise<void>;
}

export interface WireInvalidation {
  t: string;
  k?: string;
}

/**
 * Tells every replica that cached data is stale (docs/scaling.md, "Cross-replica freshness").
 * `publish(topic, key)` runs this process's handlers of the topic at once (synchronously) and
 * sends the invalidation to every other replica, whose handlers run when it arrives (a millisecond
 * or two through Redis pub/sub). Without a transport (no REDIS_URL) only this process is told, and
 * other replicas rely on their caches' own time bounds (CALLER_CACHE_MS, LIST_TOTAL_CACHE_MS).
 *
 * Publish after the change is committed: a replica told earlier may read the old row again and
 * keep it. Publishes of one event-loop turn go out as one message.
 */
export class InvalidationBus {
  private readonly handlers = new Map<string, Set<InvalidationHandler>>();
  private outgoing: Map<string, WireInvalidation> | null = null;
  /** Counts, for the metrics and tests. */
  published = 0;
  received = 0;

  constructor(private readonly transport: InvalidationTransport | null = null) {}

  /** True when invalidations reach other processes (REDIS_URL set). */
  get shared(): boolean {
    return this.transport !== null;
  }

  /** Connects the transport (a no-op without one); resolves once messages can arrive. */
  async start(): Promise<this> {
    await this.transport?.start(
      (batch) => this.receive(batch),
      () => this.resync(),
    );
    return this;
  }

  /** Calls `handler` for every invalidation of `topic`, from this process or another; answers an unsubscribe. */
  on(topic: string, handler: InvalidationHandler): () => void {
    let set = this.handlers.get(topic);
    if (!set) this.handlers.set(topic, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Invalidates `topic` (one `key` of it, or all of it) here now and on every other replica soon. */
  publish(topic: string, key?: string): void {
    this.deliver(topic, key);
    if (!this.transport) return;
    this.published++;
    if (!this.outgoing) {
      this.outgoing = new Map();
      // One message per event-loop turn: a transaction's many writes invalidate once.
      setImmediate(() => this.flush());
    }
    this.outgoing.set(`${topic}\u0000${key ?? ''}`, key === undefined ? { t: topic } : { t: topic, k: key });
  }

  /** Nest's shutdown hook: what is pending goes out, then the connections close. */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  async close(): Promise<void> {
    this.flush();
    await this.transport?.close();
  }

  private flush(): void {
    const batch = this.outgoing;
    this.outgoing = null;
    if (batch?.size) this.transport?.send([...batch.values()]);
  }

  private receive(batch: readonly WireInvalidation[]): void {
    for (const m of batch) {
      if (typeof m?.t !== 'string') continue;
      this.received++;
      this.deliver(m.t, typeof m.k === 'string' ? m.k : undefined);
    }
  }

  /** Messages may have been lost (the subscription dropped): everything cached is stale. */
  private resync(): void {
    for (const topic of this.handlers.keys()) this.deliver(topic, undefined);
  }

  private deliver(topic: string, key: string | undefined): void {
    for (const handler of this.handlers.get(topic) ?? []) handler(key);
  }
}

/**
 * Redis pub/sub as the transport: one channel (`<REDIS_PREFIX>invalidate`), a JSON message per
 * batch that names its sender, so a process ignores its own. Redis pub/sub delivers at most once:
 * while the subscription is down messages are lost, so when it comes back every topic is
 * invalidated (`resync`); until then the caches' own time bounds apply. Publishing while Redis is
 * away drops the message with a warning (the bounds again), never failing the write that made it.
 */
export class RedisInvalidationTransport implements InvalidationTransport {
  private publisher: RedisClient | undefined;
  private subscriber: RedisClient | undefined;
  private readonly channel: string;
  private readonly origin = randomUUID();
  private wasReady = false;

  constructor(
    private readonly url: string,
    private readonly prefix: string,
    private readonly logger: JsonLogger,
  ) {
    this.channel = `${prefix}invalidate`;
  }

  async start(receive: (batch: readonly WireInvalidation[]) => void, resync: () => void): Promise<void> {
    const socket = { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000) };
    // Named (CLIENT LIST shows who is subscribed): `<prefix>invalidate-pub` / `-sub`.
    const publisher = await redisClient({ url: this.url, disableOfflineQueue: true, socket, name: `${this.prefix}invalidate-pub` });
    const subscriber = await redisClient({ url: this.url, socket, name: `${this.prefix}invalidate-sub` });
    [this.publisher, this.subscriber] = [publisher, subscriber];
    for (const client of [publisher, subscriber]) {
      client.on('error', (err: Error) => this.logger.event('warn', 'Invalidation', { msg: `Redis error: ${err.message}` }));
    }
    subscriber.on('ready', () => {
      // Every ready after the first is a reconnection: what was published meanwhile is lost.
      if (this.wasReady) {
        this.logger.event('warn', 'Invalidation', { msg: 'Redis subscription restored; dropping every cached caller and total' });
        resync();
      }
      this.wasReady = true;
    });
    const connecting = Promise.all([
      publisher.connect(),
      subscriber.connect().then(() =>
        subscriber.subscribe(this.channel, (raw: string) => {
          let message: { o?: unknown; b?: unknown };
          try {
            message = JSON.parse(raw) as { o?: unknown; b?: unknown };
          } catch {
            return;
          }
          if (message.o === this.origin || !Array.isArray(message.b)) return;
          receive(message.b as WireInvalidation[]);
        }),
      ),
    ]).catch(() => undefined);
    await Promise.race([connecting, sleep(2000, undefined, { ref: false })]);
    if (!subscriber.isReady) {
      this.logger.event('warn', 'Invalidation', {
        msg: 'Redis is not reachable at start-up; caches of other replicas are invalidated by their time bounds until it is',
      });
    }
  }

  send(batch: readonly WireInvalidation[]): void {
    const publisher = this.publisher;
    if (!publisher?.isReady) {
      this.logger.event('warn', 'Invalidation', { msg: 'Redis is not reachable; an invalidation reaches other replicas by their time bounds only' });
      return;
    }
    publisher.publish(this.channel, JSON.stringify({ o: this.origin, b: batch })).catch((e: Error) => {
      this.logger.event('warn', 'Invalidation', { msg: `publishing an invalidation failed: ${e.message}` });
    });
  }

  async close(): Promise<void> {
    for (const client of [this.subscriber, this.publisher]) {
      if (!client) continue;
      if (client.isOpen) await client.close().catch(() => client.destroy());
      else client.destroy();
    }
  }
}
