import type { DataSource } from 'typeorm';

/** The rows SQLite is told a table has, and a site's share of them: planned as if every site were large. */
export const PLANNED_TABLE_ROWS = 1_000_000;
export const PLANNED_SITE_ROWS = 100_000;
/** How much one value of any other indexed column narrows the rows before it. */
const PLANNED_NARROWING = 10;

/**
 * The statistics SQLite's planner reads for one index (a `sqlite_stat1` row): the table's rows,
 * then the rows one value of each leading run of the index's columns matches. `site_id` matches a
 * large site, `deleted` narrows nothing (most rows are live), an `id` or the whole key of a unique
 * index matches one row, and any other column a tenth of the rows before it: a state or a kind
 * among a site's many jobs matches many of them, as it does.
 */
export function plannedIndexStat(columns: readonly string[], unique: boolean): string {
  let rows = PLANNED_TABLE_ROWS;
  const parts = columns.map((column, k) => {
    if ((unique && k === columns.length - 1) || column === 'id') rows = 1;
    else if (column === 'site_id') rows = Math.min(rows, PLANNED_SITE_ROWS);
    else if (column !== 'deleted') rows = Math.max(1, Math.round(rows / PLANNED_NARROWING));
    return rows;
  });
  return [PLANNED_TABLE_ROWS, ...parts].join(' ');
}

/**
 * SQLite plans from fixed statistics, written at every start (docs/performance.md, "Id lists"):
 * without any, or with statistics taken while a site was small, its planner takes `site_id = ?`
 * for a few rows and reads a list of ids by walking the whole site through an index that starts
 * with `site_id` (500 of 3,000 people: 1.2 ms, and 5 of them 0.36 ms instead of 0.01 ms), a cost
 * that grows with the site. Told that a site is large, it reads the ids by the primary key, and
 * plans stay the same whatever the data (SQLite's documented way to fix plans: a hand-written
 * `sqlite_stat1`). Every index in the file gets its row, from its columns (plannedIndexStat); an
 * `ANALYZE` run by hand is replaced at the next start. No-op on MySQL/MariaDB, whose optimizer
 * counts an id list's rows itself (bounded-mysql.ts, IN_LIST_DIVES).
 */
export async function fixPlannerStatistics(ds: DataSource): Promise<void> {
  if (ds.options.type !== 'better-sqlite3') return;
  // Every index of every table with its columns in order, in one statement.
  const columns = (await ds.query(
    `SELECT m.tbl_name AS tbl, l.name AS idx, l."unique" AS uniq, c.name AS col
       FROM sqlite_schema m, pragma_index_list(m.name) l, pragma_index_info(l.name) c
      WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY m.tbl_name, l.name, c.seqno`,
  )) as { tbl: string; idx: string; uniq: number; col: string | null }[];
  const indexes = new Map<string, { tbl: string; unique: boolean; columns: string[] }>();
  for (const r of columns) {
    const index = indexes.get(r.idx) ?? { tbl: r.tbl, unique: r.uniq === 1, columns: [] };
    index.columns.push(r.col ?? '');
    indexes.set(r.idx, index);
  }
  const stats = [...indexes].map(([idx, { tbl, unique, columns: cols }]) => [tbl, idx, plannedIndexStat(cols, unique)]);
  await ds.transaction(async (m) => {
    // ANALYZE of the schema alone creates sqlite_stat1 when missing and reads no table.
    await m.query('ANALYZE sqlite_schema');
    await m.query('DELETE FROM sqlite_stat1');
    for (const row of stats) await m.query('INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)', row);
  });
  // Read again by the planner of this connection (others read them when they open).
  await ds.query('ANALYZE sqlite_schema');
}
