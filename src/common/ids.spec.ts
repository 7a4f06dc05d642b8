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
});
