import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/config.js';
import type { Caller } from '../../common/context/request-context.js';
import { CallerCache, MAX_KEPT_REPORTS } from './caller-cache.js';

function cache(callerCacheMs = 5000): CallerCache {
  return new CallerCache({ callerCacheMs } as AppConfig, { subscribers: [] } as unknown as DataSource);
}

const ids = (n: number) => new Set(Array.from({ length: n }, (_, i) => `id-${i}`));

describe('CallerCache.reportsOf (a manager’s reports, kept like the caller)', () => {
  it('reads the reports once and answers them until the cache is invalidated', async () => {
    const sut = cache();
    let loads = 0;
    const load = () => Promise.resolve((loads++, ids(3)));
    expect(await sut.reportsOf('site', 'boss', load)).toEqual(ids(3));
    expect(await sut.reportsOf('site', 'boss', load)).toEqual(ids(3));
    expect(loads).toBe(1);
    sut.invalidate();
    await sut.reportsOf('site', 'boss', load);
    expect(loads).toBe(2);
  });

  it('keeps each site’s individual apart', async () => {
    const sut = cache();
    await sut.reportsOf('site-a', 'boss', () => Promise.resolve(ids(1)));
    expect(await sut.reportsOf('site-b', 'boss', () => Promise.resolve(ids(2)))).toEqual(ids(2));
  });

  it(`answers null above ${MAX_KEPT_REPORTS} reports, and remembers that without reading them again`, async () => {
    const sut = cache();
    let loads = 0;
    const load = () => Promise.resolve((loads++, ids(MAX_KEPT_REPORTS + 1)));
    expect(await sut.reportsOf('site', 'ceo', load)).toBeNull();
    expect(await sut.reportsOf('site', 'ceo', load)).toBeNull();
    expect(loads).toBe(1);
    expect(await sut.reportsOf('site', 'lead', () => Promise.resolve(ids(MAX_KEPT_REPORTS)))).toEqual(ids(MAX_KEPT_REPORTS));
  });

  it('keeps nothing with CALLER_CACHE_MS=0', async () => {
    const sut = cache(0);
    let loads = 0;
    expect(await sut.reportsOf('site', 'boss', () => Promise.resolve((loads++, ids(1))))).toBeNull();
    expect(loads).toBe(0);
  });

  it('does not keep reports read while a write invalidated the cache', async () => {
    const sut = cache();
    let loads = 0;
    await sut.reportsOf('site', 'boss', () => {
      loads++;
      sut.invalidate(); // a write to individuals lands while the reports are read
      return Promise.resolve(ids(2));
    });
    await sut.reportsOf('site', 'boss', () => Promise.resolve((loads++, ids(3))));
    expect(loads).toBe(2);
  });
});

/** A read that answers when the test says so. */
function pending<T>(): { read: () => Promise<T>; reads: () => number; answer: (v: T) => void; fail: (e: Error) => void } {
  let count = 0;
  const waiting: { resolve: (v: T) => void; reject: (e: Error) => void }[] = [];
  return {
    read: () => (count++, new Promise<T>((resolve, reject) => waiting.push({ resolve, reject }))) as Promise<T>,
    reads: () => count,
    answer: (v) => waiting.splice(0).forEach((w) => w.resolve(v)),
    fail: (e) => waiting.splice(0).forEach((w) => w.reject(e)),
  };
}

