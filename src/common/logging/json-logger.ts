import { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';
import { LineChunker } from './line-chunker.js';

/**
 * Lines are written in chunks of at least this many bytes (or every FLUSH_MS): one write
 * system call per ~150 access-log lines. A 4 KiB chunk cost ~18 µs per request in the by-id
 * profile (docs/performance.md); the pipe buffer of a container runtime holds 64 KiB.
 */
const MIN_CHUNK = 32 * 1024;
const MAX_WRITE = 64 * 1024;
/**
 * Lines waiting for a stdout that is not read (a stalled log shipper) are kept up to this many
 * bytes; later ones are dropped and counted (stdoutSink). About half a minute of access lines at
 * 2,000 requests a second: a reader's pause loses nothing, a reader that is stuck costs 16 MiB.
 */
export const MAX_BUFFERED = 16 * 1024 * 1024;
const FLUSH_MS = 200;
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;

/** Contexts of NestJS's start-up messages ("Mapped {/v4/…, GET} route", "… dependencies initialized"). */
const FRAMEWORK_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);
export type LogLevel = keyof typeof LEVELS;

/**
 * Structured logs: one JSON object per line on stdout, with time (ISO 8601), level (`debug`,
 * `info`, `warn`, `error`), context, msg, and the fields of an event. A line about a request names
 * it with a `requestId` field, given by its writer (the access line, a problem's line, the request
 * deadline's, a transaction's lock conflicts): the id travels with the request and its
 * RequestContext, not in an async-context scope, which would tax every promise of every request.
 *
 * Lines are serialised by pino and written to stdout asynchronously (sonic-boom) in chunks of
 * at least 32 KiB, or every FLUSH_MS when fewer lines came, so the request path neither waits on
 * the stdout pipe nor pays a write per line (stdoutSink, one per process). What is still buffered
 * is written synchronously when the process exits. Tests (and tools) may pass their own `write`
 * sink instead, which is called synchronously with each line (without its newline).
 */
export class JsonLogger implements LoggerService {
  private readonly out: Logger;

  constructor(
    private readonly level: LogLevel = 'info',
    write?: (line: string) => void,
  ) {
    const destination: DestinationStream = write ? { write: (chunk: string) => write(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk) } : stdoutSink();
    this.out = pino(
      {
        level,
        base: undefined,
        messageKey: 'msg',
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
      },
      destination,
    );
  }

  private emit(level: Exclude<LogLevel, 'silent'>, message: unknown, context?: string, extra?: Record<string, unknown>): void {
    if (LEVELS[level] < LEVELS[this.level]) return;
    const entry: Record<string, unknown> = {};
    if (context) entry.context = context;
    if (message instanceof Error) {
      entry.msg = message.message;
      // An error an operator is expected to meet (a database that cannot be set up, say) is a
      // sentence saying what to do: its stack trace would only bury it.
      entry.err = isExpected(message) ? { name: message.name } : { name: message.name, stack: message.stack };
    } else if (typeof message === 'object' && message !== null) {
      Object.assign(entry, message);
    } else {
      entry.msg = String(message);
    }
    if (extra) Object.assign(entry, extra);
    this.out[level](entry);
  }

  /** Nest calls log/error/warn with optional trailing context (and a stack for error). */
  private split(params: unknown[]): { context?: string; stack?: string } {
    const strings = params.filter((p): p is string => typeof p === 'string');
    if (strings.length >= 2) return { stack: strings[0], context: strings[strings.length - 1] };
    return { context: strings[0] };
  }

  log(message: unknown, ...params: unknown[]): void {
    const { context } = this.split(params);
    // The framework's own start-up chatter (every module loaded, every route mapped) is debug:
    // at info the start-up shows the one line that matters (src/main.ts).
    this.emit(context && FRAMEWORK_CONTEXTS.has(context) ? 'debug' : 'info', message, context);
  }
  error(message: unknown, ...params: unknown[]): void {
    const { context, stack } = this.split(params);
    this.emit('error', message, context, stack && !isExpected(message) ? { stack } : undefined);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.emit('warn', message, this.split(params).context);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.emit('debug', message, this.split(params).context);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.emit('debug', message, this.split(params).context);
  }
  /** Logs a structured event: `logger.event('info', 'http', { method, path, status })`. */
  event(level: Exclude<LogLevel, 'silent'>, context: string, fields: Record<string, unknown>): void {
    this.emit(level, fields, context);
  }

