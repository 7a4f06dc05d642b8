import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config.js';
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

describe('CallerCache across replicas (InvalidationBus)', () => {
  it('drops what it keeps when another replica invalidates, and tells the others when it does', async () => {
    const { InvalidationBus } = await import('../common/invalidation/invalidation-bus.js');
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
