/** What the chunker hands its chunks to: pino's sonic-boom destination (or a test's fake). */
export interface ChunkTarget {
  write(chunk: string): unknown;
  flush(cb?: (err?: Error) => void): void;
  flushSync(): void;
}

/**
 * Gathers log lines into chunks of at least `minChunk` bytes and hands each chunk to the
 * target as one string, so stdout gets one write system call per chunk instead of one per line
 * (docs/performance.md, "Log lines in chunks"). Lines that came within `flushMs` and make less
 * than a chunk are handed on and flushed by a timer.
 *
 * The target (pino's sonic-boom, with `minLength` = `minChunk`) writes a chunk at once and keeps
 * anything shorter for its flush. It could gather the lines itself, but it appends each line to
 * one growing string and measures that string's UTF-8 length on every write, which makes V8 copy
 * the whole pending chunk once per line: at 32 KiB chunks, ~14 KB of garbage per access-log line.
 * Here a line is pushed onto an array and the chunk is joined once.
 *
 * Nothing is lost: `flushSync` (process exit) and `flush` (before a deliberate exit) hand on what
 * is pending first; being shorter than a chunk it stays in the target's buffer for that flush.
 */
export class LineChunker {
  private lines: string[] = [];
  private size = 0;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly target: ChunkTarget,
    private readonly minChunk: number,
    flushMs: number,
  ) {
    if (flushMs > 0) {
      this.timer = setInterval(() => {
        this.pass();
        this.target.flush();
      }, flushMs);
      this.timer.unref();
    }
  }

  /** pino's destination interface: one serialised line, newline included. */
  write(line: string): boolean {
    this.lines.push(line);
    this.size += Buffer.byteLength(line);
    if (this.size >= this.minChunk) this.pass();
    return true;
  }

  /** Hands what is pending to the target as one chunk. */
  pass(): void {
    if (this.lines.length === 0) return;
    const chunk = this.lines.length === 1 ? this.lines[0] : this.lines.join('');
    this.lines = [];
    this.size = 0;
    this.target.write(chunk);
  }

  flush(cb?: (err?: Error) => void): void {
    this.pass();
    this.target.flush(cb);
  }

  /**
   * Writes everything out now (process exit). The target's own pending bytes go first; the
   * lines pending here are less than a chunk, so the target keeps them for its synchronous flush
   * instead of starting an asynchronous write.
   */
  flushSync(): void {
    this.target.flushSync();
    this.pass();
    this.target.flushSync();
  }

  /** Stops the periodic pass (tests); what is pending stays until the next write or flush. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
