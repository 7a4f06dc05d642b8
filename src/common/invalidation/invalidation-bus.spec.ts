import { InvalidationBus, type InvalidationTransport, type WireInvalidation } from './invalidation-bus.js';

/** Two or more buses joined in memory, as Redis pub/sub joins replicas (sender excluded). */
class Wire {
  private readonly members: { receive: (b: readonly WireInvalidation[]) => void; resync: () => void }[] = [];
  sent: WireInvalidation[][] = [];
  transport(): InvalidationTransport {
    let self: { receive: (b: readonly WireInvalidation[]) => void; resync: () => void };
    return {
      send: (batch) => {
        this.sent.push([...batch]);
        for (const m of this.members) if (m !== self) m.receive(batch);
      },
      start: async (receive, resync) => {
        self = { receive, resync };
        this.members.push(self);
      },
      close: async () => undefined,
    };
  }
  dropped() {
    for (const m of this.members) m.resync();
  }
}

const turn = () => new Promise((r) => setImmediate(r));

describe('InvalidationBus', () => {
  it('without a transport runs this process’s handlers at once, and only them', () => {
    const sut = new InvalidationBus();
    const seen: (string | undefined)[] = [];
    sut.on('callers', (k) => seen.push(k));
    sut.publish('callers');
    sut.publish('callers', 'site-1');
    sut.publish('other', 'x');
    expect(seen).toEqual([undefined, 'site-1']);
    expect(sut.shared).toBe(false);
  });

  it('reaches every other replica’s handlers, one message per event-loop turn, each key once', async () => {
    const wire = new Wire();
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => new InvalidationBus(wire.transport()).start()));
    const seen = { a: [] as (string | undefined)[], b: [] as (string | undefined)[], c: [] as (string | undefined)[] };
    a.on('list-totals', (k) => seen.a.push(k));
    b.on('list-totals', (k) => seen.b.push(k));
    c.on('list-totals', (k) => seen.c.push(k));
    a.publish('list-totals', 's1');
    a.publish('list-totals', 's1');
    a.publish('list-totals', 's2');
    expect(seen.a).toEqual(['s1', 's1', 's2']);
    expect(seen.b).toEqual([]);
    await turn();
    expect(wire.sent).toHaveLength(1);
    expect(seen.b).toEqual(['s1', 's2']);
    expect(seen.c).toEqual(['s1', 's2']);
  });

  it('after a lost subscription invalidates every topic it has handlers for', async () => {
    const wire = new Wire();
    const sut = await new InvalidationBus(wire.transport()).start();
    const seen: string[] = [];
    sut.on('callers', (k) => seen.push(`callers:${k}`));
    sut.on('list-totals', (k) => seen.push(`totals:${k}`));
    wire.dropped();
    expect(seen).toEqual(['callers:undefined', 'totals:undefined']);
  });

  it('ignores malformed messages and stops calling an unsubscribed handler', async () => {
    const wire = new Wire();
    const [a, b] = await Promise.all([0, 1].map(() => new InvalidationBus(wire.transport()).start()));
    const seen: (string | undefined)[] = [];
    const off = b.on('callers', (k) => seen.push(k));
    (wire.transport() as unknown as { send: (x: unknown) => void }).send([{ t: 5 }]);
    a.publish('callers', 'k');
    await turn();
    off();
    a.publish('callers', 'k2');
    await turn();
    expect(seen).toEqual(['k']);
  });
});