  /** Writes out what is buffered (before a deliberate exit; pino also does it on 'exit'). */
  flush(): void {
    this.out.flush();
  }
}

let stdout: LineChunker | undefined;
/** Log lines (and their bytes) stdoutSink dropped since the process started: a stdout nobody read. */
const dropped = { lines: 0, bytes: 0 };

/** How many log lines this process dropped for want of a reader (the `pms_log_dropped_lines_total` metric). */
export function droppedLogLines(): number {
  return dropped.lines;
}

/**
 * The process's one stdout destination, shared by every JsonLogger writing there: lines gathered
 * into chunks (LineChunker) and written by pino's sonic-boom, which waits for nothing on the
 * request path. A reader that stops reading (docs/operations.md, "The log's reader gone or stuck") costs at
 * most MAX_BUFFERED bytes of lines waiting: past it, lines are dropped and counted, and once stdout
 * takes a write again one warning line says how many were lost. A full pipe is retried for about
 * 2 s at a time (sonic-boom waits 100 ms between tries); a reader that is gone (EPIPE) ends the
 * writing for good (pino makes the stream a no-op). At exit, pending lines are handed on first
 * (prepended, so before pino's own exit flush) and written synchronously; when that fails (a broken
 * pipe, or a full one past the retries) they are dropped, so that the process exits. sonic-boom 5
 * is required (package.json `overrides`): 4.x retried an EPIPE in its synchronous flush every
 * 100 ms forever, so such a process never exited.
 */
function stdoutSink(): LineChunker {
  if (stdout) return stdout;
  let eagain = 0;
  // What the last warning line reported of `dropped`: the rest is yet to be reported.
  const reported = { lines: 0, bytes: 0 };
  const boom = pino.destination({
    dest: 1,
    sync: false,
    minLength: MIN_CHUNK,
    maxWrite: MAX_WRITE,
    maxLength: MAX_BUFFERED,
    retryEAGAIN: () => ++eagain <= 20,
  });
  const sink = (stdout = new LineChunker(boom, MIN_CHUNK, FLUSH_MS));
  boom.on('drop', (chunk: string) => {
    dropped.bytes += Buffer.byteLength(chunk);
    for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) dropped.lines++;
  });
  boom.on('write', () => {
    eagain = 0;
    if (dropped.lines === reported.lines) return;
    // Handed to the chunker like any line: it goes out with the lines after it.
    sink.write(droppedLine(dropped.lines - reported.lines, dropped.bytes - reported.bytes));
    Object.assign(reported, dropped);
  });
  boom.on('error', () => (eagain = 0));
  // Only hands lines on (pino's own beforeExit flushes and ends the stream): a flush here would
  // start a write, and with it another beforeExit, every time.
  process.prependListener('beforeExit', () => sink.pass());
  process.prependListener('exit', () => {
    try {
      sink.flushSync();
    } catch {
      // stdout is a broken pipe (EPIPE: its reader went away) or stayed full past the retries:
      // what is buffered cannot be written anywhere. Dropped, so that the process exits (pino's own
      // exit flush passes over a destroyed stream) instead of retrying forever.
      boom.destroy();
    }
  });
  return sink;
}

/** The line that says what a stdout nobody read cost (stdoutSink), in the logger's own shape. */
function droppedLine(lines: number, bytes: number): string {
  return (
    JSON.stringify({
      level: 'warn',
      time: new Date().toISOString(),
      context: 'Log',
      msg: `${lines} log lines (${bytes} bytes) were dropped: stdout was not read while ${MAX_BUFFERED} bytes waited for it`,
      droppedLines: lines,
      droppedBytes: bytes,
    }) + '\n'
  );
}

/** Errors marked `expected: true` are conditions an operator meets and fixes, not bugs. */
function isExpected(e: unknown): boolean {
  return e instanceof Error && (e as { expected?: unknown }).expected === true;
}
