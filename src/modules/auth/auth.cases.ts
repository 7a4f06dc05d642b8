import { type FeatureCases } from '../../testing/cases.js';

/** Logins and logout everywhere (docs/identity-and-tenancy.md). */
export default {
  routes: {
    'POST /v4/auth/token': {
      body: (w) => ({ UserName: w.worker.userName, Password: w.worker.password }),
      foreignSiteId: { status: 403, why: 'SiteID of a login names the site to act in: only a global administrator may name another' },
    },
    'POST /v4/auth/logout-everywhere': { endsCallerTokens: true },
  },
} satisfies FeatureCases;
