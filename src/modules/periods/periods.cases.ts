import {
  type CaseHarness,
  creates,
  example,
  type FeatureCases,
  type KindCase,
  on,
  patches,
  samePath,
  text,
  updates,
  usedUp,
  type World,
  d,
} from '../../testing/cases.js';
import './dto/period.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The open period around today. */
    period: number;
    /** A period that ended half a year ago, closed once the World's metrics have values in it (its archives). */
    closedPeriod: number;
  }
}

const DAY = 24 * 3600 * 1000;
/** A period of the World named `name`, from `start` to `end` days from now. */
const periodOf = async (h: CaseHarness, w: World, Name: string, start: number, end: number) => {
  const at = (days: number) => new Date(Date.now() + days * DAY).toISOString();
  return Number((await h.send(w, 'post', 'periods', { Name, StartDate: at(start), EndDate: at(end) })).ID);
};

const period: KindCase = { path: 'periods', body: () => example('CreatePeriodDto', {}), intId: true };

/** Periods (docs/periods-projects.md). */
export default {
  kinds: {
    closedPeriod: { intId: true, world: (h, w) => periodOf(h, w, 'Past', -400, -200) },
    period: { ...period, needs: ['closedPeriod'], world: (h, w) => periodOf(h, w, 'Current', -100, 100) },
  },
  routes: {
    'GET /v4/periods': {},
    'POST /v4/periods': creates(period),
    'GET /v4/periods/:id': on('period'),
    'PUT /v4/periods/:id': { ...updates('period', 'UpdatePeriodDto'), fresh: async (h, w) => ({ id: await h.make(w, 'period') }) },
    'PATCH /v4/periods/:id': { ...patches('period', 'PatchPeriodDto'), fresh: async (h, w) => ({ id: await h.make(w, 'period') }) },
    'DELETE /v4/periods/:id': usedUp('period'),
    'PUT /v4/periods/:id/close': usedUp('period'),
  },
  patches: [
    {
      route: 'PATCH /v4/periods/:id',
      root: 'Period',
      read: samePath,
      change: ['Name', 'Period named in JSON', 'Period named in XML'],
      required: 'StartDate',
      concurrent: ['Name', text('Period'), 'EndDate', (round) => d(`${2090 + round}-12-31`)],
    },
  ],
} satisfies FeatureCases;
