import type { AggregateRow } from './dashboards.statements.js';

/**
 * How a summary is stored (docs/dashboards.md, "Summaries"): a row's `AggregateRow`s — the counts
 * and sums of each source, exactly as the aggregate statement answers them for that row — as a
 * JSON array of `[src, grp, grp2, n, a, b, c, d, e, s]`, so the reader hands `computeFigures` the
 * very numbers a computation from the records would.
 */
type Stored = [AggregateRow['src'], string, string, number, number, number, number, number, number, number];

export function toSums(rows: readonly AggregateRow[]): string {
  return JSON.stringify(rows.map((r): Stored => [r.src, r.grp, r.grp2, r.n, r.a, r.b, r.c, r.d, r.e, r.s]));
}

export function fromSums(root: string, text: string): AggregateRow[] {
  return (JSON.parse(text) as Stored[]).map(([src, grp, grp2, n, a, b, c, d, e, s]) => ({ root, src, grp, grp2, n, a, b, c, d, e, s }));
}
