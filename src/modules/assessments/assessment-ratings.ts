import { In } from 'typeorm';
import type { RequestContext } from '../../common/context/request-context.js';
import type { FieldError } from '../../common/errors/errors.js';
import type { TenantDb } from '../../database/tenant-db.js';
import { BasicRoleEntity } from '../../database/entities/basic-role.entity.js';
import { CoreValueEntity } from '../../database/entities/core-value.entity.js';
import { ListItemEntity } from '../../database/entities/list-item.entity.js';
import type { AssessmentRatingEntity, RatingItemKind } from '../../database/entities/assessment-rating.entity.js';
import { RATINGS_MAX, type AssessmentRatingInput } from './dto/assessment.dto.js';

/** The rated items of one kind that exist in the site, with what the check needs of them. */
interface ItemRow {
  id: string;
  deleted: boolean;
  /** The individual the item belongs to (evaluation criteria, basic roles); null for core values. */
  owner: string | null;
}

const KIND_LABEL: Record<Exclude<RatingItemKind, 'general'>, string> = {
  evaluationcriteria: 'evaluation criterion',
  corevalue: 'core value',
  basicrole: 'basic role',
};

const key = (kind: string, itemId: string | null | undefined) => `${kind}:${itemId ?? ''}`;

/**
 * The checks of an assessment's Ratings (docs/dialogs-tasks-roles-assessments.md), 400 naming
 * `Ratings[i].…`: at most RATINGS_MAX; `general` has no ItemID, the other kinds need one; an item is
 * rated once; an ItemID names a live evaluation criterion or basic role of the subject, or a live
 * core value of the site. Ratings of items the assessment rated already are not checked again, so
 * a client can PUT back what it read after an item was deleted. One query per item kind.
 */
export async function ratingErrors(
  db: TenantDb,
  ctx: RequestContext,
  subjectId: string,
  ratings: readonly AssessmentRatingInput[],
  stored: readonly AssessmentRatingEntity[] = [],
): Promise<FieldError[]> {
  if (ratings.length > RATINGS_MAX) return [{ field: 'Ratings', message: `Ratings must hold at most ${RATINGS_MAX} ratings` }];
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  const known = new Set(stored.map((r) => key(r.itemKind, r.itemId)));
  const toCheck: Record<Exclude<RatingItemKind, 'general'>, { index: number; id: string }[]> = { evaluationcriteria: [], corevalue: [], basicrole: [] };
  ratings.forEach((r, i) => {
    const field = `Ratings[${i}]`;
    const itemId = r.ItemID ?? null;
    if (r.ItemKind === 'general' && itemId !== null) errors.push({ field: `${field}.ItemID`, message: `${field}.ItemID must be null for a general rating` });
    if (r.ItemKind !== 'general' && itemId === null)
      errors.push({ field: `${field}.ItemID`, message: `${field}.ItemID is required for a ${r.ItemKind} rating` });
    const k = key(r.ItemKind, itemId);
    const earlier = seen.get(k);
    if (earlier !== undefined) errors.push({ field, message: `${field} rates the same item as Ratings[${earlier}]` });
    else seen.set(k, i);
    if (r.ItemKind !== 'general' && itemId !== null && !known.has(k)) toCheck[r.ItemKind].push({ index: i, id: itemId });
  });
  for (const kind of Object.keys(toCheck) as (keyof typeof toCheck)[]) {
    const wanted = toCheck[kind];
    if (wanted.length === 0) continue;
    const rows = await itemsOf(db, ctx, kind, [...new Set(wanted.map((w) => w.id))]);
    for (const { index, id } of wanted) {
      const row = rows.get(id);
      const field = `Ratings[${index}].ItemID`;
      const label = KIND_LABEL[kind];
      if (!row || (row.owner !== null && row.owner !== subjectId)) {
        const whose = kind === 'corevalue' ? 'of this site' : 'of the subject';
        errors.push({ field, message: `${field} ${id} is not a live ${label} ${whose}` });
      } else if (row.deleted) errors.push({ field, message: `${field} ${id} is a deleted ${label}` });
    }
  }
  return errors;
}

async function itemsOf(db: TenantDb, ctx: RequestContext, kind: Exclude<RatingItemKind, 'general'>, ids: string[]): Promise<Map<string, ItemRow>> {
  let rows: ItemRow[];
  if (kind === 'corevalue') {
    rows = (await db.repo(ctx, CoreValueEntity, 'CoreValue').findByIds(ids)).map((r) => ({ id: r.id, deleted: r.deleted, owner: null }));
  } else if (kind === 'basicrole') {
    rows = (await db.repo(ctx, BasicRoleEntity, 'BasicRole').findByIds(ids)).map((r) => ({ id: r.id, deleted: r.deleted, owner: r.individualId }));
  } else {
    const items = await db.repo(ctx, ListItemEntity, 'EvaluationCriteria').find({ where: { id: In(ids), kind: 'evaluationcriteria' } });
    rows = items.map((r) => ({ id: r.id, deleted: r.deleted, owner: r.ancestorId }));
  }
  return new Map(rows.map((r) => [r.id, r]));
}
