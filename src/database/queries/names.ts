import type { RequestContext } from '../../common/context/request-context.js';
import type { TenantDb } from '../tenant-db.js';
import { family, placeholders } from '../statements.js';
import type { IndividualEntity } from '../entities/individual.entity.js';
import type { JoinedColumns } from '../kept-sql.js';

/** An individual's name columns: what FullName and AuthorName are written from (src/common/names.ts). */
export type PersonName = Pick<IndividualEntity, 'firstName' | 'lastName'>;

/** The names of `n` individuals of a site. */
const NAMES = family(
  'names.of',
  (n: number) => `SELECT id, first_name, last_name FROM individuals WHERE site_id = ? AND id IN (${placeholders(n)})`,
  [[1], [3]],
  {
    // A list's varying IN list is prepared for its call only; one id's statement is kept.
    prepared: (n) => n === 1,
  },
).rows<{ id: string; first_name: PersonName['firstName']; last_name: PersonName['lastName'] }>();

/**
 * The names of these individuals of the caller's site (a goal's FullName, the AuthorNames of a
 * page of comments): two columns in one statement instead of whole rows (docs/performance.md).
 * Soft-deleted individuals keep their names; ids of no individual of the site are absent.
 */
export async function namesOf(db: TenantDb, ctx: RequestContext, ids: readonly string[]): Promise<Map<string, PersonName>> {
  const unique = [...new Set(ids)];
  const out = new Map<string, PersonName>();
  if (unique.length === 0) return out;
  const rows = await db.reader(ctx).rows(NAMES.of(unique.length), [ctx.siteId, ...unique]);
  for (const r of rows) out.set(r.id, { firstName: r.first_name, lastName: r.last_name });
  return out;
}

/** An individual's name columns, by database name (a joined or anchored read's `columns`). */
export const PERSON_NAME_COLUMNS: readonly string[] = ['first_name', 'last_name'];

/**
 * The name columns of the individual a record's `by` property references, to read with the record
 * in one statement (`ScopedRepository.findAndCountJoined`, `getJoined`) instead of `namesOf` after it.
 */
export function nameOfReferenced(by: string): JoinedColumns {
  return { table: 'individuals', columns: PERSON_NAME_COLUMNS, by };
}

/** The name a joined read brought back (see nameOfReferenced); null where the record references no individual of the site. */
export function joinedName(joined: Record<string, unknown> | null): PersonName | null {
  return joined && { firstName: joined.first_name as PersonName['firstName'], lastName: joined.last_name as PersonName['lastName'] };
}
