import { createHash } from 'node:crypto';
import { Entity, Index, PrimaryColumn } from 'typeorm';
import { GuidCol } from '../columns.js';

/**
 * The (issuer, audience) pairs identity providers accept, one row each, across all sites
 * (docs/security.md, "Identity providers"): the primary key is the guarantee that no two
 * providers — of two sites, or of one — accept the same pair, so a token names at most one site.
 * Written with the provider in one transaction; a registration whose pair another provider holds
 * fails on the key (409). The issuer is kept as the hex SHA-256 of its exact text (an issuer may be
 * 500 characters, more than an index key may hold).
 */
@Entity('identity_provider_audiences')
@Index('ix_identity_provider_audiences_site_provider', ['siteId', 'providerId'])
export class IdentityProviderAudienceEntity {
  @PrimaryColumn({ type: 'varchar', length: 64, name: 'issuer_key' })
  issuerKey: string;

  @PrimaryColumn({ type: 'varchar', length: 255, name: 'audience' })
  audience: string;

  @GuidCol('site_id')
  siteId: string;

  @GuidCol('provider_id')
  providerId: string;
}

/** Every audience a provider accepts: its client id and the further ones, each once. */
export function audiencesOf(p: { clientId: string; audiences: string | null }): string[] {
  return [...new Set([p.clientId, ...(p.audiences ?? '').split(/\s+/)].map((a) => a.trim()).filter(Boolean))];
}

/** The key of an issuer in identity_provider_audiences: the hex SHA-256 of its exact text. */
export const issuerKey = (issuer: string): string => createHash('sha256').update(issuer, 'utf8').digest('hex');
