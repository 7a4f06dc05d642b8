import { type FeatureCases } from '../../testing/cases.js';

/** The probes (docs/operations.md): public, about no record. */
export default {
  routes: {
    'GET /health/live': {},
    'GET /health/ready': {},
  },
} satisfies FeatureCases;
