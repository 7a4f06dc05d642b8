import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * An import's JSON or XML file is read whole, and parsed by a worker thread in the compiled service
 * (src/modules/imports/whole-file-reader.ts; docs/imports.md, "JSON and XML off the event loop"):
 * the replica's event loop keeps turning while a 15 MB file is parsed, the rows come back whole and
 * in order, and a file the worker cannot read (malformed, or more than its heap) is the file's
 * problem. Run against `dist/` (the TypeScript sources under jest parse in-process), in a child
 * process whose event loop nothing else shares. At most PARSE_WORKERS_AT_ONCE (2) parse at once.
 */
const root = process.cwd();
let dir: string;

beforeAll(() => {
  execFileSync(process.execPath, [join(root, 'scripts/build-if-changed.mjs')], { cwd: root, stdio: 'pipe' });
  dir = mkdtempSync(join(tmpdir(), 'pms-parse-worker-'));
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  rows: number;
  first: Record<string, unknown> | null;
  last: Record<string, unknown> | null;
  /** Turns of a 5 ms timer between the start and the first row (the parse). */
  turnsBeforeFirstRow: number;
  error: string | null;
  fileError: boolean;
}

/** Reads a generated file of `n` people through wholeFileRows (dist), in a process of its own. */
function read(format: 'json' | 'xml', n: number, opts: { corrupt?: boolean; heapMb?: number } = {}): Outcome {
  const script = `
    import { Readable } from 'node:stream';
    import { wholeFileRows } from ${JSON.stringify(join(root, 'dist/src/modules/imports/whole-file-reader.js'))};
    import { FileError } from ${JSON.stringify(join(root, 'dist/src/modules/imports/whole-file.js'))};
    const [format, n, corrupt, heapMb] = [${JSON.stringify(format)}, ${n}, ${opts.corrupt === true}, ${opts.heapMb ?? 'undefined'}];
    const person = (i) => ({ ExternalID: 'E' + i, FirstName: 'Ada' + i, LastName: 'Lovelace', UserName: 'ada.' + i, UserEmail: null, PrimaryTitle: 'Analyst of engines ' + i, Description: 'x'.repeat(150) });
    const people = Array.from({ length: n }, (_, i) => person(i));
    let text = format === 'json'
      ? JSON.stringify(people)
      : '<?xml version="1.0" encoding="utf-8"?><ArrayOfIndividual xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">' +
        people.map((p) => '<Individual>' + Object.entries(p).map(([k, v]) => v === null ? '<' + k + ' i:nil="true"/>' : '<' + k + '>' + v + '</' + k + '>').join('') + '</Individual>').join('') +
        '</ArrayOfIndividual>';
    if (corrupt) text = text.slice(0, text.length - 40);
    let turns = 0;
    const timer = setInterval(() => turns++, 5);
    const out = { rows: 0, first: null, last: null, turnsBeforeFirstRow: -1, error: null, fileError: false };
    try {
      for await (const row of wholeFileRows(format, Readable.from([Buffer.from(text)]), 'urn:pms:v4', 16 * 1024 * 1024, heapMb)) {
        if (out.rows === 0) { out.turnsBeforeFirstRow = turns; out.first = row; }
        out.last = row;
        out.rows++;
      }
    } catch (e) {
      out.error = e.message;
      out.fileError = e instanceof FileError;
    }
    clearInterval(timer);
    process.stdout.write(JSON.stringify(out));
  `;
  // A file, not --eval: a worker inherits the process's flags, and --input-type is not one a worker takes.
  const file = join(dir, `read-${format}-${n}.mjs`);
  writeFileSync(file, script);
  return JSON.parse(execFileSync(process.execPath, [file], { cwd: root, maxBuffer: 16 * 1024 * 1024 }).toString()) as Outcome;
}

/** Reads three files of `n` people at once (dist), in a process of its own: when each reader got its first row and its last. */
function readThreeAtOnce(n: number): { first: number; done: number; rows: number }[] {
  const script = `
    import { Readable } from 'node:stream';
    import { wholeFileRows } from ${JSON.stringify(join(root, 'dist/src/modules/imports/whole-file-reader.js'))};
    const text = JSON.stringify(Array.from({ length: ${n} }, (_, i) => ({ ExternalID: 'E' + i, Description: 'x'.repeat(300) })));
    const t0 = performance.now();
    const one = async () => {
      const out = { first: -1, done: -1, rows: 0 };
      for await (const row of wholeFileRows('json', Readable.from([Buffer.from(text)]), 'urn:pms:v4', 16 * 1024 * 1024)) {
        if (out.rows++ > 0) continue;
        out.first = performance.now() - t0;
        // A slow reader (a job writing its rows): its worker, and its place, are held meanwhile.
        await new Promise((r) => setTimeout(r, 1000));
      }
      out.done = performance.now() - t0;
      return out;
    };
    process.stdout.write(JSON.stringify(await Promise.all([one(), one(), one()])));
  `;
  const file = join(dir, `three-${n}.mjs`);
  writeFileSync(file, script);
  return JSON.parse(execFileSync(process.execPath, [file], { cwd: root }).toString()) as { first: number; done: number; rows: number }[];
}

describe('an import’s whole JSON or XML file is parsed off the event loop (compiled service)', () => {
  it('runs at most two parse workers at once: a third file waits until one of the first two has been read whole', () => {
    const runs = readThreeAtOnce(20_000);
    expect(runs.map((r) => r.rows)).toEqual([20_000, 20_000, 20_000]);
    const [a, b, c] = [...runs].sort((x, y) => x.first - y.first);
    expect(c.first).toBeGreaterThanOrEqual(Math.min(a.done, b.done));
  }, 120_000);

  it.each(['xml', 'json'] as const)(
    '%s: 30,000 people (about 13 MB) come back whole and in order while the event loop keeps turning',
    (format) => {
      const out = read(format, 30_000);
      expect(out.error).toBeNull();
      expect(out.rows).toBe(30_000);
      const person = { ExternalID: 'E0', FirstName: 'Ada0', LastName: 'Lovelace', UserName: 'ada.0', UserEmail: null, PrimaryTitle: 'Analyst of engines 0' };
      expect(out.first).toMatchObject({ line: 1, problem: null, record: person });
      expect(out.last).toMatchObject({ line: 30_000, record: { ExternalID: 'E29999' } });
      // Parsed on the service's own thread, the timer cannot turn before the first row (0 turns: the
      // parse is one synchronous block); in the worker it turns every 5 ms of the parse (about 40
      // times for the JSON file, 300 for the XML one, on the development machine).
      expect(out.turnsBeforeFirstRow).toBeGreaterThanOrEqual(5);
    },
    120_000,
  );

  it('a malformed XML file fails as the file’s problem (FileError), from the worker', () => {
    const out = read('xml', 100, { corrupt: true });
    expect(out).toMatchObject({ rows: 0, fileError: true });
    expect(out.error).toMatch(/^Malformed XML/);
  }, 60_000);

  it('a file that needs more memory than the worker’s heap fails as the file’s problem, and the process lives on', () => {
    const out = read('xml', 30_000, { heapMb: 16 });
    expect(out).toMatchObject({ rows: 0, fileError: true });
    expect(out.error).toMatch(/needs more than 16 MiB of memory to be read whole: send it as CSV or NDJSON/);
  }, 120_000);
});
