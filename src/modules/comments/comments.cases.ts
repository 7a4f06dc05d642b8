import { creates, example, type FeatureCases, inList, type KindCase, on, patches, type RouteCase, updates, usedUp } from '../../testing/cases.js';
import './dto/comment.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The comment on the worker (the World has one on every kind of ancestor). */
    comment: string;
  }
}

/** The kinds of record a comment hangs under (docs/comments.md), by their collection path. */
const ANCESTORS = [
  ['individuals', 'individual'],
  ['organizations', 'organization'],
  ['departments', 'department'],
  ['projects', 'project'],
  ['metrics', 'metric'],
  ['tasks', 'task'],
  ['dialogs', 'dialog'],
] as const;

const comment: KindCase = {
  path: 'comments',
  body: (w) => example('CreateCommentDto', { INDIVIDUAL_ID: w.ids.individual }),
  needs: ANCESTORS.map(([, kind]) => kind),
  // A comment on each kind of ancestor; the World's comment is the worker's.
  world: async (h, w) => {
    let onWorker = '';
    for (const [path, kind] of ANCESTORS) {
      const c = await h.send(w, 'post', 'comments', { AncestorType: path, AncestorID: w.ids[kind], Body: `${w.tag} comment on ${path}` });
      if (kind === 'individual') onWorker = String(c.ID);
    }
    return onWorker;
  },
};

/** Comments (docs/comments.md). */
export default {
  kinds: { comment },
  routes: {
    ...Object.fromEntries(ANCESTORS.map(([path, kind]): [string, RouteCase] => [`GET /v4/${path}/:ancestorid/comments`, on(kind, 'ancestorid')])),
    'GET /v4/me/comments': {},
    'POST /v4/comments': creates(comment),
    'PUT /v4/comments/:id': updates('comment', 'UpdateCommentDto'),
    'PATCH /v4/comments/:id': patches('comment', 'PatchCommentDto'),
    'DELETE /v4/comments/:id': usedUp('comment'),
    'PUT /v4/comments/:id/undelete': on('comment'),
  },
  patches: [
    {
      route: 'PATCH /v4/comments/:id',
      root: 'Comment',
      read: inList((w) => `/v4/individuals/${w.ids.individual}/comments`),
      change: ['Body', 'Written in JSON', 'Written in XML'],
      required: 'Body',
    },
  ],
} satisfies FeatureCases;
