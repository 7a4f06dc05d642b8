import { keepRenders } from './codec.js';

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

interface Entry {
  id: string;
  /** The memo whose record this is. */
  memo: RecordMemo<object>;
  row: object;
  variant: MemoVariant;
  value: object;
  /** Read since it last reached the front of the eviction order (second chance). */
  used: boolean;
}

/** What a read builds its answers with: a record memo, or BUILD_ONLY. */
export interface Answers<T extends object> {
  /** The answer of this row and variant: kept, or the one `build` makes. */
  answer(id: string, row: object, variant: MemoVariant, build: () => T): T;
}

/**
 * Answers built and never kept: what a request that reads each record once uses (a streamed
 * export, RequestContext.readsOnce). Keeping its records would cost time for nothing and push out
 * of the memo the records that ordinary reads find there again.
 */
export const BUILD_ONLY: Answers<never> = Object.freeze({ answer: <T>(_id: string, _row: object, _variant: MemoVariant, build: () => T): T => build() });

/**
 * The records of every memo of one database (TenantDb), under one bound: `capacity()` records in
 * all, whatever their kind (RECORD_MEMO, read on every insert; 0 keeps nothing). One eviction order
 * runs through all of them, oldest first, so the memory the memos take is bounded by one number
 * however many kinds there are.
 */
export class MemoStore {
  /** Every kept record, in eviction order (a Set keeps insertion order): the oldest first. */
  readonly order = new Set<Entry>();
  readonly memos: RecordMemo<object>[] = [];
  /**
   * The records refused while the store was full, by memo and id, the oldest first, at most
   * `capacity()` of them: one read again while still here is let in (admission on a second read).
   */
  readonly refused = new Set<string>();

  constructor(readonly capacity: () => number) {}

  get size(): number {
    return this.order.size;
  }
}

/**
 * The answers built from rows of one kind, kept by record id for as long as a read brings back
 * exactly the same row (every listed column equal, dates by instant) for the same `variant` (the
 * part of the answer its row does not hold, compared with ===: the caller's rights, a joined name). A read still reads the row every time:
 * the memo only skips building the answer again, and with it the codec skips rendering it again
 * (the answer is frozen and keeps its rendered texts, src/http/wire/codec.ts). A changed row is
 * simply a miss, so there is nothing to invalidate and nothing can be stale.
 *
 * Bounded with the other memos of its store (MemoStore; a capacity function gives it a store of
 * its own): past the store's capacity the records not read for longest leave first, whatever
 * their kind (second-chance order, an approximation of LRU whose reads cost a flag instead of a
 * reordering). A full store lets a record in on its second read only (MemoStore.refused), so
 * records read once each do not push out those read again.
 */
export class RecordMemo<T extends object> implements Answers<T> {
  private readonly entries = new Map<string, Entry>();
  private readonly store: MemoStore;
  private readonly same: SameRow;
  /** This memo's prefix in its store's `refused` keys. */
  private readonly tag: string;
  hits = 0;
  misses = 0;

  constructor(kind: MemoKind, store: MemoStore | (() => number)) {
    this.store = typeof store === 'function' ? new MemoStore(store) : store;
    this.tag = `${this.store.memos.length}:`;
    this.store.memos.push(this as RecordMemo<object>);
    this.same = sameRowOf(kind.columns);
  }

  /** The records of this kind kept. */
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
    return entry.value as T;
  }

  /** Keeps `value` as the answer of this row and variant; answers it, frozen. */
  set(id: string, row: object, variant: MemoVariant, value: T): T {
    const store = this.store;
    const max = store.capacity();
    if (max <= 0) {
      for (const memo of store.memos) memo.entries.clear();
      store.order.clear();
      store.refused.clear();
      return value;
    }
    const old = this.entries.get(id);
    if (old === undefined && store.order.size >= max && !this.admitted(id, max)) return value;
    Object.freeze(value);
    keepRenders(value);
    if (old) store.order.delete(old);
    const entry: Entry = { id, memo: this as RecordMemo<object>, row, variant, value, used: false };
    this.entries.set(id, entry);
    store.order.add(entry);
    // Second chance: from the oldest, a record read since it was kept (or last spared) goes to the
    // back once; the first one not read leaves its memo. Reads then only set a flag.
    while (store.order.size > max) {
      const oldest = store.order.values().next().value as Entry;
      store.order.delete(oldest);
      if (oldest.used) {
        oldest.used = false;
        store.order.add(oldest);
      } else {
        oldest.memo.entries.delete(oldest.id);
      }
    }
    return value;
  }

  /**
   * Whether a record not kept may take a kept one's place in a full store: only when it was refused
   * once already, recently (among the last `max` refused). So a read of each record once (a sync
   * walking every person, a scan of more records than the store holds, over and over) does not
   * push out the records that are read again, and a record read twice gets in.
   */
  private admitted(id: string, max: number): boolean {
    const refused = this.store.refused;
    const key = this.tag + id;
    if (refused.delete(key)) return true;
    refused.add(key);
    if (refused.size > max) refused.delete(refused.values().next().value as string);
    return false;
  }

  /** The kept answer of this row and variant, or the one `build` makes, kept (`get`, then `set`). */
  answer(id: string, row: object, variant: MemoVariant, build: () => T): T {
    return this.get(id, row, variant) ?? this.set(id, row, variant, build());
  }

  /** Forgets the records of this kind (those of the store's other memos stay). */
  clear(): void {
    for (const entry of this.entries.values()) this.store.order.delete(entry);
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
