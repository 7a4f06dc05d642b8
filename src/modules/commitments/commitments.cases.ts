import { creates, d, example, type FeatureCases, inList, type KindCase, on, patches, text, updates, usedUp } from '../../testing/cases.js';
import './dto/commitment.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The worker's commitment in the current period. */
    commitment: number;
  }
}

const commitment: KindCase = {
  path: 'commitments',
  body: (w) => example('CreateCommitmentDto', { INDIVIDUAL_ID: w.ids.individual, PERIOD_ID: w.ids.period }),
  intId: true,
  needs: ['individual', 'period'],
};

/** Commitments (docs/goals-colors-values-commitments.md). */
export default {
  kinds: { commitment },
  routes: {
    'GET /v4/individuals/:id/commitments': on('individual'),
    'GET /v4/organizations/:id/commitments': on('organization'),
    'GET /v4/departments/:id/commitments': on('department'),
    'GET /v4/dashboards/:ancestorId/commitments/:type': { params: (w) => ({ ancestorId: w.ids.individual, type: 'individual' }) },
    'POST /v4/commitments': creates(commitment),
    'PUT /v4/commitments/:id': updates('commitment', 'UpdateCommitmentDto', (w) => ({ PERIOD_ID: w.ids.period })),
    'PATCH /v4/commitments/:id': patches('commitment', 'PatchCommitmentDto'),
    'DELETE /v4/commitments/:id': usedUp('commitment'),
  },
  patches: [
    {
      route: 'PATCH /v4/commitments/:id',
      root: 'Commitment',
      read: inList((w) => `/v4/individuals/${w.ids.individual}/commitments?period=${w.ids.period}`),
      change: ['Description', 'Described in JSON', 'Described in XML'],
      clears: ['DueDate', d('2027-04-30')],
      required: 'Name',
      concurrent: ['Name', text('Commitment'), 'Description', text('Description')],
    },
  ],
} satisfies FeatureCases;
