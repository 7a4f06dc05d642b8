import { creates, d, example, type FeatureCases, type KindCase, on, patches, samePath, text, updates, usedUp } from '../../testing/cases.js';
import './dto/task.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** The worker's task, a follow-up of the dialog. */
    task: string;
  }
}

const task: KindCase = {
  path: 'tasks',
  body: (w) => ({ ...example('CreateTaskDto', { INDIVIDUAL_ID: w.ids.individual }), DialogID: w.ids.dialog }),
  needs: ['individual', 'dialog'],
};

/** Tasks (docs/dialogs-tasks-roles-assessments.md). */
export default {
  kinds: { task },
  routes: {
    'GET /v4/tasks': {},
    'GET /v4/me/tasks': {},
    'GET /v4/individuals/:id/tasks': on('individual'),
    'POST /v4/tasks': creates(task),
    'GET /v4/tasks/:id': on('task'),
    'PUT /v4/tasks/:id': updates('task', 'UpdateTaskDto'),
    'PATCH /v4/tasks/:id': patches('task', 'PatchTaskDto'),
    'DELETE /v4/tasks/:id': usedUp('task'),
    'PUT /v4/tasks/:id/undelete': on('task'),
  },
  patches: [
    {
      route: 'PATCH /v4/tasks/:id',
      root: 'Task',
      read: samePath,
      change: ['Name', 'Task named in JSON', 'Task named in XML'],
      clears: ['DueDate', d('2027-05-31')],
      required: 'AssignedToID',
      concurrent: ['Name', text('Task'), 'DueDate', (round) => d(`2027-06-${10 + round}`)],
    },
  ],
} satisfies FeatureCases;
