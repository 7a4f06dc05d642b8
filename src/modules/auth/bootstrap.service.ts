import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { generatePassword, Passwords } from '../../auth/password.js';
import { userNameKey, userNameProblem } from '../../auth/user-name.js';
import { RequestContext } from '../../common/context/request-context.js';
import { JsonLogger } from '../../common/logging/json-logger.js';
import { APP_LOGGER } from '../../common/logging/logger.token.js';
import { TenantDb } from '../../database/tenant-db.js';
import { accounts } from '../../database/queries/accounts.js';
import { isUniqueViolation } from '../../common/errors/db-errors.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { OrganizationEntity, ROW_TYPE_ORGANIZATION } from '../../database/entities/organization.entity.js';
import { OrganizationMemberEntity } from '../../database/entities/organization-member.entity.js';
import { SiteEntity } from '../../database/entities/site.entity.js';
import { UserEntity } from '../../database/entities/user.entity.js';
import { newRecordId } from '../../common/ids.js';

/**
 * First start with an empty database (docs/identity-and-tenancy.md): site "Default", its root organization, and the
 * global administrator from ADMIN_USERNAME / ADMIN_PASSWORD (a generated password is printed once).
 */
@Injectable()
export class BootstrapService implements OnApplicationBootstrap {
  /** Set when this start created the first site and administrator (an empty database). */
  firstStart: { userName: string; generatedPassword: string | null } | null = null;

  constructor(
    private readonly db: TenantDb,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: JsonLogger,
    private readonly passwords: Passwords,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.ensureInitialData();
  }

  /**
   * Whether this password is the one of the configured administrator (ADMIN_USERNAME): null when
   * there is no such account. For the warning of a later start whose ADMIN_PASSWORD is ignored.
   */
  async adminPasswordMatches(password: string): Promise<boolean | null> {
    const user = await this.db.global(null, UserEntity).findOneBy({ userNameKey: userNameKey(this.config.adminUserName) });
    if (!user) return null;
    return this.passwords.verify(password, user.passwordHash);
  }

  async ensureInitialData(): Promise<void> {
    if ((await this.db.global(null, SiteEntity).count()) > 0) return;
    const nameProblem = userNameProblem(this.config.adminUserName);
    if (nameProblem) throw new Error(`ADMIN_USERNAME ${nameProblem}`);
    const password = this.config.adminPassword ?? generatePassword();
    const passwordHash = await this.passwords.hash(password);
    const siteId = newRecordId();
    const userId = newRecordId();
    const individualId = newRecordId();
    const now = new Date();
    const ctx = RequestContext.system(siteId, { userId, individualId });
    const created = await this.db
      .transaction(ctx, async (tx) => {
        await this.db
          .journaled(ctx, SiteEntity, (s) => s.id)
          .insert({ id: siteId, name: 'Default', performanceManagement: true, created: now, updated: now, createdBy: null, updatedBy: null, version: 1 });
        await accounts(this.db, ctx).insert({
          id: userId,
          siteId,
          userName: this.config.adminUserName,
          userNameKey: userNameKey(this.config.adminUserName),
          email: null,
          passwordHash,
          isGlobalAdmin: true,
          created: now,
          updated: now,
        });
        const org = await tx.repo(OrganizationEntity).insert({ name: 'Default Organization', rowType: ROW_TYPE_ORGANIZATION, rank: 0 });
        await tx.repo(IndividualEntity).insert({
          id: individualId,
          userId,
          isAdmin: true,
          firstName: 'System',
          lastName: 'Administrator',
          primaryOrganizationId: org.id,
          primaryTitle: 'Administrator',
        });
        await tx.repo(OrganizationMemberEntity).insert({ individualId, organizationId: org.id, title: 'Administrator' });
        return true;
      })
      .catch((e: unknown) => {
        // Replicas starting together on an empty database (docs/scaling.md): another one created the
        // administrator first; its whole first site stands, this attempt wrote nothing.
        if (isUniqueViolation(e)) return false;
        throw e;
      });
    if (!created) {
      this.logger.event('info', 'Bootstrap', { msg: 'Another replica created the first site and administrator at the same time; using those' });
      return;
    }
    // The one start-up line (src/main.ts) says it; with the generated password on this first start only.
    this.firstStart = { userName: this.config.adminUserName, generatedPassword: this.config.adminPassword ? null : password };
    this.logger.event('debug', 'Bootstrap', { msg: `Created site "Default" and global administrator "${this.config.adminUserName}"` });
  }
}
