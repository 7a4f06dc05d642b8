import { creates, example, type FeatureCases, type KindCase, on, patches, type RouteCase, samePath, site, text, updates, usedUp } from '../../testing/cases.js';
import './dto/metric.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The worker's metric and the project's, each with a value in both periods of the World. */
    metric: string;
    projectMetric: string;
  }
}

const metric: KindCase = { path: 'metrics', body: (w) => example('CreateMetricDto', { INDIVIDUAL_ID: w.ids.individual }), needs: ['individual'] };
/** The World's metric and its current period: a value of the metric. */
const value: RouteCase = { params: (w) => ({ id: w.ids.metric, periodid: String(w.ids.period) }) };

/** Metrics and their values (docs/metrics-archives.md). */
export default {
  kinds: {
    metric,
    projectMetric: { path: 'metrics', body: (w) => ({ ...example('CreateMetricDto', { INDIVIDUAL_ID: w.ids.project }), Kind: 'project' }), needs: ['project'] },
  },
  steps: [
    {
      makes: ['metric values'],
      needs: ['metric', 'projectMetric', 'period', 'closedPeriod'],
      run: async (h, w) => {
        for (const id of [w.ids.metric, w.ids.projectMetric])
          for (const period of [w.ids.period, w.ids.closedPeriod]) await h.send(w, 'put', `metrics/${id}/values/${period}`, example('PutMetricValueDto', {}));
      },
    },
  ],
  routes: {
    'GET /v4/metrics': {},
    'GET /v4/me/metrics': {},
    'GET /v4/sites/:siteId/metrics': site('siteId'),
    'GET /v4/individuals/:id/metrics': on('individual'),
    'GET /v4/projects/:id/metrics': on('project'),
    'POST /v4/metrics': creates(metric),
    'GET /v4/metrics/:id': on('metric'),
    'PUT /v4/metrics/:id': updates('metric', 'UpdateMetricDto'),
    'PATCH /v4/metrics/:id': patches('metric', 'PatchMetricDto'),
    'DELETE /v4/metrics/:id': usedUp('metric'),
    'PUT /v4/metrics/:id/undelete': on('metric'),
    'PUT /v4/metrics/:id/values/:periodid': { ...value, body: () => example('PutMetricValueDto', {}) },
    'POST /v4/metrics/values/bulk': {
      body: (w) => ({ Items: [{ Op: 'upsert', Record: { MetricID: w.ids.metric, PeriodID: w.ids.period, ...example('PutMetricValueDto', {}) } }] }),
    },
    'DELETE /v4/metrics/:id/values/:periodid': { ...value, fresh: async (h, w) => ({ id: await h.make(w, 'metric') }) },
  },
  patches: [
    {
      route: 'PATCH /v4/metrics/:id',
      root: 'Metric',
      read: samePath,
      change: ['Target', 120.5, 99.25],
      clears: ['Target', 100],
      required: 'Name',
      concurrent: ['Name', text('Metric'), 'Target', (round) => 200 + round],
    },
  ],
} satisfies FeatureCases;
