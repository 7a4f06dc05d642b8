import { type FeatureCases, on, type RouteCase, unique, usedUp, type World } from '../../testing/cases.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The secret of an API token of the site with the scope scim: what a SCIM client sends. */
    scimToken: string;
  }
}

/** SCIM provisioning (docs/identity.md): the world's scim token, bodies in SCIM's JSON; a create answers 201, a delete 204. */
const scim = (c: RouteCase = {}): RouteCase => ({ ...c, token: (w: World) => w.ids.scimToken, contentType: 'application/scim+json' });
const SAME = { status: 200, why: 'names a resource type or schema, the same in every site' };
const CREATED = { status: 201, why: 'SCIM answers a create 201 (the site is the token’s)' };
const DELETED = { status: 204, why: 'SCIM answers a delete 204' };
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export default {
  steps: [
    {
      makes: ['scimToken'],
      needs: [],
      run: async (h, w) => ({ scimToken: String((await h.send(w, 'post', 'apitokens', { Name: `${w.tag} SCIM`, Scopes: 'scim' })).Secret) }),
    },
  ],
  routes: {
    'GET /scim/v2/Users': scim(),
    'POST /scim/v2/Users': scim({
      body: () => ({ userName: `${unique('scim.')}@example.com`, name: { givenName: 'Sam', familyName: 'Scim' } }),
      foreignSiteId: CREATED,
    }),
    'GET /scim/v2/Users/:id': scim(on('individual')),
    // The subject keeps its manager and title: the matrices' reporting chain must not move.
    'PUT /scim/v2/Users/:id': scim({
      ...on('individual'),
      body: ({ worker, manager }) => ({
        userName: worker.userName,
        name: { givenName: 'Wil', familyName: 'Worker' },
        title: 'Tester',
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { manager: { value: manager.individualId } },
      }),
    }),
    'PATCH /scim/v2/Users/:id': scim({
      ...on('individual'),
      body: () => ({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'title', value: 'Tester' }] }),
    }),
    'DELETE /scim/v2/Users/:id': scim({ ...usedUp('individual'), foreignSiteId: DELETED }),
    'GET /scim/v2/Groups': scim(),
    'POST /scim/v2/Groups': scim({ body: (w) => ({ displayName: `${w.tag} SCIM group` }), foreignSiteId: CREATED }),
    'GET /scim/v2/Groups/:id': scim(on('securitygroup')),
    'PUT /scim/v2/Groups/:id': scim({ ...on('securitygroup'), body: (w) => ({ displayName: `${w.tag} SCIM group` }) }),
    'PATCH /scim/v2/Groups/:id': scim({
      ...on('securitygroup'),
      body: (w) => ({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: `${w.tag} SCIM group` }] }),
    }),
    'DELETE /scim/v2/Groups/:id': scim({ ...usedUp('securitygroup'), foreignSiteId: DELETED }),
    'GET /scim/v2/ServiceProviderConfig': scim(),
    'GET /scim/v2/ResourceTypes': scim(),
    'GET /scim/v2/ResourceTypes/:id': scim({ params: () => ({ id: 'User' }), foreign: SAME }),
    'GET /scim/v2/Schemas': scim(),
    'GET /scim/v2/Schemas/:id': scim({ params: () => ({ id: 'urn:ietf:params:scim:schemas:core:2.0:User' }), foreign: SAME }),
  },
} satisfies FeatureCases;
