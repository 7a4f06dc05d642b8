import { createHash } from 'node:crypto';
import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { m } from './schema-helpers.js';

/**
 * One row per (issuer, audience) an identity provider accepts, keyed by the pair across all sites
 * (docs/security.md, "Identity providers"), so that no two providers can accept the same pair.
 * Filled from the providers there are, oldest first: a pair an older provider holds already is not
 * written again for a younger one (such a collision stays visible in
 * GET /v4/identityproviders/collisions, and a token that matches both providers is refused).
 * Written out here, not with the service's code, so this migration stays as it is.
 */
export class IdentityProviderAudiences1732000002400 implements MigrationInterface {
  name = 'IdentityProviderAudiences1732000002400';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'identity_provider_audiences',
        columns: [
          { name: 'issuer_key', type: 'varchar', length: '64', isPrimary: true },
          { name: 'audience', type: 'varchar', length: '255', isPrimary: true },
          m.guid('site_id'),
          m.guid('provider_id'),
        ],
        indices: [m.index('ix_identity_provider_audiences_site_provider', ['site_id', 'provider_id'])],
      }),
    );
    const providers = (await q.query('SELECT id, site_id, issuer, client_id, audiences FROM identity_providers ORDER BY created, id')) as {
      id: string;
      site_id: string;
      issuer: string;
      client_id: string;
      audiences: string | null;
    }[];
    const taken = new Set<string>();
    for (const p of providers) {
      const key = createHash('sha256').update(p.issuer, 'utf8').digest('hex');
      const audiences = new Set([p.client_id, ...(p.audiences ?? '').split(/\s+/)].map((a) => a.trim()).filter((a) => a && a.length <= 255));
      for (const audience of audiences) {
        if (taken.has(`${key} ${audience}`)) continue;
        taken.add(`${key} ${audience}`);
        await q.query('INSERT INTO identity_provider_audiences (issuer_key, audience, site_id, provider_id) VALUES (?, ?, ?, ?)', [
          key,
          audience,
          p.site_id,
          p.id,
        ]);
      }
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('identity_provider_audiences');
  }
}
