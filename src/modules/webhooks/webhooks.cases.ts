import { creates, example, type FeatureCases, type KindCase, on, patches, samePath, text, updates, usedUp } from '../../testing/cases.js';
import './dto/webhook.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** A webhook of the site, and the one delivery attempt in its log (a ping). */
    webhook: string;
    delivery: string;
  }
}

// Made last, so none of the World's own writes is an event for it: its log holds only the ping.
const webhook: KindCase = { path: 'webhooks', body: () => example('CreateWebhookDto', {}), last: true };

/** Webhooks and their delivery log (docs/events.md). */
export default {
  kinds: { webhook },
  steps: [
    {
      makes: ['delivery'],
      needs: ['webhook'],
      run: async (h, w) => ({ delivery: String((await h.send(w, 'post', `webhooks/${w.ids.webhook}/ping`, {})).ID) }),
    },
  ],
  routes: {
    'GET /v4/webhooks': {},
    'POST /v4/webhooks': creates(webhook),
    'GET /v4/webhooks/:id': on('webhook'),
    'PUT /v4/webhooks/:id': updates('webhook', 'UpdateWebhookDto'),
    'PATCH /v4/webhooks/:id': patches('webhook', 'PatchWebhookDto'),
    'DELETE /v4/webhooks/:id': usedUp('webhook'),
    'GET /v4/webhooks/:id/deliveries': on('webhook'),
    'POST /v4/webhooks/:id/deliveries/:deliveryid/redeliver': { params: (w) => ({ id: w.ids.webhook, deliveryid: w.ids.delivery }) },
    'POST /v4/webhooks/:id/ping': on('webhook'),
    'POST /v4/webhooks/:id/rotate-secret': on('webhook'),
  },
  patches: [
    {
      route: 'PATCH /v4/webhooks/:id',
      root: 'Webhook',
      read: samePath,
      change: ['EventTypes', 'dialog.held', 'task.completed'],
      clears: ['Description', 'To be cleared'],
      required: 'URL',
      concurrent: ['Description', text('Hook'), 'EventTypes', (round) => `period.closed task.r${round}`],
    },
  ],
} satisfies FeatureCases;
