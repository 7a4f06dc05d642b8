import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  DataSource,
  DeepPartial,
  EntityManager,
  EntityTarget,
  FindManyOptions,
  FindOptionsWhere,
  ObjectLiteral,
  Repository,
  SelectQueryBuilder,
} from 'typeorm';
import type { RequestContext } from '../common/context/request-context.js';
import { ConflictError, NotFoundError } from '../common/errors/errors.js';
import { isPrimaryKeyViolation } from './db-errors.js';
import type { TenantEntity } from './base.entity.js';

type Where<T> = FindOptionsWhere<T> | FindOptionsWhere<T>[];

/** Columns input can never write: identity, tenancy and audit are the service's. */
const PROTECTED = new Set(['id', 'siteId', 'created', 'createdBy', 'updated', 'updatedBy']);

/**
 * A repository bound to one request's site. Every read adds `site_id = ctx.siteId`; every insert
 * sets it. A row of another site is simply not found. Services never touch a raw Repository of a
 * tenant table.
 */
export class ScopedRepository<T extends TenantEntity & ObjectLiteral> {
  constructor(
    private readonly ctx: RequestContext,
    readonly repo: Repository<T>,
    /** The resource name used in 404 messages, e.g. "Individual". */
    private readonly label: string,
  ) {}

  private get siteId(): string {
    return this.ctx.siteId;
  }

  private scope(where?: Where<T>): Where<T> {
    const site = { siteId: this.siteId } as FindOptionsWhere<T>;
    if (!where) return site;
    if (Array.isArray(where)) return where.map((w) => ({ ...w, ...site }));
    return { ...where, ...site };
  }

  find(options: FindManyOptions<T> = {}): Promise<T[]> {
    return this.repo.find({ ...options, where: this.scope(options.where as Where<T> | undefined) });
  }

  findAndCount(options: FindManyOptions<T> = {}): Promise<[T[], number]> {
    return this.repo.findAndCount({ ...options, where: this.scope(options.where as Where<T> | undefined) });
  }

  findOne(where: Where<T>): Promise<T | null> {
    return this.repo.findOne({ where: this.scope(where) });
  }

  findById(id: string | number): Promise<T | null> {
    return this.findOne({ id } as unknown as FindOptionsWhere<T>);
  }

  /** The record with this id in the caller's site, or a 404. */
  async get(id: string | number): Promise<T> {
    const row = await this.findById(id);
    if (!row) throw new NotFoundError(this.label, id);
    return row;
  }

  /** The records with these ids in the caller's site (one query, any order). */
  findByIds(ids: readonly (string | number)[]): Promise<T[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.qb('t')
      .andWhere('t.id IN (:...ids)', { ids: [...new Set(ids)] })
      .getMany();
  }

  count(where?: Where<T>): Promise<number> {
    return this.repo.count({ where: this.scope(where) });
  }

  async exists(where: Where<T>): Promise<boolean> {
    return (await this.repo.count({ where: this.scope(where), take: 1 })) > 0;
  }

  /** A query builder already restricted to the caller's site. */
  qb(alias: string): SelectQueryBuilder<T> {
    return this.repo.createQueryBuilder(alias).where(`${alias}.siteId = :__siteId`, { __siteId: this.siteId });
  }

