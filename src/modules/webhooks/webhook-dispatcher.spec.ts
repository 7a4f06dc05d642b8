import { jest } from '@jest/globals';
import type { AppConfig } from '../../config/config.js';
import type { TenantDb } from '../../database/tenant-db.js';
import type { WebhookEvents } from './webhook-events.js';
import { backoffMs, COMMIT_WAKE_GAP_MS, handledUpTo, nextWave, upToOwnChange, WebhookDispatcher } from './webhook-dispatcher.js';

describe('backoffMs (retries with exponential backoff and jitter)', () => {
  it('doubles from the base after each failure, up to the cap', () => {
    const mid = () => 0.5; // no jitter: the factor is 0.75 + 0.5 × 0.5 = 1
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffMs(n, 30_000, 3_600_000, mid))).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000]);
    expect(backoffMs(12, 30_000, 3_600_000, mid)).toBe(3_600_000);
  });

  it('spreads each delay by ±25 % so endpoints failing together do not retry together', () => {
    expect(backoffMs(3, 1000, 60_000, () => 0)).toBe(3000);
    expect(backoffMs(3, 1000, 60_000, () => 0.999999)).toBe(5000);
    const seen = new Set(Array.from({ length: 50 }, () => backoffMs(3, 1000, 60_000)));
    expect(seen.size).toBeGreaterThan(10);
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(3000);
    expect(Math.max(...seen)).toBeLessThanOrEqual(5000);
  });
});

describe('nextWave and handledUpTo (records at once, each record in order)', () => {
  const q = [
    { seq: 1, record: 'color:1' },
    { seq: 2, record: 'color:2' },
    { seq: 3, record: 'color:1' },
    { seq: 4, record: 'color:3' },
    { seq: 5, record: 'color:4' },
  ];

  it('takes the first unhandled event of each record, up to the width, in sequence order', () => {
    expect(nextWave(q, new Set(), 8).map((e) => e.seq)).toEqual([1, 2, 4, 5]);
    expect(nextWave(q, new Set(), 2).map((e) => e.seq)).toEqual([1, 2]);
    // Record 1's second event waits for its first.
    expect(nextWave(q, new Set([1, 2, 4]), 8).map((e) => e.seq)).toEqual([3, 5]);
    expect(nextWave(q, new Set([2]), 8).map((e) => e.seq)).toEqual([1, 4, 5]);
    expect(nextWave(q, new Set([1, 2, 3, 4, 5]), 8)).toEqual([]);
  });

  it('moves the cursor only over a run of handled events from the start', () => {
    expect(handledUpTo(q, new Set([1, 2, 4]), 0)).toBe(2);
    expect(handledUpTo(q, new Set([2, 3]), 0)).toBe(0);
    expect(handledUpTo(q, new Set([1, 2, 3, 4, 5]), 0)).toBe(5);
  });
});

describe('upToOwnChange (events after a webhook changes go out under its new settings)', () => {
  const rows = [
    { seq: 1, kind: 'color', row_id: '7' },
    { seq: 2, kind: 'webhook', row_id: 'other' },
    { seq: 3, kind: 'webhook', row_id: 'w1' },
    { seq: 4, kind: 'color', row_id: '7' },
  ];

  it('cuts the batch after the webhook’s own change, so the next claim reads its rotated secret first', () => {
    expect(upToOwnChange(rows, 'w1')).toEqual({ rows: rows.slice(0, 3), changed: true });
  });

  it('keeps the whole batch when only other records (or other webhooks) changed', () => {
    expect(upToOwnChange(rows, 'w2')).toEqual({ rows, changed: false });
    expect(upToOwnChange(rows.slice(0, 2), 'w1')).toEqual({ rows: rows.slice(0, 2), changed: false });
  });
});

describe('WebhookDispatcher wakes (a claim per gap, not per commit)', () => {
  /**
   * A database with no due webhook that counts the looks for work it is asked for (a claim reads
   * for candidates first, and takes a transaction only when there are some: none here).
   */
  function setup() {
    let commit: (site: string | undefined) => void = () => undefined;
    const db = {
      isSqlite: false,
      claims: 0,
      transactions: 0,
      onCommit(listener: (site: string | undefined) => void) {
        commit = listener;
        return () => undefined;
      },
      async pollRead() {
        db.claims++;
        return [];
      },
      async housekeeping(fn: (h: { rows: () => Promise<unknown[]>; write: () => Promise<number> }) => Promise<unknown>) {
        db.transactions++;
        return fn({ rows: async () => [], write: async () => 0 });
      },
    };
    const config = { webhooks: { deliver: true, pollMs: 60_000, timeoutMs: 1000 } } as unknown as AppConfig;
    const sut = new WebhookDispatcher(db as unknown as TenantDb, {} as WebhookEvents, config);
    return { sut, db, commit: (site = 's1') => commit(site) };
  }
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };

  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('lets the commits of one gap share a single claim, made at the end of the gap', async () => {
    const { sut, db, commit } = setup();
    sut.onApplicationBootstrap();
    await settle();
    expect(db.claims).toBe(1); // the start-up claim
    for (let i = 0; i < 50; i++) commit();
    await settle();
    expect(db.claims).toBe(1);
    jest.advanceTimersByTime(COMMIT_WAKE_GAP_MS);
    await settle();
    expect(db.claims).toBe(2);
    // Nothing was due: no claim took a transaction.
    expect(db.transactions).toBe(0);
    await sut.onApplicationShutdown();
  });

  it('claims at once for a commit after a quiet gap', async () => {
    const { sut, db, commit } = setup();
    sut.onApplicationBootstrap();
    await settle();
    jest.advanceTimersByTime(COMMIT_WAKE_GAP_MS + 1);
    commit();
    await settle();
    expect(db.claims).toBe(2);
    await sut.onApplicationShutdown();
  });
});
