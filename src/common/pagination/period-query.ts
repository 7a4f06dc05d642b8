import { InputField } from '../http/wire.js';
import { PageQuery } from './pagination.js';

/** `period`: an integer period id; default the period containing today, else the latest one. */
export class PeriodQuery extends PageQuery {
  @InputField('int', { description: 'Period id. Default: the period containing today, else the latest period.' })
  period?: number;
}
