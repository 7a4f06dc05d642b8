import { creates, d, example, type FeatureCases, type KindCase, on, patches, samePath, text, updates, usedUp } from '../../testing/cases.js';
import './dto/dialog.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The worker's dialog in the current period, led by the manager. */
    dialog: string;
  }
}

const dialog: KindCase = {
  path: 'dialogs',
  body: ({ ids, manager }) => ({ ...example('CreateDialogDto', { INDIVIDUAL_ID: ids.individual, PERIOD_ID: ids.period }), LeaderID: manager.individualId }),
  needs: ['individual', 'period'],
};

/** Dialogs (docs/dialogs-tasks-roles-assessments.md). */
export default {
  kinds: { dialog },
  routes: {
    'GET /v4/dialogs': {},
    'GET /v4/individuals/:id/dialogs': on('individual'),
    'POST /v4/dialogs': creates(dialog),
    'GET /v4/dialogs/:id': on('dialog'),
    'PUT /v4/dialogs/:id': updates('dialog', 'UpdateDialogDto', ({ ids, manager }) => ({ INDIVIDUAL_ID: manager.individualId, PERIOD_ID: ids.period })),
    'PATCH /v4/dialogs/:id': patches('dialog', 'PatchDialogDto'),
    'DELETE /v4/dialogs/:id': usedUp('dialog'),
    'PUT /v4/dialogs/:id/undelete': on('dialog'),
  },
  patches: [
    {
      route: 'PATCH /v4/dialogs/:id',
      root: 'Dialog',
      read: samePath,
      change: ['Notes', 'Noted in JSON', 'Noted in XML'],
      clears: ['OccurredDate', d('2027-03-16')],
      required: 'LeaderID',
      concurrent: ['Notes', text('Notes'), 'OccurredDate', (round) => d(`2027-03-${10 + round}`)],
    },
  ],
} satisfies FeatureCases;
