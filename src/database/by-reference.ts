import { Injectable } from '@nestjs/common';
import type { OwnedRows } from './soft-delete.js';

/** The kinds of record whose deletion takes rows of other tables down by reference. */
export type Owner = 'individual' | 'organization' | 'project' | 'metric' | 'dialog' | 'task';

/**
 * The one registry of what each kind of record takes down by reference when it is deleted, and
 * restores when it is undeleted (docs/architecture.md, "Soft delete"). It knows no feature: a
 * feature whose rows hang off an owner registers them when its module starts (`onModuleInit`:
 * comments, list items, metrics, basic roles, memberships), and the owners' DELETE and undelete
 * ask `ownedBy(owner)` and hand it to `softDelete` / `softUndelete`. Every entry changes rows of
 * its own table, so the order of the entries does not change what a delete does.
 */
@Injectable()
export class ByReference {
  private readonly owned = new Map<Owner, OwnedRows[]>();

  /** `rows` go down and come back with each record of `owner`. */
  register(owner: Owner, rows: OwnedRows): void {
    const list = this.owned.get(owner) ?? [];
    if (list.some((r) => r.name === rows.name)) throw new Error(`${rows.name} is registered twice under ${owner}`);
    this.owned.set(owner, [...list, rows]);
  }

  /** What an owner's deletion takes down by reference. */
  ownedBy(owner: Owner): readonly OwnedRows[] {
    return this.owned.get(owner) ?? [];
  }
}
