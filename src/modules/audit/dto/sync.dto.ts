import { UPDATED_SINCE } from '../../../http/pipeline/delta-list.js';
import { InputField } from '../../../http/wire/wire.js';
import { MAX_LIMIT } from '../../../http/wire/pagination.js';

export class SyncQuery {
  @InputField('string', {
    required: true,
    max: 40,
    description: UPDATED_SINCE,
  })
  updatedSince!: string;

  @InputField('int', { minValue: 1, maxValue: MAX_LIMIT, description: 'Changes per page, default 500.' })
  limit?: number;

  @InputField('string', {
    max: 80,
    description:
      'Only the changes of one sub-list, as that list declares its records (docs/delta-sync.md): `{parent collection}/{id}` (`individuals/{id}` for a person’s goals, `departments/{id}` for a department’s members, `goals/{id}` for a goal’s comments…) or `me` (the caller’s own: `/v4/sync/tasks?parent=me`). The parent is read first as its GET reads it (404, 403). A record that leaves the parent within the changes read is a tombstone here. 400 names the parents the collection has.',
    example: 'individuals/00000000-0000-4000-8000-000000000001',
  })
  parent?: string;
}
