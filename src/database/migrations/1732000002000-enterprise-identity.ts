import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m } from './schema-helpers.js';

/**
 * Enterprise identity (docs/identity.md): API tokens, per-site OpenID Connect providers, and on
 * accounts the instant their tokens were last ended (for identity providers' tokens, which carry
 * no generation of ours). Existing accounts start with nothing ended.
 */
export class EnterpriseIdentity1732000002000 implements MigrationInterface {
  name = 'EnterpriseIdentity1732000002000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('users', new TableColumn(m.date('tokens_revoked_at')));
    await q.createTable(
      m.tenantTable({
        name: 'api_tokens',
        versioned: true,
        columns: [
          m.str('name', MIGRATED_LIMITS.name, false),
          m.str('scopes', 1000, false),
          m.str('hint', 16, false),
          m.str('secret_hash', 64, false),
          m.date('expires'),
          m.date('revoked'),
          m.date('last_used'),
        ],
        indices: [m.index('ix_api_tokens_site_name', ['site_id', 'name']), m.index('ux_api_tokens_secret_hash', ['secret_hash'], true)],
      }),
    );
    await q.createTable(
      m.tenantTable({
        name: 'identity_providers',
        versioned: true,
        columns: [
          m.str('name', MIGRATED_LIMITS.name, false),
          m.str('issuer', 500, false),
          m.str('client_id', MIGRATED_LIMITS.name, false),
          m.str('audiences', 1000),
          m.str('user_claim', 100, false),
          m.bool('jit_provisioning', false),
          m.guid('jit_organization_id', true),
          m.str('groups_claim', 100),
          m.text('group_mappings'),
          m.bool('enabled', true),
        ],
        indices: [m.index('ix_identity_providers_site_name', ['site_id', 'name']), m.index('ix_identity_providers_issuer', ['issuer'])],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('identity_providers');
    await q.dropTable('api_tokens');
    await q.dropColumn('users', 'tokens_revoked_at');
  }
}
