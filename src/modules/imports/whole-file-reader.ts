import type { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { compiledWorker } from '../../common/tasks/compiled-worker.js';
import pLimit from 'p-limit';
import { FileError, parseWholeFile, type FileRow } from './whole-file.js';
import type { WholeFileAnswer, WholeFileWorkerData } from './whole-file-worker.js';

/** Rows a message of the parse worker carries. */
const BATCH = 500;
/**
 * The parse worker's heap (V8's old space), in MiB: a file that needs more to be read fails as the
 * file's problem instead of taking the replica's memory. The densest 16 MiB XML file of people the
 * scan limits let through (176,714 people of eight one-letter elements) is read within 384 MiB (its
 * process peaked at 483 MB of RSS) and not within 256; with the service's own 200–400 MB a replica
 * stays under the 1 GiB of its pod (deploy/k8s).
 */
export const PARSE_WORKER_HEAP_MB = 384;

/**
 * Parse workers a replica runs at once; a file beyond them waits its turn. Each may take up to
 * PARSE_WORKER_HEAP_MB while it is read (a job's file for the whole job), and uploads of several
 * sites may be checked at once. A replica processes one job at a time, so one place is always left
 * for the uploads' checks, which hold theirs for a few seconds.
 */
export const PARSE_WORKERS_AT_ONCE = 2;
const workers = pLimit(PARSE_WORKERS_AT_ONCE);

/** A place among the parse workers (PARSE_WORKERS_AT_ONCE), once one is free; held until the answer is called. */
function place(): Promise<() => void> {
  return new Promise((taken) => {
    void workers(() => new Promise<void>((release) => taken(release)));
  });
}

async function wholeBytes(source: Readable, maxBytes: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of source) {
    n += (c as Buffer).length;
    if (n > maxBytes) throw new FileError(`A JSON or XML file is read whole: at most ${maxBytes / 1024 / 1024} MiB (send larger files as CSV or NDJSON)`);
    chunks.push(c as Buffer);
  }
  // A buffer of its own (not a slice of Node's pool): its memory moves to the worker.
  const bytes = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

/** The worker's next answer; an error or exit before it is the worker's failure. */
function ask(worker: Worker): Promise<WholeFileAnswer> {
  return new Promise((resolve, reject) => {
    const done = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (m: WholeFileAnswer) => {
      done();
      resolve(m);
    };
    const onError = (e: Error) => {
      done();
      reject(e);
    };
    const onExit = (code: number) => {
      done();
      reject(new Error(`the import's parse worker exited with code ${code}`));
    };
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.postMessage('next');
  });
}

/**
 * The rows of a whole JSON or XML file (docs/imports.md, "JSON and XML off the event loop"): read
 * into memory (at most `maxBytes`), then checked and parsed by a worker thread, which hands the rows
 * over BATCH at a time as they are asked for, so the replica's event loop keeps answering requests
 * while a 16 MiB file is parsed; at most PARSE_WORKERS_AT_ONCE at a time. A file whose parse needs more than PARSE_WORKER_HEAP_MB fails as
 * too large. In-process where there is no compiled worker (the TypeScript sources under test).
 */
export async function* wholeFileRows(
  format: 'json' | 'xml',
  source: Readable,
  namespace: string,
  maxBytes: number,
  heapMb = PARSE_WORKER_HEAP_MB,
): AsyncGenerator<FileRow> {
  const bytes = await wholeBytes(source, maxBytes);
  const script = compiledWorker('./whole-file-worker.js', import.meta.url);
  if (!script) {
    yield* await parseWholeFile(format, Buffer.from(bytes.buffer, 0, bytes.byteLength).toString('utf8'), namespace);
    return;
  }
  const release = await place();
  let worker: Worker | null = null;
  try {
    const data: WholeFileWorkerData = { format, bytes, namespace, batch: BATCH };
    worker = new Worker(script, { workerData: data, transferList: [bytes.buffer as ArrayBuffer], resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    for (;;) {
      let answer: WholeFileAnswer;
      try {
        answer = await ask(worker);
      } catch (e) {
        if ((e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
          throw new FileError(`The file needs more than ${heapMb} MiB of memory to be read whole: send it as CSV or NDJSON`);
        throw e;
      }
      if ('error' in answer) throw answer.file ? new FileError(answer.error) : new Error(answer.error);
      yield* answer.rows;
      if (answer.done) return;
    }
  } finally {
    await worker?.terminate();
    release();
  }
}
