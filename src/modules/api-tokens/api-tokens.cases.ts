import { type FeatureCases, type KindCase, on, usedUp } from '../../testing/cases.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** An API token of the site (its secret is not kept). */
    apitoken: string;
  }
}

const apitoken: KindCase = { path: 'apitokens', body: () => ({ Name: 'World token', Scopes: '*:read' }) };

/** API tokens (docs/security.md): for administrators only. */
export default {
  kinds: { apitoken },
  routes: {
    'GET /v4/apitokens': {},
    'POST /v4/apitokens': { body: () => ({ Name: 'Matrix token', Scopes: '*:read' }) },
    'GET /v4/apitokens/:id': on('apitoken'),
    'DELETE /v4/apitokens/:id': usedUp('apitoken'),
  },
} satisfies FeatureCases;
