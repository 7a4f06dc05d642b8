import { EntityTarget, FindOptionsWhere, QueryFailedError } from 'typeorm';
import type { GuidTenantEntity } from '../../database/base.entity.js';
import type { TenantDb } from '../../database/tenant-db.js';

/**
 * Whether a supplied guid is already the id of a record, in any site. Primary keys are unique
 * across sites, so this one check cannot be site-scoped: ScopedRepository.insert saves through
 * TypeORM's `save`, which would turn an insert with another site's id into an update of that
 * row. The answer only says "taken" (409 id-taken), never whose record it is.
 */
export function idTaken<T extends GuidTenantEntity>(db: TenantDb, entity: EntityTarget<T>, id: string): Promise<boolean> {
  return db.dataSource.getRepository(entity).existsBy({ id } as FindOptionsWhere<T>);
}

const UNIQUE_CODES = new Set(['ER_DUP_ENTRY', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

/** A unique-key violation (a concurrent request won the race for the same key). */
export function isUniqueViolation(e: unknown): boolean {
  if (!(e instanceof QueryFailedError)) return false;
  const code = (e.driverError as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && UNIQUE_CODES.has(code);
}
