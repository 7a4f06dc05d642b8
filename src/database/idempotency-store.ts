import { Inject, Injectable } from '@nestjs/common';
import { In, LessThan, LessThanOrEqual, Repository } from 'typeorm';
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

  /**
   * Deletes the caller's row for this key when it holds no answer (status 0), in the context's
   * transaction. Such a row is never visible while its claim runs — the claim commits only with its
   * answer — so one found is the leftover of a claim committed without it (a transaction
   * half-committed by the database, docs/idempotency.md): the key is free again.
   */
  async forgetUnanswered(ctx: RequestContext, keyHash: string): Promise<void> {
    this.db.assertInTransaction(ctx, 'forgetUnanswered');
    await this.table(ctx).delete({ ...this.scope(ctx, keyHash), status: 0 });
  }

  /** Stores the write's answer in the row `claim` inserted, before the transaction commits. */
  async complete(ctx: RequestContext, keyHash: string, status: number, answer: string): Promise<void> {
    this.db.assertInTransaction(ctx, 'complete');
    await this.table(ctx).update(this.scope(ctx, keyHash), { status, answer });
  }

  /**
   * Deletes every expired key — one short transaction per site, each a single DELETE on the
   * (site_id, expires) index (on SQLite queued with the other transactions) — and then, for each
   * caller holding more than IDEMPOTENCY_MAX_KEYS_PER_CALLER keys in a site, their oldest beyond
   * that many, so no caller can grow the table without bound between expiries. Answers the number
   * of rows deleted.
   */
  async sweep(now = new Date()): Promise<number> {
    const sites = await this.table(null).createQueryBuilder('k').select('k.siteId', 'siteId').distinct(true).getRawMany<{ siteId: string }>();
    let deleted = 0;
    for (const { siteId } of sites) {
      const ctx = RequestContext.system(siteId);
      const res = await this.db.transaction(ctx, () => this.table(ctx).delete({ siteId, expires: LessThan(now) }));
      deleted += (res.affected ?? 0) + (await this.trim(ctx));
    }
    return deleted;
  }

  /** Deletes the oldest keys of every caller of the context's site who holds more than the cap (walking the primary key's (site, user) prefix). */
  private async trim(ctx: RequestContext): Promise<number> {
    const cap = this.config.idempotencyMaxKeysPerCaller;
    const over = await this.table(null)
      .createQueryBuilder('k')
      .select('k.userId', 'userId')
      .where('k.siteId = :siteId', { siteId: ctx.siteId })
      .groupBy('k.userId')
      .having('COUNT(*) > :cap', { cap })
      .getRawMany<{ userId: string }>();
    let deleted = 0;
    for (const { userId } of over) {
      deleted += await this.db.transaction(ctx, async () => {
        const kept = await this.table(ctx).find({
          where: { siteId: ctx.siteId, userId },
          order: { created: 'DESC', keyHash: 'ASC' },
          take: cap,
          select: { keyHash: true },
        });
        const keep = new Set(kept.map((k) => k.keyHash));
        const all = await this.table(ctx).find({ where: { siteId: ctx.siteId, userId }, select: { keyHash: true } });
        const drop = all.map((k) => k.keyHash).filter((h) => !keep.has(h));
        for (let i = 0; i < drop.length; i += 500) await this.table(ctx).delete({ siteId: ctx.siteId, userId, keyHash: In(drop.slice(i, i + 500)) });
        return drop.length;
      });
    }
    return deleted;
  }
}
