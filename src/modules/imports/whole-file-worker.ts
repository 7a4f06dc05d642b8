import { parentPort, workerData } from 'node:worker_threads';
import { FileError, parseWholeFile, type FileRow } from './whole-file.js';

/**
 * An import's parse worker (whole-file-reader.ts): parses one whole JSON or XML file off the
 * service's event loop, then answers each message of its reader with the next batch of rows.
 */
export interface WholeFileWorkerData {
  format: 'json' | 'xml';
  /** The file, UTF-8 (transferred, not copied). */
  bytes: Uint8Array;
  namespace: string;
  batch: number;
}

/** One answer: the next rows (`done` with the last), or why the file cannot be read (`file`: the file's fault, a FileError). */
export type WholeFileAnswer = { rows: FileRow[]; done: boolean } | { error: string; file: boolean };

const data = workerData as WholeFileWorkerData;
const port = parentPort!;
const text = Buffer.from(data.bytes.buffer, data.bytes.byteOffset, data.bytes.byteLength).toString('utf8');
const parsed: Promise<FileRow[]> = parseWholeFile(data.format, text, data.namespace);
// Its failure is answered to the next message; until then it is no unhandled rejection (which would end the worker).
parsed.catch(() => undefined);
let next = 0;

port.on('message', () => {
  parsed.then(
    (rows) => {
      const part = rows.slice(next, next + data.batch);
      next += part.length;
      port.postMessage({ rows: part, done: next >= rows.length } satisfies WholeFileAnswer);
    },
    (e: Error) => port.postMessage({ error: e.message, file: e instanceof FileError } satisfies WholeFileAnswer),
  );
});
