import { type FeatureCases, type Json, on } from '../../testing/cases.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The closed period's archives of the World's two metrics (the worker's, the project's). */
    archive: string;
    projectArchive: string;
  }
}

const UNSUPPORTED = { status: 200, why: 'unsupported archive write: answers {} for any id and changes nothing (docs/metrics-archives.md)' };

/** Archives (docs/metrics-archives.md): written only by closing a period. */
export default {
  steps: [
    {
      // Closing the older period archives the values the metrics have in it.
      makes: ['archive', 'projectArchive'],
      needs: ['metric values', 'closedPeriod', 'individual', 'project', 'metric', 'projectMetric'],
      run: async (h, w) => {
        await h.send(w, 'put', `periods/${w.ids.closedPeriod}/close`, {});
        const archiveOf = async (list: string, metricId: string) => {
          const found = (await h.send<Json[]>(w, 'get', `${list}?period=${w.ids.closedPeriod}`)).find((a) => a.ItemID === metricId);
          if (!found) throw new Error(`closing period ${w.ids.closedPeriod} of ${w.tag} wrote no archive of metric ${metricId}`);
          return String(found.ID);
        };
        return {
          archive: await archiveOf(`individuals/${w.ids.individual}/archives`, w.ids.metric),
          projectArchive: await archiveOf(`projects/${w.ids.project}/metricArchives`, w.ids.projectMetric),
        };
      },
    },
  ],
  routes: {
    'GET /v4/individuals/:ancestorid/archives': on('individual', 'ancestorid'),
    'GET /v4/organizations/:ancestorid/archives': on('organization', 'ancestorid'),
    'GET /v4/projects/:ancestorid/metricArchives': on('project', 'ancestorid'),
    'GET /v4/metric/:itemid/archives/:id': { params: (w) => ({ itemid: w.ids.metric, id: w.ids.archive }) },
    'GET /v4/projects/:itemid/archives/:id': { params: (w) => ({ itemid: w.ids.project, id: w.ids.projectArchive }) },
    'GET /v4/archives/:id': on('archive'),
    'POST /v4/archives': { body: () => ({}) },
    'PUT /v4/archives/:id': { ...on('archive'), body: () => ({}), foreign: UNSUPPORTED },
    'DELETE /v4/archives/:id': { ...on('archive'), foreign: UNSUPPORTED },
  },
} satisfies FeatureCases;
