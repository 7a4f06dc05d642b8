import { randomUUID } from 'node:crypto';
import { creates, type FeatureCases, type KindCase, on, samePath, text, usedUp } from '../../testing/cases.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** An identity provider of the site. */
    identityprovider: string;
  }
}

// Issuer and client id are unique across sites: each identity provider of a world gets its own issuer.
const identityprovider: KindCase = {
  path: 'identityproviders',
  body: () => ({ Name: 'World IdP', Issuer: `https://idp.example.com/${randomUUID()}`, ClientID: 'pms' }),
};

/** Identity providers (docs/identity.md). */
export default {
  kinds: { identityprovider },
  routes: {
    'GET /v4/identityproviders': {},
    'GET /v4/identityproviders/collisions': {},
    'POST /v4/identityproviders': creates(identityprovider),
    'GET /v4/identityproviders/:id': on('identityprovider'),
    'PUT /v4/identityproviders/:id': {
      ...on('identityprovider'),
      body: (_w, p) => ({ ID: p.id, Name: 'Renamed IdP', Issuer: `https://idp.example.com/${p.id}`, ClientID: 'pms' }),
    },
    'PATCH /v4/identityproviders/:id': { ...on('identityprovider'), body: () => ({ Name: 'Patched IdP' }) },
    'DELETE /v4/identityproviders/:id': usedUp('identityprovider'),
  },
  patches: [
    {
      route: 'PATCH /v4/identityproviders/:id',
      root: 'IdentityProvider',
      read: samePath,
      change: ['Name', 'Named in JSON', 'Named in XML'],
      clears: ['GroupsClaim', 'groups'],
      required: 'Name',
      concurrent: ['Name', text('IdP'), 'UserClaim', text('claim')],
    },
  ],
} satisfies FeatureCases;
