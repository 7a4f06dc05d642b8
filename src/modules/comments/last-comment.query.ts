import type { RequestContext } from '../../common/context/request-context.js';
import type { TenantDb } from '../../database/tenant-db.js';
import { CommentEntity } from './comment.entity.js';

export interface LastComment {
  body: string;
  created: Date;
  authorId: string | null;
  /** "First Last" of the author, null when the author is gone. */
  authorName: string | null;
}

/**
 * The newest live comment on each of the given individuals (Individual.LastComment*), in one
 * query whatever the number of individuals: no N+1 on individual lists.
 */
export async function lastCommentsFor(db: TenantDb, ctx: RequestContext, individualIds: readonly string[]): Promise<Map<string, LastComment>> {
  const out = new Map<string, LastComment>();
  if (individualIds.length === 0) return out;
  const rows = await db
    .repo(ctx, CommentEntity)
    .qb('c')
    .leftJoin('individuals', 'a', 'a.id = c.author_id AND a.site_id = c.site_id')
    .select([
      'c.ancestor_id AS ancestorId',
      'c.body AS body',
      'c.created AS created',
      'c.author_id AS authorId',
      'a.first_name AS firstName',
      'a.last_name AS lastName',
    ])
    .andWhere("c.ancestor_type = 'individuals'")
    .andWhere('c.deleted = :no', { no: false })
    .andWhere('c.ancestor_id IN (:...ids)', { ids: [...new Set(individualIds)] })
    .andWhere(
      `NOT EXISTS (SELECT 1 FROM comments c2 WHERE c2.site_id = c.site_id AND c2.ancestor_type = c.ancestor_type
        AND c2.ancestor_id = c.ancestor_id AND c2.deleted = :no AND (c2.created > c.created OR (c2.created = c.created AND c2.id > c.id)))`,
    )
    .getRawMany<{ ancestorId: string; body: string; created: Date | string; authorId: string | null; firstName: string | null; lastName: string | null }>();
  for (const r of rows) {
    out.set(r.ancestorId, {
      body: r.body,
      created: toDate(r.created),
      authorId: r.authorId,
      authorName: r.firstName !== null || r.lastName !== null ? `${r.firstName ?? ''} ${r.lastName ?? ''}`.trim() : null,
    });
  }
  return out;
}

/** Raw queries give SQLite datetimes as 'YYYY-MM-DD HH:MM:SS.SSS' strings (UTC) and MySQL ones as Date. */
export function toDate(v: Date | string): Date {
  if (v instanceof Date) return v;
  return new Date(v.includes('T') ? v : v.replace(' ', 'T') + 'Z');
}
