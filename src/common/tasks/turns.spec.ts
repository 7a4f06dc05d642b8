import { giveWay, Turns } from './turns.js';

describe('Turns (long work lets the event loop take a turn)', () => {
  it('answers at once within the slice: nothing waiting on the event loop runs in between', async () => {
    // A clock that never moves: every take() is within the slice.
    const turns = new Turns(10_000, () => 0);
    let ran = false;
    setImmediate(() => (ran = true));
    for (let k = 0; k < 100; k++) await turns.take();
    expect(ran).toBe(false);
  });

  it('after the slice, lets what waits on the event loop run before the work goes on, then starts a new slice', async () => {
    // The test's own clock: a slow or paused worker cannot end a slice early.
    let clock = 0;
    const turns = new Turns(5, () => clock);
    const order: string[] = [];
    setImmediate(() => order.push('waiting callback'));
    clock = 6; // the long synchronous stretch a bulk chunk is
    await turns.take();
    order.push('work goes on');
    expect(order).toEqual(['waiting callback', 'work goes on']);
    let again = false;
    setImmediate(() => (again = true));
    clock = 10; // 4 ms into the new slice
    await turns.take();
    expect(again).toBe(false);
    clock = 11; // the new slice is over
    await turns.take();
    expect(again).toBe(true);
  });
});

describe('giveWay (background work between two pieces)', () => {
  const timed = async (busy: boolean, workedMs: number, maxMs: number) => {
    const t0 = performance.now();
    const waited = await giveWay(busy, workedMs, maxMs);
    return { waited, elapsed: performance.now() - t0 };
  };

  it('when the API is busy, waits as long as the last piece took', async () => {
    const { waited, elapsed } = await timed(true, 120, 2000);
    expect(waited).toBe(120);
    expect(elapsed).toBeGreaterThanOrEqual(115);
  });

  it('waits no longer than the bound, however long the piece took', async () => {
    const { waited, elapsed } = await timed(true, 600_000, 150);
    expect(waited).toBe(150);
    expect(elapsed).toBeGreaterThanOrEqual(145);
    // Far below the piece's 600 s: bounded.
    expect(elapsed).toBeLessThan(60_000);
  });

  it('when nothing waits, only lets the event loop take a turn', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('waiting callback'));
    const { waited, elapsed } = await timed(false, 600_000, 5000);
    order.push('next piece');
    expect(waited).toBe(0);
    expect(order).toEqual(['waiting callback', 'next piece']);
    // No pause: a busy API's would last the bound's 5 s.
    expect(elapsed).toBeLessThan(4000);
  });
});
