import { ListTotals } from './list-totals.js';

describe('ListTotals', () => {
  let clock: number;
  let ttl: number;
  let sut: ListTotals;
  let counted: number;
  /** A count that answers `n` and records that it ran. */
  const count = (n: number) => async () => {
    counted++;
    return n;
  };

  beforeEach(() => {
    clock = 1_000_000;
    ttl = 2000;
    counted = 0;
    sut = new ListTotals(
      () => ttl,
      () => clock,
    );
  });

  it('answers a total counted less than the time ago without counting again', async () => {
    expect(await sut.of('s1', 'individuals/0', count(10))).toBe(10);
    clock += 1999;
    expect(await sut.of('s1', 'individuals/0', count(11))).toBe(10);
    expect(counted).toBe(1);
    expect({ hits: sut.hits, misses: sut.misses }).toEqual({ hits: 1, misses: 1 });
  });

  it('counts again once the time is up', async () => {
    await sut.of('s1', 'individuals/0', count(10));
    clock += 2000;
    expect(await sut.of('s1', 'individuals/0', count(11))).toBe(11);
    expect(counted).toBe(2);
  });

  it('counts again after a write of the same site committed, not after one of another site', async () => {
    await sut.of('s1', 'individuals/0', count(10));
    await sut.of('s2', 'individuals/0', count(20));
    sut.written('s1');
    expect(await sut.of('s1', 'individuals/0', count(11))).toBe(11);
    expect(await sut.of('s2', 'individuals/0', count(21))).toBe(20);
    expect(counted).toBe(3);
  });

  it('does not keep a total as fresh when a write committed while it was being counted', async () => {
    let finish!: (n: number) => void;
    const slow = sut.of('s1', 'individuals/0', () => new Promise<number>((res) => (finish = res)));
    sut.written('s1'); // commits while the count runs: the count may or may not have seen it
    finish(10);
    expect(await slow).toBe(10);
    expect(await sut.of('s1', 'individuals/0', count(11))).toBe(11);
  });

  it('counts once for the requests that find the total missing at the same moment, and answers each of them', async () => {
    let finish!: (n: number) => void;
    let counts = 0;
    const slow = () => (counts++, new Promise<number>((res) => (finish = res))) as Promise<number>;
    const all = Promise.all(Array.from({ length: 50 }, () => sut.of('s1', 'individuals/0', slow)));
    finish(10);
    expect(await all).toEqual(Array(50).fill(10));
    expect(counts).toBe(1);
    expect(await sut.of('s1', 'individuals/0', count(11))).toBe(10);
  });

  it('does not give a request after a write the count that began before it, and passes a failed count to those who waited', async () => {
    let finish!: (n: number) => void;
    const before = sut.of('s1', 'individuals/0', () => new Promise<number>((res) => (finish = res)));
    sut.written('s1');
    expect(await sut.of('s1', 'individuals/0', count(11))).toBe(11);
    finish(10);
    expect(await before).toBe(10);

    let fail!: (e: Error) => void;
    sut.written('s1');
    const failing = () => new Promise<number>((_, rej) => (fail = rej));
    const waited = Promise.allSettled([sut.of('s1', 'individuals/0', failing), sut.of('s1', 'individuals/0', failing)]);
    fail(new Error('database unavailable'));
    expect((await waited).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await sut.of('s1', 'individuals/0', count(12))).toBe(12);
  });

  it('keeps the totals of different keys apart', async () => {
    await sut.of('s1', 'individuals/0', count(10));
    expect(await sut.of('s1', 'individuals/1', count(3))).toBe(3);
    expect(await sut.of('s1', 'individuals/0', count(99))).toBe(10);
  });

  it('counts every time when the time is 0', async () => {
    ttl = 0;
    await sut.of('s1', 'individuals/0', count(10));
    expect(await sut.of('s1', 'individuals/0', count(11))).toBe(11);
    expect(counted).toBe(2);
  });

  it('never takes a total counted before a write as fresh after that site’s generation was forgotten', async () => {
    await sut.of('s1', 'individuals/0', count(10)); // counted before any write of s1
    sut.written('s1');
    for (let k = 0; k < 10_001; k++) sut.written(`other-${k}`); // s1's generation is forgotten
    expect(await sut.of('s1', 'individuals/0', count(11))).toBe(11);
    // Counted after that write, the total is reused while nothing else is written in s1.
    expect(await sut.of('s1', 'individuals/0', count(12))).toBe(11);
  });
});
