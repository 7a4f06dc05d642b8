import type { EntityTarget, FindOptionsWhere } from 'typeorm';
import type { RequestContext } from '../../common/context/request-context.js';
import { NotFoundError, ValidationError } from '../../common/errors/errors.js';
import type { TenantEntity } from '../../database/entities/base.entity.js';
import type { Anchor, TenantDb } from '../../database/tenant-db.js';
import { DialogEntity } from '../../database/entities/dialog.entity.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { OrganizationEntity, ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION } from '../../database/entities/organization.entity.js';
import { MetricEntity } from '../../database/entities/metric.entity.js';
import { ProjectEntity } from '../../database/entities/project.entity.js';
import { TaskEntity } from '../../database/entities/task.entity.js';
import { COMMENT_KINDS, type CommentKind } from '../../database/entities/comment.entity.js';

/** A soft-deletable tenant record a comment can hang on. */
type AncestorRow = TenantEntity & { id: string; deleted: boolean };

interface AncestorTable {
  entity: EntityTarget<AncestorRow>;
  /** Resource name for 404 messages. */
  label: string;
  /** Extra conditions (e.g. the RowType of organizations and departments). */
  where?: FindOptionsWhere<AncestorRow>;
}

/**
 * Where the ancestor of each comment kind lives (docs/comments.md). A kind without an entry (a
 * resource not built yet) accepts any well-formed guid until its resource exists: adding its entity here is all it
 * takes to check it.
 */
const ANCESTOR_TABLES: Partial<Record<CommentKind, AncestorTable>> = {
  individuals: { entity: IndividualEntity, label: 'Individual' },
  organizations: { entity: OrganizationEntity, label: 'Organization', where: { rowType: ROW_TYPE_ORGANIZATION } as FindOptionsWhere<AncestorRow> },
  departments: { entity: OrganizationEntity, label: 'Department', where: { rowType: ROW_TYPE_DEPARTMENT } as FindOptionsWhere<AncestorRow> },
  projects: { entity: ProjectEntity, label: 'Project' },
  metrics: { entity: MetricEntity, label: 'Metric' },
  tasks: { entity: TaskEntity, label: 'Task' },
  dialogs: { entity: DialogEntity, label: 'Dialog' },
};

/**
 * The ancestor `kind`/`id` as the anchor of a list under it (ScopedRepository.findAndCountUnder:
 * its 404 and the list in one statement); null for a kind that has no table yet.
 */
export function ancestorAnchor(kind: CommentKind, id: string): Anchor | null {
  const table = ANCESTOR_TABLES[kind];
  return table ? { target: table.entity, label: table.label, id, where: table.where as Anchor['where'] } : null;
}

/** The kinds whose ancestors are checked today (for the documentation and tests). */
export const CHECKED_KINDS = Object.keys(ANCESTOR_TABLES) as CommentKind[];

/** The kinds accepted with any well-formed id until their resource exists. */
export const UNCHECKED_KINDS = COMMENT_KINDS.filter((k) => !ANCESTOR_TABLES[k]);

/**
 * `live` / `deleted`: the ancestor is a record of the caller's site; `missing`: it is not (or it is
 * another site's); `unchecked`: the kind has no table yet.
 */
export type AncestorState = 'live' | 'deleted' | 'missing' | 'unchecked';

export async function ancestorState(db: TenantDb, ctx: RequestContext, kind: CommentKind, id: string): Promise<AncestorState> {
  const table = ANCESTOR_TABLES[kind];
  if (!table) return 'unchecked';
  const repo = db.repo<AncestorRow>(ctx, table.entity, table.label);
  // Inside a write's transaction the ancestor is locked, so its concurrent delete either comes
  // first (seen here) or waits and then takes the new comment down with it.
  const row = db.inTransaction(ctx)
    ? (await repo.lockMany([id])).find((r) => Object.entries(table.where ?? {}).every(([k, v]) => (r as unknown as Record<string, unknown>)[k] === v))
    : await repo.findOne({ ...table.where, id } as FindOptionsWhere<AncestorRow>);
  if (!row) return 'missing';
  return row.deleted ? 'deleted' : 'live';
}

/**
 * The one ancestor check of comments: the record `kind`/`id` must exist in the caller's site.
 * A missing ancestor named in a path is a 404; named in a body field (`field`), a 400 naming it.
 * Answers the state so callers can refuse a deleted ancestor where that matters.
 */
export async function assertAncestorExists(db: TenantDb, ctx: RequestContext, kind: CommentKind, id: string, field?: string): Promise<AncestorState> {
  const state = await ancestorState(db, ctx, kind, id);
  if (state !== 'missing') return state;
  const label = ANCESTOR_TABLES[kind]?.label ?? kind;
  if (field) throw new ValidationError([{ field, message: `${field} ${id} is not a ${label.toLowerCase()} of this site` }]);
  throw new NotFoundError(label, id);
}
