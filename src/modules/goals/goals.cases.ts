import { creates, d, example, type FeatureCases, type KindCase, on, patches, samePath, text, updates, usedUp } from '../../testing/cases.js';
import './dto/goal.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The worker's goal in the current period. */
    goal: number;
  }
}

const goal: KindCase = {
  path: 'goals',
  body: (w) => example('CreateGoalDto', { INDIVIDUAL_ID: w.ids.individual, PERIOD_ID: w.ids.period }),
  intId: true,
  needs: ['individual', 'period'],
};

/** Goals (docs/goals-colors-values-commitments.md). */
export default {
  kinds: { goal },
  routes: {
    'GET /v4/me/goals': {},
    'GET /v4/individuals/:id/goals': on('individual'),
    'POST /v4/goals': creates(goal),
    'POST /v4/goals/bulk': { body: (w) => ({ Items: [{ Op: 'create', Record: goal.body!(w) }] }) },
    'GET /v4/goals/:id': on('goal'),
    'PUT /v4/goals/:id': updates('goal', 'UpdateGoalDto', (w) => ({ PERIOD_ID: w.ids.period })),
    'PATCH /v4/goals/:id': patches('goal', 'PatchGoalDto'),
    'DELETE /v4/goals/:id': usedUp('goal'),
  },
  patches: [
    {
      route: 'PATCH /v4/goals/:id',
      root: 'Goal',
      read: samePath,
      change: ['Why', 'Because of JSON', 'Because of XML'],
      clears: ['Measure3EndDate', d('2027-12-30')],
      required: 'Measure1StartDate',
      concurrent: ['Why', text('Why'), 'Comment', text('Comment')],
    },
  ],
} satisfies FeatureCases;
