import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/config.js';
import type { Caller } from '../../common/context/request-context.js';
import type { Cache } from './cache.js';
import { CallerCache } from './caller-cache.js';
import { ListTotals } from './list-totals.js';

/** Every cache of the data floor answers the one interface: how much it keeps, and forgetting all of it. */
describe('the data floor’s caches (one interface)', () => {
  const caller = { userId: 'u', siteId: 's' } as Caller;

  it('CallerCache counts and forgets its callers, reports and rows', async () => {
    const sut: Cache = new CallerCache({ callerCacheMs: 5000 } as AppConfig, { subscribers: [] } as unknown as DataSource);
    const cache = sut as CallerCache;
    await cache.get('u', 's', 0, async () => caller);
    await cache.reportsOf('s', 'i', async () => new Set(['a']));
    await cache.kept('issuer x', async () => [1]);
    expect(sut.entries()).toBe(3);
    sut.clear();
    expect(sut.entries()).toBe(0);
    expect(sut.name).toBe('callers');
  });

  it('ListTotals counts and forgets its totals', async () => {
    const sut: Cache = new ListTotals(() => 60_000);
    await (sut as ListTotals).of('site', 'individuals/0', async () => 7);
    expect(sut.entries()).toBe(1);
    sut.clear();
    expect(sut.entries()).toBe(0);
    let counted = 0;
    await (sut as ListTotals).of('site', 'individuals/0', async () => ++counted);
    expect(counted).toBe(1);
  });
});
