import { creates, example, type FeatureCases, type KindCase, on, patches, samePath, site, text, unique, updates, usedUp } from '../../testing/cases.js';
import './dto/individual.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The subject of every record of the World: its worker. */
    individual: string;
  }
}

const individual: KindCase = {
  path: 'individuals',
  body: (w) => ({ ...example('CreateIndividualDto', { ORGANIZATION_ID: w.orgId }), UserName: unique('u.'), Password: 'password-123' }),
  world: (_h, w) => w.worker.individualId,
};

/** Individuals (docs/individuals.md): the World's subject is the site's worker. */
export default {
  kinds: { individual },
  routes: {
    'GET /v4/me': {},
    'GET /v4/individuals': {},
    'GET /v4/sites/:siteid/individuals': site(),
    'POST /v4/individuals': creates(individual),
    'POST /v4/individuals/bulk': { body: (w) => ({ Items: [{ Op: 'create', Record: individual.body!(w) }] }) },
    'GET /v4/individuals/:id': on('individual'),
    'PUT /v4/individuals/:id': updates('individual', 'UpdateIndividualDto', (w) => ({ USER_NAME: w.worker.userName })),
    'PATCH /v4/individuals/:id': patches('individual', 'PatchIndividualDto'),
    'DELETE /v4/individuals/:id': usedUp('individual'),
    'PUT /v4/individuals/:id/undelete': on('individual'),
  },
  patches: [
    {
      route: 'PATCH /v4/individuals/:id',
      root: 'Individual',
      read: samePath,
      change: ['UserDefined1', 'Set in JSON', 'Set in XML'],
      clears: ['UserDefined2', 'To be cleared'],
      required: 'FirstName',
      concurrent: ['UserDefined3', text('three'), 'UserDefined4', text('four')],
    },
  ],
} satisfies FeatureCases;
