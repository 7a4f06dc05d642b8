import { field, resource } from '../../../common/http/resource.js';
import { InputField } from '../../../common/http/wire.js';
import { MAX_LIMIT } from '../../../common/pagination/pagination.js';

/** One entry of a delta-sync page as the service holds it. */
export interface SyncEntryRow {
  seq: number;
  id: string;
  deleted: boolean;
  updated: Date;
  record: object | null;
}

/** One changed record of a delta-sync page (docs/delta-sync.md): the record, or its tombstone. */
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

export class SyncQuery {
  @InputField('string', {
    required: true,
    max: 40,
    description:
      'Where to continue: the `X-Sync-Cursor` of the previous answer (`seq-<n>`), or, to start, an ISO 8601 instant (records changed at or after it), or `seq-0` for everything the change log still holds. 410 when the log no longer reaches back that far: read the list in full, then sync from its `X-Sync-Cursor`.',
  })
  updatedSince!: string;

  @InputField('int', { minValue: 1, maxValue: MAX_LIMIT, description: 'Changes per page, default 500.' })
  limit?: number;
}
