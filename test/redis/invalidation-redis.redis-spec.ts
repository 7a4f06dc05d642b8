import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { InvalidationBus, RedisInvalidationTransport } from '../../src/common/invalidation/invalidation-bus.js';
import { JsonLogger } from '../../src/common/logging/json-logger.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The InvalidationBus over a real Redis (docs/scaling.md, "Cross-replica freshness"): what one
 * process publishes reaches the others' handlers, not its own twice, within milliseconds; a
 * subscription that drops and comes back invalidates everything (messages may have been missed).
 * Needs Redis (TEST_REDIS_URL, default 127.0.0.1:6379): `npm run test:redis`.
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('InvalidationBus through Redis pub/sub', () => {
  const prefix = `pms-test-${randomBytes(4).toString('hex')}:`;
  const logger = new JsonLogger('silent');
  const buses: InvalidationBus[] = [];
  const bus = async () => {
    const b = await new InvalidationBus(new RedisInvalidationTransport(REDIS_URL, prefix, logger)).start();
    buses.push(b);
    return b;
  };
  afterAll(() => Promise.all(buses.map((b) => b.close())));

  it('delivers a publish to every other process within 100 ms, once, and to the publisher once', async () => {
    const [a, b, c] = [await bus(), await bus(), await bus()];
    const seen: Record<string, { key: string | undefined; at: number }[]> = { a: [], b: [], c: [] };
    a.on('callers', (key) => seen.a.push({ key, at: Date.now() }));
    b.on('callers', (key) => seen.b.push({ key, at: Date.now() }));
    c.on('callers', (key) => seen.c.push({ key, at: Date.now() }));
    const sent = Date.now();
    a.publish('callers', 'site-1');
    a.publish('callers', 'site-1');
    const deadline = Date.now() + 2000;
    while ((seen.b.length < 1 || seen.c.length < 1) && Date.now() < deadline) await sleep(2);
    await sleep(50);
    expect(seen.a.map((s) => s.key)).toEqual(['site-1', 'site-1']);
    expect(seen.b.map((s) => s.key)).toEqual(['site-1']);
    expect(seen.c.map((s) => s.key)).toEqual(['site-1']);
    expect(Math.max(seen.b[0].at, seen.c[0].at) - sent).toBeLessThan(100);
  });

  it('invalidates every topic when its subscription comes back after Redis dropped it', async () => {
    const sut = await bus();
    const seen: string[] = [];
    sut.on('list-totals', (key) => seen.push(`totals:${key}`));
    // Redis closes the subscriber's connection (as a Redis restart would); the client reconnects.
    const admin = createClient({ url: REDIS_URL });
    await admin.connect();
    const clients = (await admin.sendCommand(['CLIENT', 'LIST', 'TYPE', 'pubsub'])) as string;
    // Only this test's subscribers (named after its prefix): the shared Redis serves others too.
    const ours = clients.split('\n').filter((l) => l.includes(` name=${prefix}invalidate-sub `));
    expect(ours.length).toBeGreaterThan(0);
    for (const line of ours) {
      const id = /\bid=(\d+)/.exec(line)?.[1];
      if (id) await admin.sendCommand(['CLIENT', 'KILL', 'ID', id]);
    }
    await admin.close();
    const deadline = Date.now() + 5000;
    while (!seen.includes('totals:undefined') && Date.now() < deadline) await sleep(20);
    expect(seen).toContain('totals:undefined');
  });
});
