import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import type { DataSource, EntityMetadata, EntitySubscriberInterface, QueryRunner, TransactionCommitEvent } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import type { Caller } from '../../common/context/request-context.js';
import { InvalidationBus } from '../../common/invalidation/invalidation-bus.js';
import type { Cache } from './cache.js';

/** The InvalidationBus topic of callers: published by `invalidate()`, applied by every replica. */
export const CALLERS_TOPIC = 'callers';

/**
 * The tables a Caller is read from (its Permission records, API tokens and identity provider
 * configurations included): a write to any of them may change someone's rights or end a credential.
 */
const CALLER_TABLES = new Set([
  'users',
  'individuals',
  'sites',
  'permissions',
  'security_groups',
  'security_group_members',
  'api_tokens',
  'identity_providers',
]);
const DIRTY = '__pmsCallerTablesWritten';
/** Everyone below an individual, or 'many' past MAX_KEPT_REPORTS. */
type Reports = ReadonlySet<string> | 'many';
const MAX_ENTRIES = 10_000;
/** A manager with more people below them than this is not kept (their reads join the chain instead). */
export const MAX_KEPT_REPORTS = 5_000;
/** All kept reports together, in ids (~75 bytes each): about 15 MB at most. */
const MAX_KEPT_REPORT_IDS = 200_000;

/**
 * Remembers resolved callers for a short time (CALLER_CACHE_MS, 5 s by default; 0 turns it off),
 * keyed by the token's account and site, so a client's burst of requests reads the account, its
 * individual and the site once instead of on every request (docs/performance.md).
 *
 * Writes through this process's data layer to `users`, `individuals` or `sites` (a deletion, a
 * demotion, a site's PM switch…) empty the cache at once, and again when their transaction
 * commits, so on the instance that made the change it applies to the very next request. Every
 * invalidation goes through the InvalidationBus: with REDIS_URL set, the other replicas drop
 * theirs within milliseconds of the commit (docs/scaling.md, "Cross-replica freshness"); without
 * it, or while Redis is away, they see the change within CALLER_CACHE_MS.
 *
 * The same holds for the second thing it keeps: who reports to an individual, at any depth
 * (`reportsOf`), which decides a manager's rights over those records (Individual.CanUpdate) on
 * reads (docs/authorization.md, "Managers' reads").
 */
@Injectable()
export class CallerCache implements EntitySubscriberInterface, Cache {
  readonly name = 'callers';

  /** Callers by `account site generation`, or the read of one under way (see `shared`). */
  private readonly callers: LRUCache<string, Caller | Promise<Caller>> | null;
  /** Everyone below an individual, by `site individual`; 'many' past MAX_KEPT_REPORTS; or the read under way. */
  private readonly reports: LRUCache<string, Reports | Promise<Reports>> | null;
  /** Other rows that decide who a caller is (an issuer's identity providers), by a key of their reader's (see `kept`). */
  private readonly rows: LRUCache<string, object | Promise<object>> | null;

