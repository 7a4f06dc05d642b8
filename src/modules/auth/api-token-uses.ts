import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { JsonLogger } from '../../common/logging/json-logger.js';
import { APP_LOGGER } from '../../common/logging/logger.token.js';
import { ApiTokenEntity } from '../../database/entities/api-token.entity.js';
import { TenantDb } from '../../database/tenant-db.js';

/**
 * Records when API tokens were last used (docs/identity.md, "API tokens") without a write per
 * request: uses are noted in memory and written every API_TOKEN_LAST_USE_SECONDS, one UPDATE per
 * instant for all tokens used since, and once more at shutdown. The UPDATE skips the entity
 * listeners: a use changes nobody's rights, so it must not empty the caller cache.
 */
@Injectable()
export class ApiTokenUses implements BeforeApplicationShutdown {
  private pending = new Set<string>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: TenantDb,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: JsonLogger,
  ) {
    this.timer = setInterval(() => void this.flush(), config.apiTokenLastUseSeconds * 1000);
    this.timer.unref();
  }

  /** Notes a use of the token (no I/O). */
  touch(tokenId: string): void {
    this.pending.add(tokenId);
  }

  /** Writes the noted uses now. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const ids = [...this.pending];
    this.pending = new Set();
    try {
      await this.db
        .global(null, ApiTokenEntity)
        .createQueryBuilder()
        .update()
        .set({ lastUsed: new Date() })
        .where({ id: In(ids) })
        .callListeners(false)
        .execute();
    } catch (e) {
      // Losing a last-use instant is harmless; the next use notes the token again.
      this.logger.event('warn', 'ApiTokenUses', { msg: `could not record the last use of ${ids.length} API tokens: ${(e as Error).message}` });
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
