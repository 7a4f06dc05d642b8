import { creates, d, example, type FeatureCases, type KindCase, on, patches, samePath, text, updates, usedUp } from '../../testing/cases.js';
import './dto/project.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The worker's project. */
    project: string;
  }
}

const project: KindCase = { path: 'projects', body: (w) => example('CreateProjectDto', { INDIVIDUAL_ID: w.ids.individual }), needs: ['individual'] };

/** Projects (docs/periods-projects.md). */
export default {
  kinds: { project },
  routes: {
    'GET /v4/projects': {},
    'GET /v4/me/projects': {},
    'GET /v4/individuals/:id/projects': on('individual'),
    'POST /v4/projects': creates(project),
    'GET /v4/projects/:id': on('project'),
    'PUT /v4/projects/:id': updates('project', 'UpdateProjectDto'),
    'PATCH /v4/projects/:id': patches('project', 'PatchProjectDto'),
    'DELETE /v4/projects/:id': usedUp('project'),
    'PUT /v4/projects/:id/undelete': on('project'),
  },
  patches: [
    {
      route: 'PATCH /v4/projects/:id',
      root: 'Project',
      read: samePath,
      change: ['Description', 'Described in JSON', 'Described in XML'],
      clears: ['CompletedDate', d('2027-05-31')],
      required: 'Name',
      concurrent: ['Name', text('Project'), 'Description', text('Description')],
    },
  ],
} satisfies FeatureCases;
