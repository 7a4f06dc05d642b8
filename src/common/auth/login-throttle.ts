import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { TooManyRequestsError } from '../errors/errors.js';
import { COUNTER_STORE, type Counter, type CounterStore } from './counter-store.js';

/**
 * Throttles repeated failed logins (docs/identity-and-tenancy.md): from the 10th failure for one user name within
 * 15 minutes the answer is 429 with Retry-After, whatever the password; per client address a
 * wider limit (100) stops one source from spraying many user names. Counters live in the
 * CounterStore: memory per instance, or Redis shared by all instances when REDIS_URL is set.
 */
export const USER_FAILURE_LIMIT = 10;
export const IP_FAILURE_LIMIT = 100;
export const WINDOW_MS = 15 * 60 * 1000;

const userKey = (userName: string) => `login:u:${userName.toLowerCase()}`;
const ipKey = (ip: string) => `login:a:${ip}`;

@Injectable()
export class LoginThrottle implements OnApplicationShutdown {
  constructor(@Inject(COUNTER_STORE) private readonly store: CounterStore) {}

  private refuse(c: Counter): never {
    throw new TooManyRequestsError('Too many failed logins; wait before trying again', c.ttlMs / 1000);
  }

  /** Throws 429 when the user name or the address is locked out. */
  async assertAllowed(userName: string, ip: string): Promise<void> {
    const [u, a] = await Promise.all([this.store.peek(userKey(userName)), this.store.peek(ipKey(ip))]);
    if (u && u.count >= USER_FAILURE_LIMIT) this.refuse(u);
    if (a && a.count >= IP_FAILURE_LIMIT) this.refuse(a);
  }

  /** Counts a failure; throws 429 when this failure reaches a limit. */
  async recordFailure(userName: string, ip: string): Promise<void> {
    const [u, a] = await Promise.all([this.store.hit(userKey(userName), WINDOW_MS), this.store.hit(ipKey(ip), WINDOW_MS)]);
    if (u.count >= USER_FAILURE_LIMIT) this.refuse(u);
    if (a.count >= IP_FAILURE_LIMIT) this.refuse(a);
  }

  async recordSuccess(userName: string): Promise<void> {
    await this.store.reset(userKey(userName));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
