/**
 * The bulk limit's statement (issue 50), shared by the yardstick (bench/raw-server.ts) and
 * bench/insert-protocols.ts: people's individual rows upserted by (site_id, external_id), BULK_CHUNK
 * rows a multi-row INSERT, each INSERT its own transaction.
 */

/** The bulk limit's chunk: rows per multi-row INSERT, each INSERT its own transaction. */
export const BULK_CHUNK = 500;
const BULK_COLUMNS = '(id, site_id, created, updated, first_name, last_name, email, primary_organization_id, primary_title, external_id)';
/** Upserts `rows` rows (10 values each, in BULK_COLUMNS' order) by (site_id, external_id): MariaDB/MySQL and SQLite spell it differently. */
export const UPSERT = (rows: number, sqlite: boolean) =>
  `INSERT INTO individuals ${BULK_COLUMNS} VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} ` +
  (sqlite
    ? 'ON CONFLICT (site_id, external_id) DO UPDATE SET updated = excluded.updated, first_name = excluded.first_name, last_name = excluded.last_name, ' +
      'email = excluded.email, primary_organization_id = excluded.primary_organization_id, primary_title = excluded.primary_title, version = version + 1'
    : 'ON DUPLICATE KEY UPDATE updated = VALUES(updated), first_name = VALUES(first_name), last_name = VALUES(last_name), email = VALUES(email), ' +
      'primary_organization_id = VALUES(primary_organization_id), primary_title = VALUES(primary_title), version = version + 1');

/** A person as the bulk limit takes them (the bulk route's Record fields it writes). */
export interface BulkPerson {
  ExternalID: string;
  FirstName: string;
  LastName: string;
  Email?: string | null;
  PrimaryOrganizationID?: string | null;
  PrimaryTitle?: string | null;
}

/** A person's 10 values, in BULK_COLUMNS' order. */
export function upsertValues(id: string, site: string, now: Date, p: BulkPerson): unknown[] {
  return [id, site, now, now, p.FirstName, p.LastName, p.Email ?? null, p.PrimaryOrganizationID ?? null, p.PrimaryTitle ?? null, p.ExternalID];
}
