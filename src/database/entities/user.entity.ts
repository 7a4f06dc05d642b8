import { Entity, Index } from 'typeorm';
import { BoolCol, DateCol, GuidCol, GuidPk, IntCol, StrCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/**
 * A login account. `user_name_key` (the name's key: NFKC, case-folded) is unique across all sites
 * (docs/identity-and-tenancy.md). The account of an individual is `Individual.UserID`.
 */
@Entity('users')
@Index('ux_users_user_name_key', ['userNameKey'], { unique: true })
@Index('ix_users_site', ['siteId'])
export class UserEntity {
  @GuidPk()
  id: string;

  /** Home site of the account. */
  @GuidCol('site_id')
  siteId: string;

  @StrCol('user_name', LIMITS.name, { nullable: false })
  userName: string;

  @StrCol('user_name_key', LIMITS.name, { nullable: false })
  userNameKey: string;

  @StrCol('email', LIMITS.name)
  email: string | null;

  /** scrypt$N$r$p$salt$hash; null means the account cannot log in with a password. */
  @StrCol('password_hash', LIMITS.name)
  passwordHash: string | null;

  @BoolCol('is_global_admin', false)
  isGlobalAdmin: boolean;

  /**
   * Every token carries the generation it was issued in; a password change moves it on, and a
   * token of an earlier generation is refused (docs/identity-and-tenancy.md, "Tokens").
   */
  @IntCol('token_generation', { default: 0 })
  tokenGeneration: number;

  /**
   * When the account's tokens were last ended (password change, deletion, logout everywhere): an identity provider's token issued before it is refused (its `iat`).
   */
  @DateCol('tokens_revoked_at', { nullable: true })
  tokensRevokedAt: Date | null;

  /**
   * Whether the person may sign in (docs/identity.md, "SCIM provisioning"): false refuses password,
   * single sign-on and the tokens they hold; nothing of their records changes. Set by provisioning.
   */
  @BoolCol('active', true)
  active: boolean;

  /**
   * When a provisioning client deleted the account (SCIM `DELETE /Users/{id}`): it is then inactive
   * and no longer a SCIM resource, while the individual and their records stay. Null otherwise.
   */
  @DateCol('deprovisioned', { nullable: true })
  deprovisioned: Date | null;

  @DateCol('created', { nullable: false })
  created: Date;

  @DateCol('updated', { nullable: false })
  updated: Date;
}