describe('CallerCache: one read for the requests that miss at the same moment', () => {
  const caller = { accountId: 'a' } as unknown as Caller;

  it('reads a caller once for 50 requests that all find it missing, and answers each of them', async () => {
    const sut = cache();
    const read = pending<Caller>();
    const all = Promise.all(Array.from({ length: 50 }, () => sut.get('sub', 'site', 0, read.read)));
    await Promise.resolve();
    expect(read.reads()).toBe(1);
    read.answer(caller);
    const answers = await all;
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toEqual(caller);
    expect(Object.isFrozen(answers[0])).toBe(true);
    await sut.get('sub', 'site', 0, read.read);
    expect(read.reads()).toBe(1);
  });

  it('reads a manager’s reports once for the requests that find them missing', async () => {
    const sut = cache();
    const read = pending<ReadonlySet<string>>();
    const all = Promise.all(Array.from({ length: 20 }, () => sut.reportsOf('site', 'boss', read.read)));
    await Promise.resolve();
    read.answer(ids(4));
    expect((await all).every((r) => r?.size === 4)).toBe(true);
    expect(read.reads()).toBe(1);
  });

  it('gives a request after an invalidation a read of its own, and keeps neither the read from before it', async () => {
    const sut = cache();
    const before = pending<ReadonlySet<string>>();
    const first = sut.reportsOf('site', 'boss', before.read);
    sut.invalidate(); // a write to individuals commits while the reports are read
    const after = pending<ReadonlySet<string>>();
    const second = sut.reportsOf('site', 'boss', after.read);
    expect(after.reads()).toBe(1);
    before.answer(ids(1));
    after.answer(ids(2));
    expect((await first)?.size).toBe(1);
    expect((await second)?.size).toBe(2);
    const third = pending<ReadonlySet<string>>();
    expect((await sut.reportsOf('site', 'boss', third.read))?.size).toBe(2);
    expect(third.reads()).toBe(0);
  });

  it('passes a failed read to every request that waited for it, keeps nothing, and reads again next time', async () => {
    const sut = cache();
    const read = pending<Caller>();
    const all = Promise.allSettled([sut.get('sub', 'site', 0, read.read), sut.get('sub', 'site', 0, read.read)]);
    await Promise.resolve();
    read.fail(new Error('database unavailable'));
    expect((await all).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await sut.get('sub', 'site', 0, () => Promise.resolve(caller))).toEqual(caller);
  });
});

describe('CallerCache across replicas (InvalidationBus)', () => {
  it('drops what it keeps when another replica invalidates, and tells the others when it does', async () => {
    const { InvalidationBus } = await import('../../common/invalidation/invalidation-bus.js');
    let deliver: (b: readonly { t: string; k?: string }[]) => void = () => undefined;
    const sent: unknown[] = [];
    const bus = await new InvalidationBus({
      send: (b) => sent.push(b),
      start: async (receive) => void (deliver = receive),
      close: async () => undefined,
    }).start();
    const sut = new CallerCache({ callerCacheMs: 5000 } as AppConfig, { subscribers: [] } as unknown as DataSource, bus);
    let loads = 0;
    const load = () => Promise.resolve((loads++, ids(1)));
    await sut.reportsOf('site', 'boss', load);
    deliver([{ t: 'callers' }]);
    await sut.reportsOf('site', 'boss', load);
    expect(loads).toBe(2);
    sut.invalidate();
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([[{ t: 'callers' }]]);
  });
});

describe('CallerCache: writes through the data layer', () => {
  const caller = { userId: 'u' } as unknown as Caller;
  const write = (tableName: string, queryRunner: { isTransactionActive: boolean; data?: unknown }) =>
    ({ metadata: { tableName }, queryRunner }) as unknown as Parameters<CallerCache['afterInsert']>[0];

  async function counting() {
    const { InvalidationBus } = await import('../../common/invalidation/invalidation-bus.js');
    const sent: unknown[] = [];
    const bus = await new InvalidationBus({ send: (b) => sent.push(...b), start: async () => undefined, close: async () => undefined }).start();
    const sut = new CallerCache({ callerCacheMs: 5000 } as AppConfig, { subscribers: [] } as unknown as DataSource, bus);
    let loads = 0;
    const read = () => sut.get('sub', 'site', 0, () => Promise.resolve((loads++, caller)));
    return { sut, sent, read, loads: () => loads };
  }

  it('in a transaction: drops the kept caller at once, and again at the commit (a caller read in between is not kept)', async () => {
    const { sut, read, loads } = await counting();
    await read();
    const runner = { isTransactionActive: true, data: {} };
    for (let i = 0; i < 1000; i++) sut.afterInsert(write('individuals', runner));
    await read(); // read again at once, before the commit (the old row, on another connection)
    expect(loads()).toBe(2);
    await read();
    expect(loads()).toBe(2);
    sut.afterTransactionCommit({ queryRunner: runner } as unknown as Parameters<CallerCache['afterTransactionCommit']>[0]);
    await read();
    expect(loads()).toBe(3);
    // The next transaction on the same runner drops it again at its own commit.
    sut.afterUpdate(write('users', runner));
    await read();
    sut.afterTransactionCommit({ queryRunner: runner } as unknown as Parameters<CallerCache['afterTransactionCommit']>[0]);
    await read();
    expect(loads()).toBe(5);
  });

  it('outside a transaction: invalidates at once; tables that do not decide a caller change nothing', async () => {
    const { sut, read, loads } = await counting();
    await read();
    sut.afterInsert(write('goals', { isTransactionActive: false }));
    await read();
    expect(loads()).toBe(1);
    sut.afterUpdate(write('permissions', { isTransactionActive: false }));
    await read();
    expect(loads()).toBe(2);
  });
});
