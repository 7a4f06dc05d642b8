import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The indexes behind the fields of the API token list, which takes `filter=` and `sort=`
 * (docs/queries.md): each starts with site_id, then the field, so a filter on it reads only the
 * index entries it selects and a sort on it walks the index in order and stops after the page.
 * Created (the list's own order, newest first), Expires, LastUsed and Revoked; Name had
 * ix_api_tokens_site_name and ID is the primary key. The secret's hash is in no list index: it is
 * no field of the list (ux_api_tokens_secret_hash serves the sign-in alone).
 * An index built beforehand with these columns (Galera RSU, docs/scaling.md) is found and kept.
 */
const INDEXES: readonly { table: string; name: string; columns: string[] }[] = [
  { table: 'api_tokens', name: 'ix_api_tokens_site_created', columns: ['site_id', 'created'] },
  { table: 'api_tokens', name: 'ix_api_tokens_site_expires', columns: ['site_id', 'expires'] },
  { table: 'api_tokens', name: 'ix_api_tokens_site_last_used', columns: ['site_id', 'last_used'] },
  { table: 'api_tokens', name: 'ix_api_tokens_site_revoked', columns: ['site_id', 'revoked'] },
];

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export class ApiTokenListQueryIndexes1732000003110 implements MigrationInterface {
  name = 'ApiTokenListQueryIndexes1732000003110';

  async up(q: QueryRunner): Promise<void> {
    for (const { table, name, columns } of INDEXES) {
      const found = (await q.getTable(table))?.indices.find((i) => i.name === name);
      if (found && same(found.columnNames, columns)) continue;
      if (found) await q.dropIndex(table, name);
      await q.createIndex(table, new TableIndex({ name, columnNames: columns }));
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { table, name } of [...INDEXES].reverse()) await q.dropIndex(table, name);
  }
}
