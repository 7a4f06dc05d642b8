import { newRecordId } from './ids.js';

describe('newRecordId: a record ID in the order records are made', () => {
  it('is a version 7 GUID whose first 48 bits are the millisecond it was made', () => {
    const before = Date.now();
    const id = newRecordId();
    const after = Date.now();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
  });

  it('orders IDs made one after another, within a millisecond too, and never repeats one', () => {
    const ids = Array.from({ length: 20_000 }, () => newRecordId());
    expect(new Set(ids).size).toBe(ids.length);
    // Many share a millisecond: their order is still the order they were made in.
    const sameMs = ids.filter((id, i) => i > 0 && id.slice(0, 13) === ids[i - 1].slice(0, 13)).length;
    expect(sameMs).toBeGreaterThan(1_000);
    expect([...ids].sort()).toEqual(ids);
  });

  it('gives each ID random bits of its own, across the refills of its pool of random bytes', () => {
    // 20,000 IDs take the pool's 256 IDs' worth of bytes 78 times over: a pool that was not
    // refilled would repeat its tails every 256 IDs. The last 5 bytes are random alone (the
    // counter ends in the byte before): more than one pair of equal tails among 20,000 is a
    // chance of about one in 60 million.
    const tails = Array.from({ length: 20_000 }, () => newRecordId().slice(-10));
    expect(new Set(tails).size).toBeGreaterThanOrEqual(tails.length - 1);
  });
});
