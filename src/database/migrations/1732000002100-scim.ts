import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m } from './schema-helpers.js';

/**
 * SCIM provisioning (docs/identity.md, "SCIM provisioning"): whether an account may sign in
 * (`users.active`; every existing account may) and when a provisioning client deleted it
 * (`users.deprovisioned`), and the client's own ids of people and security groups (`external_id`,
 * indexed by site for the `externalId eq "…"` look-ups Okta and Entra make).
 */
export class Scim1732000002100 implements MigrationInterface {
  name = 'Scim1732000002100';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('users', [new TableColumn(m.bool('active', true)), new TableColumn(m.date('deprovisioned'))]);
    await q.addColumn('individuals', new TableColumn(m.str('external_id', MIGRATED_LIMITS.name)));
    await q.createIndex('individuals', new TableIndex(m.index('ix_individuals_site_external_id', ['site_id', 'external_id'])));
    await q.addColumn('security_groups', new TableColumn(m.str('external_id', MIGRATED_LIMITS.name)));
    await q.createIndex('security_groups', new TableIndex(m.index('ix_security_groups_site_external_id', ['site_id', 'external_id'])));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('security_groups', 'ix_security_groups_site_external_id');
    await q.dropColumn('security_groups', 'external_id');
    await q.dropIndex('individuals', 'ix_individuals_site_external_id');
    await q.dropColumn('individuals', 'external_id');
    await q.dropColumns('users', ['deprovisioned', 'active']);
  }
}
