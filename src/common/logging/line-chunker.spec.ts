import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { LineChunker, type ChunkTarget } from './line-chunker.js';
import { setTimeout as sleep } from 'node:timers/promises';

function fakeTarget() {
  const calls: string[] = [];
  const target: ChunkTarget = {
    write: (chunk) => calls.push(`write ${chunk}`),
    flush: () => calls.push('flush'),
    flushSync: () => calls.push('flushSync'),
  };
  return { target, calls };
}

describe('LineChunker', () => {
  const chunkers: LineChunker[] = [];
  const make = (target: ChunkTarget, minChunk: number, flushMs = 0) => {
    const sut = new LineChunker(target, minChunk, flushMs);
    chunkers.push(sut);
    return sut;
  };
  afterEach(() => chunkers.splice(0).forEach((c) => c.stop()));

  it('hands lines on as one chunk once they make minChunk bytes, in order', () => {
    const { target, calls } = fakeTarget();
    const sut = make(target, 10);
    sut.write('aaaa\n');
    sut.write('bbbb\n');
    expect(calls).toEqual(['write aaaa\nbbbb\n']);
    sut.write('cc\n');
    expect(calls).toHaveLength(1);
  });

  it('counts bytes, not characters (a line of multi-byte characters fills a chunk sooner)', () => {
    const { target, calls } = fakeTarget();
    const sut = make(target, 10);
    sut.write('ééééé\n'); // 11 bytes, 6 characters
    expect(calls).toEqual(['write ééééé\n']);
  });

  it('hands on and flushes what came within flushMs, even when it is less than a chunk', async () => {
    const { target, calls } = fakeTarget();
    const sut = make(target, 1_000_000, 20);
    sut.write('one\n');
    expect(calls).toEqual([]);
    await sleep(80);
    expect(calls.slice(0, 2)).toEqual(['write one\n', 'flush']);
  });

  it('at exit, writes the target’s pending bytes, then its own lines, synchronously', () => {
    const { target, calls } = fakeTarget();
    const sut = make(target, 1000);
    sut.write('last\n');
    sut.flushSync();
    expect(calls).toEqual(['flushSync', 'write last\n', 'flushSync']);
  });

  it('with pino and sonic-boom on a file: every line arrives, in order, in far fewer writes than lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-chunker-'));
    try {
      const file = join(dir, 'out.log');
      const boom = pino.destination({ dest: file, sync: false, minLength: 4096 });
      await new Promise((resolve) => boom.once('ready', resolve));
      let writes = 0;
      boom.on('write', () => writes++);
      const sut = make(boom, 4096);
      const logger = pino({ base: undefined, timestamp: false }, sut);
      for (let i = 0; i < 2000; i++) logger.info({ i, path: '/v4/individuals/some-id', status: 200 }, 'http');
      await new Promise((resolve) => sut.flush(resolve));
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
      expect(lines.map((l) => (JSON.parse(l) as { i: number }).i)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
      expect(writes).toBeGreaterThan(0);
      expect(writes).toBeLessThan(200);
      boom.destroy();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
