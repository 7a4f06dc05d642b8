import { creates, example, type FeatureCases, type KindCase, on, patches, samePath, site, text, updates, usedUp } from '../../testing/cases.js';
import './dto/color.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** A color band of the site. */
    color: number;
  }
}

const color: KindCase = { path: 'colors', body: () => example('CreateColorDto', {}), intId: true };

/** Colors (docs/goals-colors-values-commitments.md). */
export default {
  kinds: { color },
  routes: {
    'GET /v4/colors': {},
    'GET /v4/colors/defaults': {},
    'GET /v4/sites/:siteid/colors': site(),
    'GET /v4/sites/:siteid/colors/defaults': site(),
    'POST /v4/colors': creates(color),
    'GET /v4/colors/:id': on('color'),
    'PUT /v4/colors/:id': updates('color', 'UpdateColorDto'),
    'PATCH /v4/colors/:id': patches('color', 'PatchColorDto'),
    'DELETE /v4/colors/:id': usedUp('color'),
  },
  patches: [
    {
      route: 'PATCH /v4/colors/:id',
      root: 'Color',
      read: samePath,
      change: ['Name', 'Named in JSON', 'Named in XML'],
      required: 'ColorValue',
      concurrent: ['Name', text('Color'), 'ColorValue', (round) => 1000 + round],
    },
  ],
} satisfies FeatureCases;
