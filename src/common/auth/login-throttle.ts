import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { TooManyRequestsError } from '../errors/errors.js';
import { COUNTER_STORE, type Counter, type CounterStore } from './counter-store.js';

/**
 * Throttles repeated failed logins (docs/identity-and-tenancy.md): from the 10th failure within
 * 15 minutes for one user name — its key (user-name.ts), so `ADMIN` and full-width `ａｄｍｉｎ`
 * count as `admin` — or for the one account that name matched, the answer is 429 with
 * Retry-After, whatever the password; per client address a wider limit (100) stops one source
 * from spraying many user names. Counters live in the CounterStore: memory per instance, or
 * Redis shared by all instances when REDIS_URL is set.
 */
export const USER_FAILURE_LIMIT = 10;
export const IP_FAILURE_LIMIT = 100;
export const WINDOW_MS = 15 * 60 * 1000;

const userKey = (nameKey: string) => `login:u:${nameKey}`;
const accountKey = (accountId: string) => `login:id:${accountId}`;
const ipKey = (ip: string) => `login:a:${ip}`;

@Injectable()
export class LoginThrottle implements OnApplicationShutdown {
  constructor(@Inject(COUNTER_STORE) private readonly store: CounterStore) {}

  private refuse(c: Counter): never {
    throw new TooManyRequestsError('Too many failed logins; wait before trying again', c.ttlMs / 1000);
  }

  /** Throws 429 when the user name (its key) or the address is locked out. */
  async assertAllowed(nameKey: string, ip: string): Promise<void> {
    const [u, a] = await Promise.all([this.store.peek(userKey(nameKey)), this.store.peek(ipKey(ip))]);
    if (u && u.count >= USER_FAILURE_LIMIT) this.refuse(u);
    if (a && a.count >= IP_FAILURE_LIMIT) this.refuse(a);
  }

  /** Throws 429 when the account the name matched is locked out. */
  async assertAccountAllowed(accountId: string): Promise<void> {
    const c = await this.store.peek(accountKey(accountId));
    if (c && c.count >= USER_FAILURE_LIMIT) this.refuse(c);
  }

  /** Counts a failure for the name, the matched account (if any) and the address; throws 429 when this failure reaches a limit. */
  async recordFailure(nameKey: string, ip: string, accountId?: string): Promise<void> {
    const [u, a, id] = await Promise.all([
      this.store.hit(userKey(nameKey), WINDOW_MS),
      this.store.hit(ipKey(ip), WINDOW_MS),
      accountId ? this.store.hit(accountKey(accountId), WINDOW_MS) : null,
    ]);
    if (u.count >= USER_FAILURE_LIMIT) this.refuse(u);
    if (id && id.count >= USER_FAILURE_LIMIT) this.refuse(id);
    if (a.count >= IP_FAILURE_LIMIT) this.refuse(a);
  }

  async recordSuccess(nameKey: string, accountId: string): Promise<void> {
    await Promise.all([this.store.reset(userKey(nameKey)), this.store.reset(accountKey(accountId))]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
