/** A check's answer kept for the rest of a transaction (TenantDb.remembered). */
export interface MemoEntry {
  /** The table it was read from (lower case). */
  table: string;
  value: Promise<unknown>;
  /** It depends on this one row of the table only. */
  row?: string;
  /**
   * It is the set of the table's rows whose column `by` has one value (a person's memberships):
   * `ids` once it is read. A write by id of another row that leaves `by` alone does not change it.
   */
  rows?: { by: string; ids: Set<string> | null };
}

/** A write of one row by its id, announced by the repository (TenantDb.writingRow). */
export interface RowWrite {
  sql: string;
  table: string;
  id: string;
  /** An INSERT (a new row: it may join any set), or an UPDATE setting these columns. */
  insert: boolean;
  columns: readonly string[];
}

/** The entries of one table, indexed by what a write of one row may change (see `KeptChecks.forget`). */
interface TableChecks {
  /** Every entry of the table. */
  keys: Set<string>;
  /** Entries that depend on one row (`row`), by that row's id. */
  byRow: Map<string, Set<string>>;
  /** Set entries (`rows`), all of them. */
  sets: Set<string>;
  /** Set entries by the column that chooses them (`rows.by`). */
  setsBy: Map<string, Set<string>>;
  /** Set entries whose ids are known, by each of their ids. */
  byMember: Map<string, Set<string>>;
  /** Set entries whose ids are not known yet, and entries that depend on the whole table. */
  whole: Set<string>;
}

function add(index: Map<string, Set<string>>, at: string, key: string): void {
  let keys = index.get(at);
  if (!keys) index.set(at, (keys = new Set()));
  keys.add(key);
}

function remove(index: Map<string, Set<string>>, at: string, key: string): void {
  const keys = index.get(at);
  if (!keys) return;
  keys.delete(key);
  if (keys.size === 0) index.delete(at);
}

/**
 * Puts `key` in the indexes of `t` that `entry` belongs in (`put`), or takes it out of them. A set
 * whose ids are known is in `byMember`, one whose ids are not yet in `whole` (`KeptChecks.known`
 * moves it from one to the other).
 */
function index(t: TableChecks, key: string, entry: MemoEntry, put: boolean): void {
  const mark = put ? add : remove;
  const member = (keys: Set<string>) => (put ? keys.add(key) : keys.delete(key));
  member(t.keys);
  if (entry.row !== undefined) mark(t.byRow, entry.row, key);
  else if (entry.rows) {
    member(t.sets);
    mark(t.setsBy, entry.rows.by, key);
    if (entry.rows.ids) for (const id of entry.rows.ids) mark(t.byMember, id, key);
    else member(t.whole);
  } else member(t.whole);
}

/**
 * The checks' answers a transaction keeps (TxJournal.memo, TenantDb.remembered), indexed so that a
 * write of one row drops what it may change without looking at the others: in a bulk chunk, each
 * of hundreds of items writes its rows while hundreds of checks read ahead are kept, and a scan of
 * them all at every write made the chunk's cost grow with the square of its items
 * (docs/bulk.md, "Cost").
 *
 * A write drops (the rule `forget` keeps, as before):
 * - of a table written other than by one row's id (or a statement that cannot be told): every entry;
 * - of one row by its id: the entries that depend on that row (`row`); the sets (`rows`) that hold
 *   it, that are chosen by a column the write sets, or all the table's sets when it is a new row
 *   (it may join any); sets whose ids are not known yet; and every entry that depends on the
 *   whole table.
 */
export class KeptChecks {
  private readonly entries = new Map<string, MemoEntry>();
  private readonly tables = new Map<string, TableChecks>();

  get size(): number {
    return this.entries.size;
  }

  get(key: string): MemoEntry | undefined {
    return this.entries.get(key);
  }

  set(key: string, entry: MemoEntry): void {
    if (this.entries.has(key)) this.delete(key);
    this.entries.set(key, entry);
    index(this.table(entry.table), key, entry, true);
  }

  /** Sets the ids of the set entry `key` once its answer is read (while it is still the entry kept under `key`). */
  known(key: string, entry: MemoEntry, ids: Set<string>): void {
    if (!entry.rows) return;
    entry.rows.ids = ids;
    // An entry of one row is dropped by that row alone, whatever set it also names.
    if (this.entries.get(key) !== entry || entry.row !== undefined) return;
    const t = this.table(entry.table);
    t.whole.delete(key);
    for (const id of ids) add(t.byMember, id, key);
  }

  delete(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.entries.delete(key);
    const t = this.tables.get(entry.table)!;
    index(t, key, entry, false);
    if (t.keys.size === 0) this.tables.delete(entry.table);
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.tables.clear();
  }

  /** Drops what a write of the `written` tables (null: cannot be told) may have changed; `row`: it writes that one row by its id. */
  forget(written: readonly string[] | null, row?: RowWrite): void {
    if (!written) return this.clear();
    for (const table of written) {
      const t = this.tables.get(table);
      if (!t) continue;
      if (!row) {
        for (const key of t.keys) this.entries.delete(key);
        this.tables.delete(table);
        continue;
      }
      const doomed = new Set<string>(t.whole);
      for (const key of t.byRow.get(row.id) ?? []) doomed.add(key);
      if (row.insert) for (const key of t.sets) doomed.add(key);
      else {
        for (const key of t.byMember.get(row.id) ?? []) doomed.add(key);
        for (const column of row.columns) for (const key of t.setsBy.get(column) ?? []) doomed.add(key);
      }
      for (const key of doomed) this.delete(key);
    }
  }

  private table(name: string): TableChecks {
    let t = this.tables.get(name);
    if (!t) this.tables.set(name, (t = { keys: new Set(), byRow: new Map(), sets: new Set(), setsBy: new Map(), byMember: new Map(), whole: new Set() }));
    return t;
  }
}
