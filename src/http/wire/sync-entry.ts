import { field, resource } from './resource.js';
import type { WireResultMeta } from './wire.js';

/** One entry of a delta-sync page as the service holds it. */
export interface SyncEntryRow {
  seq: number;
  id: string;
  deleted: boolean;
  updated: Date;
  record: object | null;
}

/**
 * One changed record of a delta-sync page (docs/delta-sync.md): the record, or its tombstone. The
 * answer of `GET /v4/sync/{kind}` and of every list asked with `updatedSince`.
 */
export const SyncEntry = resource<SyncEntryRow>()('SyncEntry', {
  fields: {
    ID: field.string('RO', { column: 'id', description: 'The record’s ID (an integer ID as text).' }),
    Deleted: field.bool('RO', { column: 'deleted', description: 'A tombstone: the record was deleted (soft or hard) since the cursor; `Record` is null.' }),
    Updated: field.dateTimeOffset('RO', { column: 'updated', description: 'When the change was committed (a tombstone: when it was deleted).' }),
    Seq: field.int('RO', { column: 'seq', description: 'The site change sequence number of the newest change of the record in this page.' }),
    Record: field.object('RO', {
      column: 'record',
      nullable: true,
      description: 'The record as its GET answers it for the caller (the collection’s record type); null for a tombstone.',
    }),
  },
});
export const SyncEntryDto = SyncEntry.Response;
export type SyncEntryDto = InstanceType<typeof SyncEntryDto>;

/** How a page of SyncEntry items is written (XML root `ArrayOfSyncEntry`), whatever route answers it. */
export const SYNC_ENTRIES: WireResultMeta = { type: SyncEntryDto, collection: true, root: 'ArrayOfSyncEntry' };
