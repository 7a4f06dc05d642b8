import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { LessThan, LessThanOrEqual, Repository } from 'typeorm';
import { RequestContext } from '../common/context/request-context.js';
import { LIMITS } from '../common/limits.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { IdempotencyKeyColumns, IdempotencyKeyEntity, IdempotencyKeyMysqlEntity } from './entities/idempotency-key.entity.js';
import { TenantDb } from './tenant-db.js';

/** What a key already stands for. */
export interface StoredKey {
  fingerprint: string;
  request: string;
  status: number;
  answer: string;
}

/** The new row of a key, written in the transaction of the write it guards. */
export interface NewKey extends StoredKey {
  keyHash: string;
}

/**
 * The table of Idempotency-Keys (docs/idempotency.md). Every statement names the caller's site
 * and account, which are the key's scope. Reads and writes run in the context's transaction when
 * one is bound, so `claim` and `complete` commit or roll back together with the write.
 */
@Injectable()
export class IdempotencyStore {
  constructor(
    private readonly db: TenantDb,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private table(ctx: RequestContext | null): Repository<IdempotencyKeyColumns> {
    return this.db.serviceTable<IdempotencyKeyColumns>(ctx, this.db.isSqlite ? IdempotencyKeyEntity : IdempotencyKeyMysqlEntity);
  }

  private scope(ctx: RequestContext, keyHash: string) {
    return { siteId: ctx.siteId, userId: ctx.user.userId, keyHash };
  }

  /**
   * The caller's live row for this key, or null. An expired row that the sweep has not reached yet
   * is deleted here (in the context's transaction) and counts as absent.
   */
  async find(ctx: RequestContext, keyHash: string, now = new Date()): Promise<StoredKey | null> {
    const row = await this.table(ctx).findOne({ where: this.scope(ctx, keyHash) });
    if (!row) return null;
    if (row.expires.getTime() <= now.getTime()) {
      await this.table(ctx).delete({ ...this.scope(ctx, keyHash), expires: LessThanOrEqual(now) });
      return null;
    }
    return { fingerprint: row.fingerprint, request: row.request, status: row.status, answer: row.answer };
  }

  /**
   * Inserts the key before the write runs, in its transaction. A concurrent request holding the
   * same key uncommitted makes this INSERT wait on MySQL/MariaDB (the unique primary key), then
   * fail with a unique violation once that request commits; SQLite runs one transaction at a time.
   */
  async claim(ctx: RequestContext, key: NewKey, now = new Date()): Promise<void> {
    this.db.assertInTransaction(ctx, 'claim');
    await this.table(ctx).insert({
      ...this.scope(ctx, key.keyHash),
      fingerprint: key.fingerprint,
      request: key.request.slice(0, LIMITS.name),
      status: key.status,
      answer: key.answer,
      created: now,
      expires: new Date(now.getTime() + this.config.idempotencyTtlSeconds * 1000),
    });
  }

  /** Stores the write's answer in the row `claim` inserted, before the transaction commits. */
  async complete(ctx: RequestContext, keyHash: string, status: number, answer: string): Promise<void> {
    this.db.assertInTransaction(ctx, 'complete');
    await this.table(ctx).update(this.scope(ctx, keyHash), { status, answer });
  }

  /**
   * Deletes every expired key: one short transaction per site, each a single DELETE on the
   * (site_id, expires) index (on SQLite queued with the other transactions). Answers the number of
   * rows deleted.
   */
  async sweep(now = new Date()): Promise<number> {
    const sites = await this.table(null).createQueryBuilder('k').select('k.siteId', 'siteId').distinct(true).getRawMany<{ siteId: string }>();
    let deleted = 0;
    for (const { siteId } of sites) {
      const ctx = RequestContext.system(siteId);
      const res = await this.db.transaction(ctx, () => this.table(ctx).delete({ siteId, expires: LessThan(now) }));
      deleted += res.affected ?? 0;
    }
    return deleted;
  }
}

/**
 * Runs `IdempotencyStore.sweep` every IDEMPOTENCY_SWEEP_SECONDS in the background. Each replica
 * sweeps on its own; deleting expired rows twice is harmless. A failed sweep is logged and tried
 * again at the next tick.
 */
@Injectable()
export class IdempotencySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('IdempotencySweeper');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly store: IdempotencyStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.config.idempotencySweepSeconds * 1000);
    this.timer.unref();
  }

  /** Stops the timer and waits for a sweep in progress, before the database closes. */
  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One sweep now (also what the timer runs); a sweep already running is not doubled. */
  async tick(): Promise<void> {
    if (this.running) return this.running;
    const run = this.sweepOnce().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  private async sweepOnce(): Promise<void> {
    try {
      const deleted = await this.store.sweep();
      if (deleted > 0) this.logger.log(`deleted ${deleted} expired idempotency keys`);
    } catch (e) {
      this.logger.warn(`idempotency key sweep failed: ${(e as Error).message}`);
    }
  }
}
