import { example, type FeatureCases, samePath, site, text } from '../../testing/cases.js';
import './dto/site.dto.js';

/** Sites (docs/identity-and-tenancy.md): the World's own site. */
export default {
  routes: {
    'GET /v4/sites': {},
    'POST /v4/sites': { body: () => example('CreateSiteDto', {}) },
    'GET /v4/sites/:siteid': site(),
    'PUT /v4/sites/:siteid': { ...site(), body: (w, p) => ({ ...example('UpdateSiteDto', { PATH_ID: p.siteid }), Name: `${w.tag} site` }) },
    'PATCH /v4/sites/:siteid': { ...site(), body: (w) => ({ Name: `${w.tag} site` }) },
  },
  patches: [
    {
      route: 'PATCH /v4/sites/:siteid',
      root: 'Site',
      read: samePath,
      change: ['Name', 'Site named in JSON', 'Site named in XML'],
      required: 'Name',
      // The last round leaves performance management on, as the other rows need it.
      concurrent: ['Name', text('Site'), 'PerformanceManagement', (round) => round % 2 === 1],
      caller: (h) => h.globalAdminToken,
      foreign: 403,
    },
  ],
} satisfies FeatureCases;
