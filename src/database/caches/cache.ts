/**
 * What every cache of the data floor is, seen from outside (docs/performance.md, "Caches"): data
 * read from the database and reused for a bounded time — the callers (CallerCache: accounts,
 * rights, reports, an issuer's identity providers) and list totals (ListTotals). Each keeps data,
 * never rendered HTTP text (the record memo, which keeps an answer's texts, is the wire floor's:
 * src/http/wire/record-memo.ts). A write invalidates what it changes by itself, here and through
 * the InvalidationBus on the other replicas; `clear` forgets everything, `entries` says how much is
 * kept (tests, diagnosis).
 */
export interface Cache {
  /** What it keeps, for logs and tests. */
  readonly name: string;
  /** How many entries it keeps now. */
  entries(): number;
  /** Forgets everything it keeps in this process. */
  clear(): void;
}
