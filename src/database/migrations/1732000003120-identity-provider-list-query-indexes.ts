import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The indexes behind the fields of the identity provider list, which takes `filter=` and `sort=`
 * (docs/queries.md): each starts with site_id, then the field, so a filter on it reads only the
 * index entries it selects. Issuer (ix_identity_providers_issuer, without site_id, serves the
 * sign-in's look-up before any site is known), ClientID and Enabled (then Name, the list's own
 * order); Name had ix_identity_providers_site_name and ID is the primary key.
 * An index built beforehand with these columns (Galera RSU, docs/scaling.md) is found and kept.
 */
const INDEXES: readonly { table: string; name: string; columns: string[] }[] = [
  { table: 'identity_providers', name: 'ix_identity_providers_site_issuer', columns: ['site_id', 'issuer'] },
  { table: 'identity_providers', name: 'ix_identity_providers_site_client', columns: ['site_id', 'client_id'] },
  { table: 'identity_providers', name: 'ix_identity_providers_site_enabled', columns: ['site_id', 'enabled', 'name'] },
];

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export class IdentityProviderListQueryIndexes1732000003120 implements MigrationInterface {
  name = 'IdentityProviderListQueryIndexes1732000003120';

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
