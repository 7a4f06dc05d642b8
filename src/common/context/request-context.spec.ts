import { RequestContext } from './request-context.js';
import { UTC } from '../dates.js';

const caller = { userId: 'u', userName: 'u', individualId: null, siteId: 's', isAdmin: true, isGlobalAdmin: false, pmEnabled: true };

describe('RequestContext: If-Match', () => {
  it('reads the versions the header names: none for no header or *, an empty list for tags that are not ours', () => {
    expect(new RequestContext('r', UTC, caller, null).ifMatchVersions).toBeNull();
    expect(new RequestContext('r', UTC, caller, '*').ifMatchVersions).toBeNull();
    expect(new RequestContext('r', UTC, caller, 'W/"3-abc", "7-def"').ifMatchVersions).toEqual([3, 7]);
    expect(new RequestContext('r', UTC, caller, '"abc"').ifMatchVersions).toEqual([]);
  });

  it('underIfMatch: a bulk item’s IfMatch stands for the header while its write runs, and the header is back after, also when the write fails', async () => {
    const ctx = new RequestContext('r', UTC, caller, '"1-header"');
    expect(await ctx.underIfMatch('"5-item"', async () => ctx.ifMatchVersions)).toEqual([5]);
    // null: the item gives none, and the request's header does not hold it either.
    expect(await ctx.underIfMatch(null, async () => ctx.ifMatchVersions)).toBeNull();
    await expect(
      ctx.underIfMatch('"6-item"', async () => {
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(ctx.ifMatch).toBe('"1-header"');
    expect(ctx.ifMatchVersions).toEqual([1]);
    // A context for another site takes the precondition in force.
    expect(await ctx.underIfMatch('"8-item"', async () => ctx.withSite('t', true).ifMatch)).toBe('"8-item"');
    expect(ctx.withSite('t', true).ifMatch).toBe('"1-header"');
  });
});
