import { ChunksInFlight, startChunk, type ChunkInFlight } from './chunks-in-flight.js';

/** A chunk the test drives: `items()` makes it ready, `commit(v)` or `fail(e)` ends it. */
function chunk<T>() {
  let items!: () => void;
  let commit!: (v: T) => void;
  let fail!: (e: unknown) => void;
  const w = startChunk<T>(
    (ready) =>
      new Promise<T>((resolve, reject) => {
        items = ready;
        commit = resolve;
        fail = reject;
      }),
  );
  return { w, items: () => items(), commit: (v: T) => commit(v), fail: (e: unknown) => fail(e) };
}

const tick = () => new Promise((r) => setImmediate(r));

/** Chunks in flight, the first of them written alone and ready; `landed` hears what lands. */
async function oneInFlight(landed: number[] = []) {
  const writes = new ChunksInFlight<ChunkInFlight<number>, number>((v) => landed.push(v));
  const a = chunk<number>();
  const alone = writes.alone(() => a.w);
  a.items();
  await alone;
  return { writes, a, landed };
}

describe('two chunks at once: the chunk in flight and the next beside it', () => {
  it('lands chunks in the order they started, each once, and takes the next beside the one in flight', async () => {
    const { writes, a, landed } = await oneInFlight();
    expect(writes.inFlight).toBe(a.w);
    const b = chunk<number>();
    const beside = writes.beside(b.w);
    // The second waits for the first to land, whatever order the two end in.
    b.items();
    await tick();
    expect(landed).toEqual([]);
    a.commit(1);
    expect(await beside).toBe(true);
    expect(landed).toEqual([1]);
    expect(writes.inFlight).toBe(b.w);
    b.commit(2);
    await writes.land();
    await writes.land();
    expect(landed).toEqual([1, 2]);
    expect(writes.inFlight).toBeNull();
  });

  it('a chunk that fails before it is ready beside the one in flight is answered false, with nothing in flight, once that one landed', async () => {
    const { writes, a, landed } = await oneInFlight();
    const b = chunk<number>();
    const beside = writes.beside(b.w);
    b.fail(new Error('lost deadlock'));
    a.commit(1);
    expect(await beside).toBe(false);
    expect(landed).toEqual([1]);
    expect(writes.inFlight).toBeNull();
  });

  it('when the chunk in flight fails, the one beside it ends first, then its failure is thrown', async () => {
    const { writes, a } = await oneInFlight();
    const b = chunk<number>();
    let ended = false;
    void b.w.done.then(() => (ended = true));
    const beside = writes.beside(b.w).catch((e: Error) => ({ threw: e.message, ended }));
    a.fail(new Error('database gone'));
    await tick();
    b.commit(2);
    expect(await beside).toEqual({ threw: 'database gone', ended: true });
  });

  it('a chunk that fails before it is ready alone throws, and stays in flight until it has settled', async () => {
    const writes = new ChunksInFlight<ChunkInFlight<number>, number>(() => undefined);
    const a = chunk<number>();
    const alone = writes.alone(() => a.w);
    a.fail(new Error('refused'));
    await expect(alone).rejects.toThrow('refused');
    expect(writes.inFlight).toBe(a.w);
    await writes.settled();
    await expect(writes.land()).rejects.toThrow('refused');
    expect(writes.inFlight).toBeNull();
  });
});
