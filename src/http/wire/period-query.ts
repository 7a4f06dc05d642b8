import { InputField } from './wire.js';
import { PageQuery, QueriedPageQuery } from './pagination.js';

const PERIOD_DOC = 'Period id. Default: the period containing today, else the latest period.';

/** `period`: an integer period id; default the period containing today, else the latest one. */
export class PeriodQuery extends PageQuery {
  @InputField('int', { description: PERIOD_DOC })
  period?: number;
}

/** `period` on a list that also takes `filter`, `sort`, `fields` and `cursor` (docs/queries.md). */
export class QueriedPeriodQuery extends QueriedPageQuery {
  @InputField('int', { description: PERIOD_DOC })
  period?: number;
}
