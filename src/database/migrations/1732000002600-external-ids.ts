import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m } from './schema-helpers.js';

/**
 * External keys (docs/bulk.md, "External keys"): the HR system's key of a person (the column SCIM
 * already kept) becomes unique per site, and organizations and departments get one too, unique per
 * site. The unique index replaces the plain one SCIM's look-ups used. Two people of one site that
 * a SCIM client gave the same externalId stop the migration with a message naming how many: which
 * of them keeps the key is the operator's decision, not the migration's.
 */
export class ExternalIds1732000002600 implements MigrationInterface {
  name = 'ExternalIds1732000002600';

  async up(q: QueryRunner): Promise<void> {
    const dupes = (await q.query(
      'SELECT COUNT(*) AS n FROM (SELECT site_id, external_id FROM individuals WHERE external_id IS NOT NULL GROUP BY site_id, external_id HAVING COUNT(*) > 1) d',
    )) as { n: number | string }[];
    const n = Number(dupes[0]?.n ?? 0);
    if (n > 0) {
      throw new Error(
        `ExternalIds1732000002600: ${n} external ids are shared by several individuals of one site; make them unique ` +
          '(SELECT site_id, external_id, COUNT(*) FROM individuals WHERE external_id IS NOT NULL GROUP BY site_id, external_id HAVING COUNT(*) > 1) and start again',
      );
    }
    // Each step finds what an operator did beforehand (docs/scaling.md) and does it only when it is not done.
    const individuals = await q.getTable('individuals');
    const has = (table: typeof individuals, index: string) => !!table?.indices.some((i) => i.name === index);
    if (has(individuals, 'ix_individuals_site_external_id')) await q.dropIndex('individuals', 'ix_individuals_site_external_id');
    if (!has(individuals, 'ux_individuals_site_external_id'))
      await q.createIndex('individuals', new TableIndex(m.index('ux_individuals_site_external_id', ['site_id', 'external_id'], true)));
    const organizations = await q.getTable('organizations');
    if (!organizations?.findColumnByName('external_id')) await q.addColumn('organizations', new TableColumn(m.str('external_id', MIGRATED_LIMITS.name)));
    if (!has(organizations, 'ux_organizations_site_external_id'))
      await q.createIndex('organizations', new TableIndex(m.index('ux_organizations_site_external_id', ['site_id', 'external_id'], true)));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('organizations', 'ux_organizations_site_external_id');
    await q.dropColumn('organizations', 'external_id');
    await q.dropIndex('individuals', 'ux_individuals_site_external_id');
    await q.createIndex('individuals', new TableIndex(m.index('ix_individuals_site_external_id', ['site_id', 'external_id'])));
  }
}
