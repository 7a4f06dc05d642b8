import { DB_KIND, TestApp } from './harness.js';

/** Every row of one site, table by table, as the database stores it (for "nothing changed" checks). */
export type SiteRows = Record<string, unknown[]>;

/**
 * Reads the site's row of `sites` and every row with its `site_id` from every table of the
 * database that has that column — found in the catalog, not in the entity list, so a table added
 * by a migration is covered without touching this helper. Rows come as the driver answers them,
 * ordered by every column, so two reads compare equal exactly when nothing changed.
 */
export async function siteRows(t: TestApp, siteId: string): Promise<SiteRows> {
  const q = (name: string) => t.ds.driver.escape(name);
  const rows: SiteRows = { sites: await t.ds.query(`SELECT * FROM ${q('sites')} WHERE ${q('id')} = ?`, [siteId]) };
  for (const [table, columns] of Object.entries(await tenantTables(t))) {
    const order = columns.map((c, i) => `${i + 1}`).join(', ');
    rows[table] = await t.ds.query(`SELECT ${columns.map(q).join(', ')} FROM ${q(table)} WHERE ${q('site_id')} = ? ORDER BY ${order}`, [siteId]);
  }
  return rows;
}

/**
 * Columns the service moves on its own after a commit, whoever made it: a webhook's delivery state
 * (the dispatcher passes its cursor over the site's events a few milliseconds after they commit,
 * docs/events.md). Left out of the rows, so "the site's rows did not change" means its records.
 */
const SERVICE_STATE: Readonly<Record<string, readonly string[]>> = {
  webhooks: ['cursor_seq', 'failing_since', 'attempts', 'next_attempt', 'lease_owner', 'lease_until'],
};

/** Tables that are wholly the service's state: the dashboard summaries, rebuilt after each commit (docs/dashboards.md). */
const SERVICE_TABLES: readonly string[] = ['dashboard_summaries', 'dashboard_summary_state'];

/** The tables with a `site_id` column and their columns (but the service's own state), in catalog order. */
async function tenantTables(t: TestApp): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  if (DB_KIND === 'mysql') {
    const cols: { t: string; c: string }[] = await t.ds.query(
      'SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = DATABASE() ORDER BY table_name, ordinal_position',
    );
    for (const { t: table, c } of cols) (out[table] ??= []).push(c);
  } else {
    const tables: { name: string }[] = await t.ds.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
    for (const { name } of tables) out[name] = ((await t.ds.query(`PRAGMA table_info(${t.ds.driver.escape(name)})`)) as { name: string }[]).map((c) => c.name);
  }
  for (const table of Object.keys(out)) if (!out[table].includes('site_id') || SERVICE_TABLES.includes(table)) delete out[table];
  for (const [table, columns] of Object.entries(SERVICE_STATE)) if (out[table]) out[table] = out[table].filter((c) => !columns.includes(c));
  return out;
}

/** Every guid that occurs in the rows (ids of the site's records, its users, its site). */
export function guidsOf(rows: SiteRows): Set<string> {
  const found = new Set<string>();
  const re = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
  for (const list of Object.values(rows)) for (const m of JSON.stringify(list).matchAll(re)) found.add(m[0].toLowerCase());
  return found;
}
