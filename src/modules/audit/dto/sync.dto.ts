import { UPDATED_SINCE } from '../../../common/http/delta-list.js';
import { InputField } from '../../../common/http/wire.js';
import { MAX_LIMIT } from '../../../common/pagination/pagination.js';

export class SyncQuery {
  @InputField('string', {
    required: true,
    max: 40,
    description: UPDATED_SINCE,
  })
  updatedSince!: string;

  @InputField('int', { minValue: 1, maxValue: MAX_LIMIT, description: 'Changes per page, default 500.' })
  limit?: number;
}
