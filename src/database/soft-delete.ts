import { In, type EntityTarget, type FindOptionsWhere, type ObjectLiteral } from 'typeorm';
import type { RequestContext } from '../common/context/request-context.js';
import { ConflictError } from '../common/errors/errors.js';
import type { TenantEntity } from './entities/base.entity.js';
import type { ScopedRepository, TenantDb, TenantTx } from './tenant-db.js';

/**
 * Soft delete, one small helper every soft-deletable resource uses (docs/architecture.md, "Soft
 * delete"): DELETE sets Deleted and takes down what the record owns by reference; undelete
 * restores the record and exactly those rows; updating a deleted record is 409 `deleted`. Each
 * runs in one transaction, with the record locked, its If-Match checked in the UPDATE, and the
 * owned rows changed in the same transaction.
 */
export interface SoftDeletable extends TenantEntity, ObjectLiteral {
  id: string | number;
  deleted: boolean;
  deletedByRef: boolean;
}

/** Rows of another table that belong to an owner and follow it into deletion and back. */
export interface OwnedRows {
  /** What the rows are (for readers and logs). */
  readonly name: string;
  /** Marks the live rows of these owners Deleted and DeletedByRef. */
  takeDown(tx: TenantTx, ownerIds: readonly string[]): Promise<unknown>;
  /** Restores the rows of these owners that a take-down marked. */
  restore(tx: TenantTx, ownerIds: readonly string[]): Promise<unknown>;
}

export interface SoftDeleteOptions<T> {
  /** The resource's name in messages and 404s ("Project", "Department"). */
  label: string;
  /** What the record owns (from the by-reference registry). */
  owned?: readonly OwnedRows[];
  /** May the caller change this record? Throws 403 when not. Runs on the locked row. */
  authorize?: (row: T) => Promise<void> | void;
  /** Checks that must hold for the change (409 and friends), inside the same transaction. */
  guard?: (tx: TenantTx, row: T) => Promise<void> | void;
  /**
   * Records of the same table that go down with this one and come back with it (an
   * organization's subtree): `down` lists the live ones to mark DeletedByRef, `up` the ones a
   * take-down marked.
   */
  subtree?: { down(tx: TenantTx, row: T): Promise<string[]>; up(tx: TenantTx, row: T): Promise<string[]> };
}

/** 409 `deleted` when the record is deleted: changing it needs an undelete first. */
export function assertLive(row: Pick<SoftDeletable, 'deleted' | 'id'>, label: string): void {
  if (row.deleted) throw new ConflictError(`${label} ${row.id} is deleted; undelete it before changing it`, 'deleted');
}

/**
 * DELETE of a soft-deletable record. Idempotent: deleting a deleted record changes nothing,
 * except that one deleted by reference becomes deleted in its own right (so its owner's undelete
 * leaves it deleted).
 */
export async function softDelete<T extends SoftDeletable>(
  db: TenantDb,
  ctx: RequestContext,
  entity: EntityTarget<T>,
  id: string | number,
  o: SoftDeleteOptions<T>,
): Promise<Record<string, never>> {
  await db.transaction(ctx, async (tx) => {
    const repo = tx.repo(entity, o.label);
    const row = await repo.lock(id);
    await o.authorize?.(row);
    if (row.deleted) {
      if (row.deletedByRef) await repo.update(id, { deletedByRef: false }, { ifMatch: true });
      return;
    }
    await o.guard?.(tx, row);
    const subtree = o.subtree ? await o.subtree.down(tx, row) : [];
    await repo.update(id, { deleted: true, deletedByRef: false }, { ifMatch: true });
    await inChunks(subtree, (ids) => repo.updateWhere(idIn<T>(ids), { deleted: true, deletedByRef: true }));
    const owners = [String(id), ...subtree];
    for (const owned of o.owned ?? []) await inChunks(owners, (ids) => owned.takeDown(tx, ids));
  });
  return {};
}

/**
 * Undelete: restores the record, the records of its subtree a take-down marked, and the rows it
 * owns that were taken down with it. Undeleting a live record answers it unchanged.
 */
export async function softUndelete<T extends SoftDeletable>(
  db: TenantDb,
  ctx: RequestContext,
  entity: EntityTarget<T>,
  id: string | number,
  o: SoftDeleteOptions<T>,
): Promise<T> {
  return db.transaction(ctx, async (tx) => {
    const repo = tx.repo(entity, o.label);
    const row = await repo.lock(id);
    await o.authorize?.(row);
    if (!row.deleted) return row;
    await o.guard?.(tx, row);
    const subtree = o.subtree ? await o.subtree.up(tx, row) : [];
    const saved = await repo.update(id, { deleted: false, deletedByRef: false }, { ifMatch: true });
    await inChunks(subtree, (ids) => repo.updateWhere(idIn<T>(ids), { deleted: false, deletedByRef: false }));
    const owners = [String(id), ...subtree];
    for (const owned of o.owned ?? []) await inChunks(owners, (ids) => owned.restore(tx, ids));
    return saved;
  });
}

/** The record for an update: locked in the caller's transaction, 409 when deleted. */
export async function lockLive<T extends SoftDeletable>(tx: TenantTx, entity: EntityTarget<T>, id: string | number, label: string): Promise<T> {
  const row = await tx.repo(entity, label).lock(id);
  assertLive(row, label);
  return row;
}

/**
 * The two directions of a change by reference: a take-down marks the live rows Deleted and
 * DeletedByRef (rows deleted before stay as they were); a restore brings back exactly the rows a
 * take-down marked.
 */
const BY_REF = {
  takeDown: { rows: { deleted: false }, set: { deleted: true, deletedByRef: true } },
  restore: { rows: { deletedByRef: true }, set: { deleted: false, deletedByRef: false } },
} as const;
export type ByRefChange = keyof typeof BY_REF;

/** The owned rows matching `where`, taken down or restored by reference in one UPDATE; answers how many changed. */
export function markByRef<T extends SoftDeletable>(repo: ScopedRepository<T>, where: FindOptionsWhere<T>, change: ByRefChange): Promise<number> {
  return repo.updateWhere({ ...where, ...BY_REF[change].rows } as FindOptionsWhere<T>, BY_REF[change].set);
}

/**
 * The same for rows read first (their ids are what the change hands on: what those rows own in
 * turn follows them), changed in chunks; answers the ids changed.
 */
export async function markFoundByRef<T extends SoftDeletable & { id: string }>(
  repo: ScopedRepository<T>,
  where: FindOptionsWhere<T>,
  change: ByRefChange,
): Promise<string[]> {
  const rows = await repo.find({ where: { ...where, ...BY_REF[change].rows } as FindOptionsWhere<T>, select: { id: true } as never });
  const ids = rows.map((r) => r.id);
  await inChunks(ids, (chunk) => repo.updateWhere(idIn<T>(chunk), BY_REF[change].set));
  return ids;
}

function idIn<T>(ids: readonly string[]): FindOptionsWhere<T> {
  return { id: In([...ids]) } as unknown as FindOptionsWhere<T>;
}

/** Runs `fn` on slices of `ids` small enough for any driver's bound-parameter limit. */
export async function inChunks(ids: readonly string[], fn: (chunk: string[]) => Promise<unknown>, size = 500): Promise<void> {
  for (let i = 0; i < ids.length; i += size) await fn(ids.slice(i, i + size));
}
