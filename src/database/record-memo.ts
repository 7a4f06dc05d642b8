import { keepRenders } from '../common/http/codec.js';

/**
 * What a record memo compares: the columns of the row its answer is built from
 * (docs/performance.md, "Record memo"). Every column the answer reads must be listed. The kind
 * object itself identifies the memo (TenantDb.memo).
 */
export interface MemoKind {
  readonly columns: readonly string[];
}

type SameRow = (a: object, b: object) => boolean;

/** The caller- or join-dependent part of an answer that its row does not hold (rights, a joined name). */
export type MemoVariant = number | string;

interface Entry<T> {
  row: object;
  variant: MemoVariant;
  value: T;
  /** Read since it last reached the front of the eviction order (second chance). */
  used: boolean;
}

/**
 * The answers built from rows of one kind, kept by record id for as long as a read brings back
 * exactly the same row (every listed column equal, dates by instant) for the same `variant` (the
 * part of the answer its row does not hold, compared with ===: the caller's rights, a joined name). A read still reads the row every time:
 * the memo only skips building the answer again, and with it the codec skips rendering it again
 * (the answer is frozen and keeps its rendered texts, src/common/http/codec.ts). A changed row is
 * simply a miss, so there is nothing to invalidate and nothing can be stale.
 *
 * Bounded: once `capacity()` is reached (read on every insert, RECORD_MEMO; 0 keeps nothing) the
 * records not read for longest leave first (second-chance order, an approximation of LRU whose
 * reads cost a flag instead of a reordering).
 */
export class RecordMemo<T extends object> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly same: SameRow;
  hits = 0;
  misses = 0;

  constructor(
    kind: MemoKind,
    private readonly capacity: () => number,
  ) {
    this.same = sameRowOf(kind.columns);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The answer built last time from this very row with this variant, or undefined. */
  get(id: string, row: object, variant: MemoVariant): T | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.variant !== variant || !this.same(entry.row, row)) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    entry.used = true;
    return entry.value;
  }

  /** Keeps `value` as the answer of this row and variant; answers it, frozen. */
  set(id: string, row: object, variant: MemoVariant, value: T): T {
    const max = this.capacity();
    if (max <= 0) {
      this.entries.clear();
      return value;
    }
    Object.freeze(value);
    keepRenders(value);
    this.entries.delete(id);
    this.entries.set(id, { row, variant, value, used: false });
    // Second chance: from the oldest, a record read since it was kept (or last spared) goes to the
    // back once; the first one not read is dropped. Reads then only set a flag.
    while (this.entries.size > max) {
      const [oldest, entry] = this.entries.entries().next().value as [string, Entry<T>];
      this.entries.delete(oldest);
      if (entry.used) {
        entry.used = false;
        this.entries.set(oldest, entry);
      }
    }
    return value;
  }

  /** The kept answer of this row and variant, or the one `build` makes, kept (`get`, then `set`). */
  answer(id: string, row: object, variant: MemoVariant, build: () => T): T {
    return this.get(id, row, variant) ?? this.set(id, row, variant, build());
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * The row comparison of a kind, compiled once: one strict comparison per column (dates by their
 * instant). The generated source holds only the declared column names, JSON-quoted.
 */
function sameRowOf(columns: readonly string[]): SameRow {
  const checks = columns.map((c) => {
    const k = JSON.stringify(c);
    return `((x = a[${k}]) === (y = b[${k}]) || same(x, y))`;
  });
  const same = (x: unknown, y: unknown) => x instanceof Date && y instanceof Date && x.getTime() === y.getTime();
  return new Function('same', `return function sameRow(a, b) { let x, y; return ${checks.join(' && ') || 'true'}; };`)(same) as SameRow;
}