  /**
   * Inserts a record of the caller's site; id, site and audit columns are set here. Always an
   * INSERT, never an upsert: a supplied id that is taken — in any site, since ids are primary
   * keys — is a 409 `id-taken`, and a race on the same id fails in the database, never
   * overwriting the other row.
   */
  async insert(values: DeepPartial<T>): Promise<T> {
    const now = new Date();
    const clean = Object.fromEntries(Object.entries(values as object).filter(([k]) => !PROTECTED.has(k) || k === 'id'));
    const entity = this.repo.create({
      ...clean,
      siteId: this.siteId,
      created: now,
      createdBy: this.ctx.caller?.individualId ?? null,
      updated: now,
      updatedBy: this.ctx.caller?.individualId ?? null,
    } as DeepPartial<T>);
    const rec = entity as Record<string, unknown>;
    const idCol = this.repo.metadata.primaryColumns[0];
    if (idCol && !idCol.isGenerated) {
      if (rec.id === undefined || rec.id === null) rec.id = randomUUID();
      else if (await this.repo.exists({ where: { id: rec.id } as unknown as FindOptionsWhere<T> })) {
        throw new ConflictError(`${this.label} ${String(rec.id)} already exists`, 'id-taken');
      }
    }
    // The answer is built from this object: give unset columns their defaults (or null) as the
    // database will, without reading the row back.
    for (const col of this.repo.metadata.columns) {
      if (col.isGenerated || rec[col.propertyName] !== undefined) continue;
      if (col.default !== undefined && col.default !== null && typeof col.default !== 'function') rec[col.propertyName] = typedDefault(col.type, col.default);
      else if (col.isNullable) rec[col.propertyName] = null;
    }
    try {
      await this.repo.insert(entity as never);
    } catch (e) {
      // Another unique index is the caller's to interpret (e.g. a duplicate membership).
      if (isPrimaryKeyViolation(e)) throw new ConflictError(`${this.label} ${String(rec.id)} already exists`, 'id-taken');
      throw e;
    }
    // On MySQL, insert() reads columns with defaults back and merges their raw values (tinyint
    // 0/1) into the entity: give booleans their type again.
    for (const col of this.repo.metadata.columns) {
      const v = rec[col.propertyName];
      if ((col.type === 'boolean' || col.type === Boolean) && (typeof v === 'number' || typeof v === 'string'))
        rec[col.propertyName] = typedDefault(col.type, v);
    }
    return entity;
  }

  /** Applies a patch to a record read through this repository; protected columns are ignored. */
  async update(entity: T, patch: DeepPartial<T>): Promise<T> {
    if (entity.siteId !== this.siteId) throw new NotFoundError(this.label);
    for (const [k, v] of Object.entries(patch as object)) {
      if (!PROTECTED.has(k) && v !== undefined) (entity as Record<string, unknown>)[k] = v;
    }
    entity.updated = new Date();
    entity.updatedBy = this.ctx.caller?.individualId ?? null;
    return this.repo.save(entity);
  }

  /** Sets columns on every row of the caller's site that matches (cascades, bulk flags). */
  async updateWhere(where: FindOptionsWhere<T>, patch: Record<string, unknown>): Promise<number> {
    const set = Object.fromEntries(Object.entries(patch).filter(([k]) => !PROTECTED.has(k)));
    const res = await this.repo.update(
      this.scope(where) as FindOptionsWhere<T>,
      {
        ...set,
        updated: new Date(),
        updatedBy: this.ctx.caller?.individualId ?? null,
      } as never,
    );
    return res.affected ?? 0;
  }

  /** Removes matching rows of the caller's site (for records without soft delete). */
  async deleteWhere(where: FindOptionsWhere<T>): Promise<number> {
    const res = await this.repo.delete(this.scope(where) as FindOptionsWhere<T>);
    return res.affected ?? 0;
  }
}

/** The transaction-bound view handed to TenantDb.transaction callbacks. */
export interface TenantTx {
  manager: EntityManager;
  repo<T extends TenantEntity & ObjectLiteral>(entity: EntityTarget<T>, label?: string): ScopedRepository<T>;
}

/** The single entry point to tenant tables (DESIGN §3). */
@Injectable()
export class TenantDb {
  constructor(@InjectDataSource() readonly dataSource: DataSource) {}

  repo<T extends TenantEntity & ObjectLiteral>(ctx: RequestContext, entity: EntityTarget<T>, label?: string, manager?: EntityManager): ScopedRepository<T> {
    const repo = (manager ?? this.dataSource.manager).getRepository(entity);
    return new ScopedRepository<T>(ctx, repo, label ?? labelOf(repo.metadata.targetName));
  }

  /** Runs `fn` in one transaction: all of its writes land, or none does. */
  transaction<R>(ctx: RequestContext, fn: (tx: TenantTx) => Promise<R>): Promise<R> {
    return this.dataSource.transaction((manager) =>
      fn({
        manager,
        repo: <T extends TenantEntity & ObjectLiteral>(entity: EntityTarget<T>, label?: string) => this.repo<T>(ctx, entity, label, manager),
      }),
    );
  }
}

/** A column default as the entity holds it: drivers keep boolean defaults as 0/1 in metadata. */
function typedDefault(type: unknown, value: unknown): unknown {
  if (type === 'boolean' || type === Boolean) return value === true || value === 1 || value === '1' || value === 'true';
  if (type === 'integer' || type === 'int' || type === Number) return Number(value);
  return value;
}

function labelOf(targetName: string): string {
  return targetName.replace(/Entity$/, '');
}
