import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { TooManyRequestsError } from '../common/errors/errors.js';
import { COUNTER_STORE, type Counter, type CounterStore } from './counter-store.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Throttles repeated failed logins (docs/security.md, "Throttling without lockout"):
 *
 * - **A user name is locked** from its 10th failure within 15 minutes — counted by its key
 *   (user-name.ts), so `ADMIN` and full-width `ａｄｍｉｎ` count as `admin`, and by the one account
 *   the name matched — until the window ends: 429 with Retry-After, whatever the password.
 * - **An address is slowed, never locked.** Past 100 failures within 15 minutes from one client
 *   address, each further failure from it answers 429 with `Retry-After: 1` after a pause of
 *   ADDRESS_PAUSE_MS (a client that waits as told gets one guess a second per connection), but the
 *   password is still checked first: a correct password of a person whose own name is not locked
 *   signs in. Behind a proxy that is not trusted (TRUST_PROXY) every person shares the proxy's
 *   address, and one attacker must not lock a whole company out.
 *
 * Counters live in the CounterStore: memory per instance, or Redis shared by all instances when
 * REDIS_URL is set.
 */
export const USER_FAILURE_LIMIT = 10;
export const IP_FAILURE_LIMIT = 100;
export const WINDOW_MS = 15 * 60 * 1000;
/** How long a failure from a slowed address waits before its 429 (at most the Retry-After it then gives). */
export const ADDRESS_PAUSE_MS = 1000;
/** The Retry-After of a slowed address's failure, in seconds (at most 2, docs/security.md). */
export const ADDRESS_RETRY_AFTER_S = 1;

const userKey = (nameKey: string) => `login:u:${nameKey}`;
const accountKey = (accountId: string) => `login:id:${accountId}`;
const ipKey = (ip: string) => `login:a:${ip}`;

@Injectable()
export class LoginThrottle implements OnApplicationShutdown {
  /** Waits before a slowed address's 429 (a test replaces it). */
  pause: (ms: number) => Promise<void> = (ms) => sleep(ms);

  constructor(@Inject(COUNTER_STORE) private readonly store: CounterStore) {}

  private refuse(c: Counter): never {
    throw new TooManyRequestsError('Too many failed logins for this user name; wait before trying again', c.ttlMs / 1000);
  }

  /** Throws 429 when the user name (its key) is locked. An address is never refused here: its failures are slowed in recordFailure. */
  async assertAllowed(nameKey: string): Promise<void> {
    const u = await this.store.peek(userKey(nameKey));
    if (u && u.count >= USER_FAILURE_LIMIT) this.refuse(u);
  }

  /** Throws 429 when the account the name matched is locked. */
  async assertAccountAllowed(accountId: string): Promise<void> {
    const c = await this.store.peek(accountKey(accountId));
    if (c && c.count >= USER_FAILURE_LIMIT) this.refuse(c);
  }

  /**
   * Counts a failure for the name, the matched account (if any) and the address; throws 429 when
   * this failure locks the name or the account, or — after a pause — when the address is past its
   * limit. Returns when the caller should answer its usual 401.
   */
  async recordFailure(nameKey: string, ip: string, accountId?: string): Promise<void> {
    // One round trip to Redis for the two or three counters.
    const [u, a, id] = await this.store.hitAll([userKey(nameKey), ipKey(ip), ...(accountId ? [accountKey(accountId)] : [])], WINDOW_MS);
    if (u.count >= USER_FAILURE_LIMIT) this.refuse(u);
    if (id && id.count >= USER_FAILURE_LIMIT) this.refuse(id);
    if (a.count > IP_FAILURE_LIMIT) {
      await this.pause(ADDRESS_PAUSE_MS);
      throw new TooManyRequestsError('Too many failed logins from this address; wait before trying again', ADDRESS_RETRY_AFTER_S);
    }
  }

  async recordSuccess(nameKey: string, accountId: string): Promise<void> {
    await Promise.all([this.store.reset(userKey(nameKey)), this.store.reset(accountKey(accountId))]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
