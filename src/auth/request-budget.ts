import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.js';
import type { AppConfig } from '../config/config.js';
import type { Caller } from '../common/context/request-context.js';
import { TooManyRequestsError } from '../common/errors/errors.js';
import { BUDGET_STORE, type Counter, type CounterStore } from './counter-store.js';

/** A response as the budget sees it: somewhere to announce the budgets. */
export interface BudgetResponse {
  setHeader(name: string, value: string): unknown;
}

interface Policy {
  /** The policy's name in the RateLimit headers. */
  name: 'caller' | 'site';
  quota: number;
  key: (caller: Caller) => string;
  /** Who spent it, in a 429's detail. */
  whose: (caller: Caller) => string;
}

/**
 * Request budgets (docs/limits.md): every authenticated request spends one request of its caller's
 * budget (a person's account, or an API token) and one of its site's, in fixed windows; a bulk
 * request spends one per item. The budgets are announced on every answer with the IETF `RateLimit`
 * and `RateLimit-Policy` fields (draft-ietf-httpapi-ratelimit-headers: `q` the quota, `w` the
 * window in seconds, `r` what remains, `t` seconds until the window ends), and a request over
 * either budget answers 429 with `Retry-After`. The counters live in the budget store: Redis when
 * REDIS_URL is set, shared by every replica; else this process. A store that cannot be reached
 * counts nothing (fails open, with a warning), as the login throttle does.
 */
@Injectable()
export class RequestBudget {
  private readonly policies: readonly Policy[];
  private readonly windowMs: number;
  private readonly policyHeader: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(BUDGET_STORE) private readonly store: CounterStore,
  ) {
    const { windowSeconds, perCaller, perSite } = config.rateLimits;
    this.windowMs = windowSeconds * 1000;
    const all: Policy[] = [
      {
        name: 'caller',
        quota: perCaller,
        key: (c) => (c.kind === 'service' ? `token:${c.userId}` : `user:${c.userId}`),
        whose: (c) => (c.kind === 'service' ? 'this API token' : 'this account'),
      },
      { name: 'site', quota: perSite, key: (c) => `site:${c.siteId}`, whose: () => 'this site' },
    ];
    this.policies = all.filter((p) => p.quota > 0);
    this.policyHeader = this.policies.map((p) => `"${p.name}";q=${p.quota};w=${windowSeconds}`).join(', ');
  }

  /**
   * Spends `cost` requests of the caller's budgets, announces them on `res`, and throws 429 when
   * one is spent. A request over budget still counts, so a client that ignores Retry-After does not
   * get its requests back sooner. A store that counts at once (in this process) answers here and
   * now, without a promise: the guard awaits only what it is given (docs/limits.md, "Cost").
   */
  spend(caller: Caller, res: BudgetResponse | undefined, cost = 1): Promise<void> | undefined {
    if (this.policies.length === 0 || cost <= 0) return undefined;
    const store = this.store;
    const keys = this.policies.map((p) => `budget:${p.key(caller)}`);
    if (store.hitNow) {
      this.settle(
        caller,
        res,
        cost,
        keys.map((key) => store.hitNow!(key, this.windowMs, cost)),
      );
      return undefined;
    }
    return store.hitAll(keys, this.windowMs, cost).then((counters) => this.settle(caller, res, cost, counters));
  }

  /** Announces the budgets after `counters` (one a policy) and throws 429 when one is spent. */
  private settle(caller: Caller, res: BudgetResponse | undefined, cost: number, counters: readonly Counter[]): void {
    const policies = this.policies;
    let announced = '';
    let worst: { policy: Policy; seconds: number } | null = null;
    for (let i = 0; i < policies.length; i++) {
      const policy = policies[i];
      const c = counters[i];
      const seconds = secondsOf(c);
      announced += `${i ? ', ' : ''}"${policy.name}";r=${Math.max(0, policy.quota - c.count)};t=${seconds}`;
      if (c.count > policy.quota && (!worst || seconds > worst.seconds)) worst = { policy, seconds };
    }
    if (res) {
      res.setHeader('RateLimit-Policy', this.policyHeader);
      res.setHeader('RateLimit', announced);
    }
    if (worst) {
      throw new TooManyRequestsError(
        `The request budget of ${worst.policy.whose(caller)} (${worst.policy.quota} requests every ${this.windowMs / 1000} s${cost > 1 ? `; this request costs ${cost}` : ''}) is spent: retry after ${worst.seconds} s (docs/limits.md)`,
        worst.seconds,
      );
    }
  }
}

function secondsOf(c: Counter): number {
  return Math.max(1, Math.ceil(c.ttlMs / 1000));
}
