import { jest } from '@jest/globals';
import { Coalescer } from './coalescer.js';

describe('Coalescer', () => {
  let clock = 0;
  let runs: number;
  let release: (() => void) | null;
  let sut: Coalescer;

  beforeEach(() => {
    jest.useFakeTimers();
    clock = 1_000;
    runs = 0;
    release = null;
    sut = new Coalescer(
      25,
      () => {
        runs++;
        return new Promise<void>((resolve) => (release = resolve));
      },
      () => undefined,
      () => clock,
    );
  });
  afterEach(() => jest.useRealTimers());

  const finish = async () => {
    release?.();
    release = null;
    // Let the run's promise chain settle.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };

  it('runs at once on the first commit, and once at the end of the gap for a burst of commits after it', async () => {
    sut.afterCommit();
    expect(runs).toBe(1);
    await finish();
    clock += 5;
    for (let i = 0; i < 50; i++) sut.afterCommit();
    expect(runs).toBe(1);
    clock += 20;
    jest.advanceTimersByTime(20);
    expect(runs).toBe(2);
    await finish();
    expect(runs).toBe(2);
  });

  it('a wake during a run asks for exactly one more run right after it', async () => {
    sut.wake();
    sut.wake();
    sut.wake();
    expect(runs).toBe(1);
    await finish();
    expect(runs).toBe(2);
    await finish();
    expect(runs).toBe(2);
  });

  it('takes no wake once stopped', async () => {
    const stopping = sut.stop();
    sut.wake();
    sut.afterCommit();
    await stopping;
    expect(runs).toBe(0);
  });
});
