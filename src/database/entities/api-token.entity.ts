import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { DateCol, StrCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/**
 * An API token of a site (docs/identity.md, "API tokens"): a named, scoped credential of a service
 * principal. Only the SHA-256 of the secret is kept (`secret_hash`, looked up once per token and
 * process before any site is known, hence its own unique index); the secret itself is shown once.
 */
@Entity('api_tokens')
@Index('ix_api_tokens_site_name', ['siteId', 'name'])
@Index('ix_api_tokens_site_created', ['siteId', 'created'])
@Index('ix_api_tokens_site_expires', ['siteId', 'expires'])
@Index('ix_api_tokens_site_last_used', ['siteId', 'lastUsed'])
@Index('ix_api_tokens_site_revoked', ['siteId', 'revoked'])
@Index('ux_api_tokens_secret_hash', ['secretHash'], { unique: true })
export class ApiTokenEntity extends GuidTenantEntity {
  @StrCol('name', LIMITS.name, { nullable: false })
  name: string;

  /** Space-separated scopes, e.g. `individuals:read goals:write` (docs/identity.md). */
  @StrCol('scopes', 1000, { nullable: false })
  scopes: string;

  /** The first characters of the secret (`pms_` and 8 more), shown in lists to recognise a token. */
  @StrCol('hint', 16, { nullable: false })
  hint: string;

  /** Hex SHA-256 of the whole secret. */
  @StrCol('secret_hash', 64, { nullable: false })
  secretHash: string;

  @DateCol('expires', { nullable: true })
  expires: Date | null;

  /** Set when revoked; a revoked token is refused and stays listed. */
  @DateCol('revoked', { nullable: true })
  revoked: Date | null;

  /** When the token was last used (recorded at most once a minute per token). */
  @DateCol('last_used', { nullable: true })
  lastUsed: Date | null;
}