  private readonly bus: InvalidationBus;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @InjectDataSource() dataSource: DataSource, @Optional() bus?: InvalidationBus) {
    this.bus = bus ?? new InvalidationBus();
    this.bus.on(CALLERS_TOPIC, () => this.clear());
    this.callers = config.callerCacheMs > 0 ? new LRUCache<string, Caller | Promise<Caller>>({ max: MAX_ENTRIES, ttl: config.callerCacheMs }) : null;
    this.reports =
      config.callerCacheMs > 0
        ? new LRUCache<string, Reports | Promise<Reports>>({
            maxSize: MAX_KEPT_REPORT_IDS,
            sizeCalculation: (v) => (v === 'many' || v instanceof Promise ? 1 : v.size + 1),
            ttl: config.callerCacheMs,
          })
        : null;
    this.rows = config.callerCacheMs > 0 ? new LRUCache<string, object | Promise<object>>({ max: 1000, ttl: config.callerCacheMs }) : null;
    dataSource.subscribers.push(this);
  }

  /**
   * Rows that decide who a caller is, other than the caller's own (an issuer's identity provider
   * configurations), as `load` reads them; kept like callers and dropped with them by every write
   * to the CALLER_TABLES, here and on the other replicas.
   */
  async kept<V extends object>(key: string, load: () => Promise<V>): Promise<V> {
    if (!this.rows) return load();
    return (this.rows.get(key) as V | Promise<V> | undefined) ?? (this.shared(this.rows, key, load) as Promise<V>);
  }

  /**
   * The cached caller for these claims, or the one `load` reads (stored if nothing changed
   * meanwhile). The token generation is part of the key: a token of a newer generation (issued
   * after a password change through another instance) is never answered from an older one.
   */
  async get(sub: string, sid: string, gen: number, load: () => Promise<Caller>): Promise<Caller> {
    const read = async () => Object.freeze(await load());
    if (!this.callers) return read();
    const key = `${sub} ${sid} ${gen}`;
    return this.callers.get(key) ?? this.shared(this.callers, key, read);
  }

  /**
   * The ids of everyone below the individual in the reporting chain, at any depth, as `load`
   * reads them; kept like callers. Null when nothing is kept (CALLER_CACHE_MS=0) or when there
   * are more than MAX_KEPT_REPORTS of them: the caller then works the chain out another way.
   */
  async reportsOf(siteId: string, individualId: string, load: () => Promise<ReadonlySet<string>>): Promise<ReadonlySet<string> | null> {
    if (!this.reports) return null;
    const key = `${siteId} ${individualId}`;
    const kept = await (this.reports.get(key) ?? this.shared(this.reports, key, async () => keptOf(await load())));
    return kept === 'many' ? null : kept;
  }

  /**
   * One read for everyone who asks while it runs: the read under way is kept under its key, so
   * the requests that find its entry expired at the same moment (a client's 50 connections when
   * its 5 s are up) wait for it instead of each reading the same rows again. Kept as the value once
   * read, unless the cache was invalidated meanwhile: that drops the read under way with everything
   * else (so it is no longer the key's entry), and a request after the invalidation never gets
   * what was read before it.
   */
  private async shared<V extends object | string>(cache: LRUCache<string, V | Promise<V>>, key: string, load: () => Promise<V>): Promise<V> {
    let settle!: { resolve: (v: V) => void; reject: (e: unknown) => void };
    const reading = new Promise<V>((resolve, reject) => (settle = { resolve, reject }));
    // The requests that joined it get the error too; with none, it is not an unhandled rejection.
    reading.catch(() => undefined);
    cache.set(key, reading);
    const mine = () => cache.peek(key) === reading;
    try {
      const value = await load();
      if (mine()) cache.set(key, value);
      settle.resolve(value);
      return value;
    } catch (e) {
      if (mine()) cache.delete(key);
      settle.reject(e);
      throw e;
    }
  }

  /**
   * Drops every kept caller and chain, here at once and on every other replica (InvalidationBus).
   * Anything that changes who a caller is or what they may do calls it after its commit (writes
   * through the data layer to the CALLER_TABLES do so by themselves).
   */
  invalidate(): void {
    this.bus.publish(CALLERS_TOPIC);
  }

  /** Entries kept now: callers, reports and rows. */
  entries(): number {
    return (this.callers?.size ?? 0) + (this.reports?.size ?? 0) + (this.rows?.size ?? 0);
  }

  /**
   * Empties the three caches. An LRUCache's clear() costs its whole capacity (it refills its
   * arrays) even when it holds nothing, and every row a bulk write or an import writes to the
   * caller tables invalidates: an empty cache is left as it is.
   */
  clear(): void {
    for (const c of [this.callers, this.reports, this.rows]) if (c?.size) c.clear();
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

  /**
   * A write invalidates at once, and again when its transaction commits: a request that read the
   * old row meanwhile must not keep it. (Not only at the commit: a transaction whose trail rides
   * with its COMMIT on MySQL/MariaDB ends without TypeORM's afterTransactionCommit, so the
   * invalidation at once is the one every write is sure of.)
   */
  private written(event: { metadata: EntityMetadata; queryRunner: QueryRunner }): void {
    if (!CALLER_TABLES.has(event.metadata.tableName)) return;
    this.invalidate();
    if (event.queryRunner.isTransactionActive) {
      const data = event.queryRunner.data as Record<string, unknown> | undefined;
      if (!data?.[DIRTY]) event.queryRunner.data = { ...data, [DIRTY]: true };
    }
  }
}

function keptOf(found: ReadonlySet<string>): Reports {
  return found.size > MAX_KEPT_REPORTS ? 'many' : found;
}
