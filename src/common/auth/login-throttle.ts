import { Injectable } from '@nestjs/common';
import { TooManyRequestsError } from '../errors/errors.js';

/**
 * Throttles repeated failed logins (DESIGN §3): from the 10th failure for one user name within
 * 15 minutes the answer is 429 with Retry-After, whatever the password; per client address a
 * wider limit (100) stops one source from spraying many user names. Counters live in memory;
 * several instances behind a balancer each keep their own (a Redis store is the planned shared one).
 */
export const USER_FAILURE_LIMIT = 10;
export const IP_FAILURE_LIMIT = 100;
export const WINDOW_MS = 15 * 60 * 1000;

interface Counter {
  count: number;
  resetAt: number;
}

@Injectable()
export class LoginThrottle {
  private readonly counters = new Map<string, Counter>();
  /** Injectable clock for tests. */
  now: () => number = () => Date.now();

  private get(key: string): Counter | undefined {
    const c = this.counters.get(key);
    if (c && c.resetAt <= this.now()) {
      this.counters.delete(key);
      return undefined;
    }
    return c;
  }

  private refuse(c: Counter): never {
    throw new TooManyRequestsError('Too many failed logins; wait before trying again', (c.resetAt - this.now()) / 1000);
  }

  /** Throws 429 when the user name or the address is locked out. */
  assertAllowed(userName: string, ip: string): void {
    const u = this.get(`u:${userName.toLowerCase()}`);
    if (u && u.count >= USER_FAILURE_LIMIT) this.refuse(u);
    const a = this.get(`a:${ip}`);
    if (a && a.count >= IP_FAILURE_LIMIT) this.refuse(a);
  }

  /** Counts a failure; throws 429 when this failure reaches a limit. */
  recordFailure(userName: string, ip: string): void {
    let locked: Counter | null = null;
    for (const [key, limit] of [
      [`u:${userName.toLowerCase()}`, USER_FAILURE_LIMIT],
      [`a:${ip}`, IP_FAILURE_LIMIT],
    ] as const) {
      const c = this.get(key) ?? { count: 0, resetAt: this.now() + WINDOW_MS };
      c.count += 1;
      this.counters.set(key, c);
      if (c.count >= limit) locked = c;
    }
    if (locked) this.refuse(locked);
    // Keep memory bounded under a spray of random user names.
    if (this.counters.size > 100_000) for (const k of [...this.counters.keys()].slice(0, 10_000)) this.counters.delete(k);
  }

  recordSuccess(userName: string): void {
    this.counters.delete(`u:${userName.toLowerCase()}`);
  }
}
