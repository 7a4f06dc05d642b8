import type { Type } from '@nestjs/common';
import type { RequestContext } from '../common/context/request-context.js';
import { mergedInput, patchBody } from '../http/pipeline/merge-patch.js';
import type { TenantDb } from './tenant-db.js';

/** How one resource's PATCH reads its record and runs its PUT (see `patchRecord`). */
export interface PatchPlan<D, R> {
  /**
   * Locks the record (and, before it, whatever the update locks ahead of it, in the same order)
   * and answers it as a client reads it; null for a record that does not exist yet (a PUT that
   * creates). 404 for a record not of the site.
   */
  current: () => Promise<object | null>;
  /** The resource's update input class: the body of its PUT. */
  input: Type<D>;
  /** The PUT's service path, given the merged input. */
  update: (dto: D) => Promise<R>;
  /** The PUT replaces the whole record: an absent member is cleared (see MergeOptions). */
  replaces?: boolean;
}

/**
 * A PATCH (docs/http-and-xml.md, "PATCH"; docs/architecture.md, "How a write runs"): in one
 * transaction, the record is locked and read, the patch merged over it and validated as the
 * resource's update input, and the resource's own update runs on the result — joining the
 * transaction, with its checks, its If-Match and its answer. The lock is taken before the read,
 * so a concurrent write of the record either commits before it (and is read) or waits for this
 * one to commit: no change made meanwhile is written over with a stale value.
 */
export function patchRecord<D extends object, R>(db: TenantDb, ctx: RequestContext, patch: unknown, plan: PatchPlan<D, R>): Promise<R> {
  const body = patchBody(patch);
  return db.transaction(ctx, async () => plan.update(await mergedInput(await plan.current(), body, plan.input, { replaces: plan.replaces })));
}

/**
 * The PATCH of a resource whose PUT takes its declared update input: the record `repo` locks by
 * `id`, answered as the resource answers it (or as `show` answers it, where the service adds what
 * the row lacks), is the current state (see `patchRecord`). The scoped repository joins the
 * transaction when it is called, inside it.
 */
export function patchResource<E, D extends object, R>(
  db: TenantDb,
  ctx: RequestContext,
  patch: unknown,
  resource: { toWire(row: E): object; readonly Update: Type<D> },
  repo: { lock(id: string | number): Promise<E> },
  id: string | number,
  update: (dto: D) => Promise<R>,
  show: (row: E) => object | Promise<object> = (row) => resource.toWire(row),
): Promise<R> {
  return patchRecord(db, ctx, patch, { current: async () => show(await repo.lock(id)), input: resource.Update, update });
}
