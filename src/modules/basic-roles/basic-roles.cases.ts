import { creates, example, type FeatureCases, type KindCase, on, patches, type RouteCase, samePath, site, text, updates, usedUp } from '../../testing/cases.js';
import './dto/basic-role.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The worker's basic role, with a record in the World's dialog. */
    basicrole: string;
  }
}

const basicrole: KindCase = { path: 'basicroles', body: (w) => example('CreateBasicRoleDto', { INDIVIDUAL_ID: w.ids.individual }), needs: ['individual'] };
/** The World's role in the World's dialog. */
const inDialog: RouteCase = { params: (w) => ({ basicRoleid: w.ids.basicrole, dialogid: w.ids.dialog }) };

/** Basic roles and their records in dialogs (docs/dialogs-tasks-roles-assessments.md). */
export default {
  kinds: { basicrole },
  steps: [
    {
      makes: ['basic role in dialog'],
      needs: ['basicrole', 'dialog'],
      run: async (h, w) => void (await h.send(w, 'put', `basicroles/${w.ids.basicrole}/dialogs/${w.ids.dialog}`, example('PutBasicRoleDialogDto', {}))),
    },
  ],
  routes: {
    'GET /v4/me/basicroles': {},
    'GET /v4/sites/:siteid/individuals/basicroles': site(),
    'GET /v4/individuals/:individualid/basicroles': on('individual', 'individualid'),
    'GET /v4/individuals/:individualid/basicroles/:id': { params: (w) => ({ individualid: w.ids.individual, id: w.ids.basicrole }) },
    'POST /v4/basicroles': creates(basicrole),
    'GET /v4/basicroles/:id': on('basicrole'),
    'PUT /v4/basicroles/:id': updates('basicrole', 'UpdateBasicRoleDto'),
    'PATCH /v4/basicroles/:id': patches('basicrole', 'PatchBasicRoleDto'),
    'DELETE /v4/basicroles/:id': usedUp('basicrole'),
    'PUT /v4/basicroles/:id/undelete': on('basicrole'),
    'GET /v4/dialogs/:dialogid/basicroledialogs': on('dialog', 'dialogid'),
    'GET /v4/basicroles/:basicRoleid/dialogs/:dialogid': inDialog,
    'PUT /v4/basicroles/:basicRoleid/dialogs/:dialogid': { ...inDialog, body: () => example('PutBasicRoleDialogDto', {}) },
    'PATCH /v4/basicroles/:basicRoleid/dialogs/:dialogid': { ...inDialog, body: () => example('PatchBasicRoleDialogDto', {}) },
  },
  patches: [
    {
      route: 'PATCH /v4/basicroles/:id',
      root: 'BasicRole',
      read: samePath,
      change: ['Description', 'Described in JSON', 'Described in XML'],
      clears: ['Description', 'To be cleared'],
      required: 'Name',
      concurrent: ['Name', text('Role'), 'DialogsPerPeriod', (round) => round + 1],
    },
    {
      route: 'PATCH /v4/basicroles/:basicRoleid/dialogs/:dialogid',
      root: 'BasicRoleDialog',
      read: samePath,
      change: ['Comment', 'Commented in JSON', 'Commented in XML'],
      clears: ['Rating', 2],
      concurrent: ['Rating', (round) => (round % 5) + 1, 'Comment', text('Comment')],
    },
  ],
} satisfies FeatureCases;
