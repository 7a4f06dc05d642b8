import type { RequestContext } from '../../common/context/request-context.js';
import { FieldError, ValidationError } from '../../common/errors/errors.js';
import { onForeignKeyViolation } from '../../common/errors/db-errors.js';
import type { TenantDb } from '../tenant-db.js';
import { PeriodEntity } from '../entities/period.entity.js';

/**
 * A `PeriodID` in the body of a record that belongs to a period (goals, commitments, dialogs,
 * assessments): it must name a period of the caller's site (docs/periods-projects.md).
 */
const notAPeriod = (periodId: number): FieldError => ({ field: 'PeriodID', message: `PeriodID ${periodId} is not a period of this site` });

/**
 * The check, inside the write's transaction: no error when the period exists. `kept` is the period
 * the locked record names already: the same id needs no statement, as that period was checked
 * against the site when the record was written and the foreign key keeps it from being deleted.
 */
export async function periodErrors(db: TenantDb, ctx: RequestContext, periodId: number, kept?: number | null): Promise<FieldError[]> {
  if (kept !== undefined && kept !== null && periodId === kept) return [];
  return (await db.repo(ctx, PeriodEntity, 'Period').exists({ id: periodId })) ? [] : [notAPeriod(periodId)];
}

/**
 * A `.catch` for the write: a period deleted between the check and the write makes the foreign key
 * refuse it, answered as the check would have.
 */
export function periodGone(periodId: number): (e: unknown) => never {
  return onForeignKeyViolation(() => new ValidationError([notAPeriod(periodId)]));
}
