import { type FeatureCases } from '../../testing/cases.js';

/** The audit trail, a record's history and delta sync (docs/audit.md, docs/delta-sync.md), called on kinds of other features. */
export default {
  routes: {
    'GET /v4/audit': {},
    'GET /v4/:kind/:id/history': { params: (w) => ({ kind: 'individuals', id: w.ids.individual }) },
    'GET /v4/sync/:kind': {
      params: () => ({ kind: 'colors' }),
      query: () => ({ updatedSince: 'seq-0' }),
      foreign: { status: 200, why: 'names a collection, not a record: answers the changes of the caller’s own site' },
    },
  },
} satisfies FeatureCases;
