/** The audit trail's and delta sync's answers as the e2e tests read them (docs/audit.md, docs/delta-sync.md). */
export interface AuditEntry {
  Seq: number;
  Kind: string;
  RowID: string;
  Action: string;
  Changes: { Field: string; Before: string | null; After: string | null; Secret: boolean }[];
  ActorID: string | null;
  ActorKind: string;
  ActorName: string | null;
  RequestID: string | null;
  At: string;
}

export interface SyncEntry {
  ID: string;
  Deleted: boolean;
  Updated: string;
  Seq: number;
  Record: Record<string, unknown> | null;
}

/** A tiny seeded generator, so a failing sequence can be run again. */
export function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}
