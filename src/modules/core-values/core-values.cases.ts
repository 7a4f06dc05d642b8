import { creates, example, type FeatureCases, inList, type KindCase, on, patches, site, text, updates, usedUp } from '../../testing/cases.js';
import './dto/core-value.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** A core value of the site. */
    corevalue: string;
  }
}

const corevalue: KindCase = { path: 'corevalues', body: () => example('CreateCoreValueDto', {}) };

/** Core values (docs/goals-colors-values-commitments.md): listed, never read one by one. */
export default {
  kinds: { corevalue },
  routes: {
    'GET /v4/corevalues': {},
    'GET /v4/sites/:siteId/corevalues': site('siteId'),
    'POST /v4/corevalues': creates(corevalue),
    'PUT /v4/corevalues/:id': updates('corevalue', 'UpdateCoreValueDto'),
    'PATCH /v4/corevalues/:id': patches('corevalue', 'PatchCoreValueDto'),
    'DELETE /v4/corevalues/:id': usedUp('corevalue'),
    'PUT /v4/corevalues/:id/undelete': on('corevalue'),
  },
  patches: [
    {
      route: 'PATCH /v4/corevalues/:id',
      root: 'CoreValue',
      read: inList(() => '/v4/corevalues'),
      change: ['Description', 'Described in JSON', 'Described in XML'],
      clears: ['Description', 'To be cleared'],
      required: 'Name',
      concurrent: ['Name', text('Value'), 'Rank', (round) => round + 5],
    },
  ],
} satisfies FeatureCases;
