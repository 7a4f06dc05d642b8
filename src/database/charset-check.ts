import type { DataSource } from 'typeorm';

/**
 * The start-up check of the character set (docs/operations.md, "Character set"): on MySQL/MariaDB
 * every text column of the schema must be utf8mb4, the only charset that holds every character a
 * client may send. Migration 1732000001600 converts the tables; a table or column changed back by
 * hand, or a schema the migration could not convert, stops the service with one line that says
 * what to run, instead of answering 500 to the first emoji.
 */
export class SchemaCharsetError extends Error {
  /** Logged without a stack trace (json-logger.ts): the message says what to run. */
  readonly expected = true;
}

export async function assertUtf8mb4(ds: DataSource): Promise<void> {
  const type = ds.options.type;
  if (type !== 'mysql' && type !== 'mariadb') return;
  const rows = (await ds.query(
    'SELECT c.TABLE_NAME AS t, c.COLUMN_NAME AS c, c.CHARACTER_SET_NAME AS cs FROM information_schema.COLUMNS c' +
      " JOIN information_schema.TABLES tb ON tb.TABLE_SCHEMA = c.TABLE_SCHEMA AND tb.TABLE_NAME = c.TABLE_NAME AND tb.TABLE_TYPE = 'BASE TABLE'" +
      " WHERE c.TABLE_SCHEMA = DATABASE() AND c.CHARACTER_SET_NAME IS NOT NULL AND c.CHARACTER_SET_NAME <> 'utf8mb4' ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION",
  )) as { t: string; c: string; cs: string }[];
  const [{ connection }] = (await ds.query('SELECT @@character_set_connection AS connection')) as { connection: string }[];
  if (connection !== 'utf8mb4') {
    throw new SchemaCharsetError(`the database connection uses the character set ${connection}, not utf8mb4; check the server's character_set_* settings`);
  }
  if (!rows.length) return;
  const tables = [...new Set(rows.map((r) => r.t))];
  const [{ db }] = (await ds.query('SELECT DATABASE() AS db')) as { db: string }[];
  throw new SchemaCharsetError(
    `${rows.length} text column(s) of database "${db}" are not utf8mb4 (${rows
      .slice(0, 3)
      .map((r) => `${r.t}.${r.c} is ${r.cs}`)
      .join(', ')}${rows.length > 3 ? ', …' : ''}) and cannot hold every character; convert them with: ` +
      tables.map((t) => `ALTER TABLE \`${t}\` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;`).join(' '),
  );
}
