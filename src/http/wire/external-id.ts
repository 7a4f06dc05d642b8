import { LIMITS } from '../../common/limits.js';
import { ConflictError } from '../../common/errors/errors.js';
import { isUniqueViolation } from '../../common/errors/db-errors.js';
import { field } from './resource.js';

/**
 * `ExternalID` (docs/bulk.md, "External keys"): the key the HR system of record gives a person or
 * a unit, which feeds upsert by. Optional; unique per site and kind (409 `duplicate-external-id`);
 * SCIM's `externalId` is the same value. Blank is none (stored as null).
 */
export const externalIdField = (kind: string, plural = `${kind}s`) =>
  field.string('-', {
    nullable: true,
    max: LIMITS.name,
    column: 'externalId',
    // `filter=ExternalID eq "HR-1001"` (docs/queries.md): the site's unique index of the keys answers it.
    query: { filter: true },
    write: (v: string) => v.trim() || null,
    description: `The key of the ${kind} in the HR system of record (SCIM externalId), unique among the ${plural} of the site (409 duplicate-external-id); bulk writes upsert and refer by it. Blank is none.`,
    create: { description: `Optional: the HR system's key of the ${kind}; unique in the site (409 duplicate-external-id).` },
    update: {
      description:
        'Absent keeps the value; null or blank clears it; another value replaces it (409 duplicate-external-id when another record of the site has it).',
    },
  });

/** 409: another record of the same kind in the site holds the ExternalID. */
export function duplicateExternalId(kind: string, value: string | null | undefined): ConflictError {
  return new ConflictError(`ExternalID "${value ?? ''}" is already the key of another ${kind} of this site`, 'duplicate-external-id');
}

/**
 * Runs a write whose only unique index besides the id is the site's ExternalID (individuals,
 * organizations): a clash there is the 409 `duplicate-external-id` (a concurrent writer won the key).
 */
export async function guardExternalId<R>(kind: string, value: string | null | undefined, write: () => Promise<R>): Promise<R> {
  try {
    return await write();
  } catch (e) {
    if (value && isUniqueViolation(e)) throw duplicateExternalId(kind, value);
    throw e;
  }
}
