import { type FeatureCases, type KindCase, on } from '../../testing/cases.js';
import { setTimeout as sleep } from 'node:timers/promises';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** An import of the site: one row that updates a person no one has (it fails: 404), so it writes nothing. */
    import: string;
  }
}

const importJob: KindCase = {
  // A JSON file is an array of rows, as the document declares it. Waits for a replica to process it (a second, IMPORT_POLL_MS), so the World's rows do not change after it is built.
  world: async (h, w) => {
    const id = String((await h.send(w, 'post', 'imports?kind=individuals&mode=update', [{ ExternalID: `${w.tag}-nobody`, FirstName: 'Nobody' }])).ID);
    for (let i = 0; i < 100; i++) {
      const job = await h.send<{ State: string }>(w, 'get', `imports/${id}`);
      if (!['queued', 'running'].includes(job.State)) break;
      await sleep(100);
    }
    return id;
  },
};

/**
 * File imports (docs/imports.md). The matrices hold the routes' access rules: the POST's case
 * leaves out the query's required `mode`, so every caller the guard admits gets the same 400
 * (validation-failed, naming mode) whatever the body's media type and whatever the site's other
 * import is doing (one per site, 409), and the table-on/table-off comparison sees one answer; what
 * a file does is test/e2e/imports.e2e-spec.ts's.
 */
export default {
  kinds: { import: importJob },
  routes: {
    'POST /v4/imports': {
      query: () => ({ kind: 'individuals' }),
      contentType: 'application/x-ndjson',
      body: (w) => ({ ExternalID: `${w.tag}-x` }),
      foreignSiteId: {
        status: 400,
        why: 'the case leaves out mode, so every admitted caller gets the same 400 (a file’s rows never carry SiteID: the job is the caller’s site)',
      },
    },
    // The site's jobs, the World's import among them (ended before the World is built, so every caller's answer is the same).
    'GET /v4/imports': {},
    'GET /v4/imports/:id': on('import'),
    'GET /v4/imports/:id/errors': on('import'),
    'DELETE /v4/imports/:id': on('import'),
  },
} satisfies FeatureCases;
