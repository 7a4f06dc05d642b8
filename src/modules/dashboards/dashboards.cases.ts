import { example, type FeatureCases, on, type RouteCase, samePath } from '../../testing/cases.js';
import './dto/dashboard-settings.dto.js';

/** The records with a dashboard and its explanation (docs/dashboards.md), by their collection path. */
const ROWS = [
  ['individuals', 'individual'],
  ['departments', 'department'],
  ['organizations', 'organization'],
] as const;

/** Dashboards and their settings (docs/dashboards.md): figures of the World's records, no records of their own. */
export default {
  routes: {
    'GET /v4/dashboards': {},
    'GET /v4/dashboards/sample': {},
    'GET /v4/dashboards/settings': {},
    'PUT /v4/dashboards/settings': { body: () => example('UpdateDashboardSettingsDto', {}) },
    'PATCH /v4/dashboards/settings': { body: () => example('PatchDashboardSettingsDto', {}) },
    ...Object.fromEntries(
      ROWS.flatMap(([path, kind]): [string, RouteCase][] => [
        [`GET /v4/${path}/:id/dashboards`, on(kind)],
        [`GET /v4/${path}/:id/dashboards/explain`, on(kind)],
      ]),
    ),
  },
  patches: [
    {
      route: 'PATCH /v4/dashboards/settings',
      root: 'DashboardSettings',
      read: samePath,
      change: ['ShowGoals', false, true],
      required: 'Threshold1',
      concurrent: ['ShowDialogs', (round) => round % 2 === 0, 'Threshold3', (round) => 120 + round],
    },
  ],
} satisfies FeatureCases;
