import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import type { DataSource, EntityMetadata, EntitySubscriberInterface, QueryRunner, TransactionCommitEvent } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import type { Caller } from '../common/context/request-context.js';

/** The tables a Caller is read from (its Permission records included): a write to any of them may change someone's rights. */
const CALLER_TABLES = new Set(['users', 'individuals', 'sites', 'permissions', 'security_groups', 'security_group_members']);
const DIRTY = '__pmsCallerTablesWritten';
const MAX_ENTRIES = 10_000;

/**
 * Remembers resolved callers for a short time (CALLER_CACHE_MS, 5 s by default; 0 turns it off),
 * keyed by the token's account and site, so a client's burst of requests reads the account, its
 * individual and the site once instead of on every request (docs/performance.md).
 *
 * Writes through this process's data layer to `users`, `individuals` or `sites` (a deletion, a
 * demotion, a site's PM switch…) empty the cache at once, and again when their transaction
 * commits, so on the instance that made the change it applies to the very next request. Other
 * instances behind the same load balancer see it within CALLER_CACHE_MS.
 */
@Injectable()
export class CallerCache implements EntitySubscriberInterface {
  private readonly entries: LRUCache<string, Caller> | null;
  /** Bumped by every invalidation: a caller read before it is not stored after it. */
  private generation = 0;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @InjectDataSource() dataSource: DataSource) {
    this.entries = config.callerCacheMs > 0 ? new LRUCache<string, Caller>({ max: MAX_ENTRIES, ttl: config.callerCacheMs }) : null;
    dataSource.subscribers.push(this);
  }

  /** The cached caller for these claims, or the one `load` reads (stored if nothing changed meanwhile). */
  async get(sub: string, sid: string, load: () => Promise<Caller>): Promise<Caller> {
    const key = `${sub} ${sid}`;
    const hit = this.entries?.get(key);
    if (hit) return hit;
    const generation = this.generation;
    const caller = Object.freeze(await load());
    if (this.entries && generation === this.generation) this.entries.set(key, caller);
    return caller;
  }

  invalidate(): void {
    this.generation++;
    this.entries?.clear();
  }

  // TypeORM subscriber events (every insert, update and delete through the data layer).
  afterInsert(event: { metadata: EntityMetadata; queryRunner: QueryRunner }): void {
    this.written(event);
  }
  afterUpdate(event: { metadata: EntityMetadata; queryRunner: QueryRunner }): void {
    this.written(event);
  }
  afterRemove(event: { metadata: EntityMetadata; queryRunner: QueryRunner }): void {
    this.written(event);
  }
  afterSoftRemove(event: { metadata: EntityMetadata; queryRunner: QueryRunner }): void {
    this.written(event);
  }
  afterTransactionCommit(event: TransactionCommitEvent): void {
    const data = event.queryRunner.data as Record<string, unknown>;
    if (data?.[DIRTY]) {
      delete data[DIRTY];
      this.invalidate();
    }
  }

  private written(event: { metadata: EntityMetadata; queryRunner: QueryRunner }): void {
    if (!CALLER_TABLES.has(event.metadata.tableName)) return;
    this.invalidate();
    // A request that reads the old row before the commit must not keep it: clear again then.
    if (event.queryRunner.isTransactionActive) {
      event.queryRunner.data = { ...(event.queryRunner.data as object), [DIRTY]: true };
    }
  }
}
