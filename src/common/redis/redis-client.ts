import type { createClient, RedisClientOptions } from 'redis';

/** A node-redis client as `createClient` makes it. */
export type RedisClient = ReturnType<typeof createClient>;

/**
 * Makes a node-redis client, loading the package on first use: a process without REDIS_URL
 * (the embedded default, and every test file that does not ask for Redis) never loads its
 * ~60 modules. Connecting is the caller's.
 */
export async function redisClient(options: RedisClientOptions): Promise<RedisClient> {
  const redis = await import('redis');
  return redis.createClient(options) as unknown as RedisClient;
}
