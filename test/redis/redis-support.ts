import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';

/** The Redis of the Redis suites: TEST_REDIS_URL, default 127.0.0.1:6379. */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix of a test file's own (REDIS_PREFIX of its apps), so runs never share keys. */
export const freshPrefix = (): string => `pms-test-${randomBytes(4).toString('hex')}:`;

const connect = (url = REDIS_URL) => createClient({ url });

/** Runs `fn` with a client of its own, closed after. */
export function withRedis<T>(fn: (client: ReturnType<typeof connect>) => Promise<T>): Promise<T> {
  return withRedisAt(REDIS_URL, fn);
}

/** `withRedis` against another Redis (a test's own redis-server). */
export async function withRedisAt<T>(url: string, fn: (client: ReturnType<typeof connect>) => Promise<T>): Promise<T> {
  const client = connect(url);
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/** Deletes every key under a test file's prefix. */
export function dropPrefix(prefix: string): Promise<void> {
  return withRedis(async (client) => {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length) await client.del(keys);
  });
}
