import { creates, example, type FeatureCases, type KindCase, on, patches, samePath, updates, usedUp } from '../../testing/cases.js';
import './dto/assessment.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The manager's assessment of the worker in the current period. */
    assessment: string;
  }
}

const assessment: KindCase = {
  path: 'assessments',
  body: ({ ids, manager }) => ({
    ...example('CreateAssessmentDto', { INDIVIDUAL_ID: ids.individual, PERIOD_ID: ids.period }),
    Kind: 'leader',
    AssessorID: manager.individualId,
  }),
  needs: ['individual', 'period'],
};

/** Assessments (docs/dialogs-tasks-roles-assessments.md). */
export default {
  kinds: { assessment },
  routes: {
    'GET /v4/assessments': {},
    'GET /v4/individuals/:id/assessments': on('individual'),
    'POST /v4/assessments': creates(assessment),
    'GET /v4/assessments/:id': on('assessment'),
    'PUT /v4/assessments/:id': updates('assessment', 'UpdateAssessmentDto'),
    'PATCH /v4/assessments/:id': patches('assessment', 'PatchAssessmentDto'),
    'DELETE /v4/assessments/:id': usedUp('assessment'),
  },
  patches: [
    {
      route: 'PATCH /v4/assessments/:id',
      root: 'Assessment',
      read: samePath,
      change: ['Ratings', [{ ItemKind: 'general', ItemID: null, Rating: 2 }], [{ ItemKind: 'general', ItemID: null, Rating: 4 }]],
      clears: ['Ratings', [{ ItemKind: 'general', ItemID: null, Rating: 1 }], []],
      required: 'PeriodID',
      concurrent: [
        'PeriodID',
        (round, w) => (round % 2 === 0 ? w.ids.period : w.ids.closedPeriod),
        'Ratings',
        (round) => [{ ItemKind: 'general', ItemID: null, Rating: (round % 5) + 1 }],
      ],
    },
  ],
} satisfies FeatureCases;
