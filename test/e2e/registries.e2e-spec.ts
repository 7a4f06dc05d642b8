import { ArchiveWriters } from '../../src/database/archive-writers.js';
import { ByReference } from '../../src/database/by-reference.js';
import { DB_KIND, startApp, TestApp } from './harness.js';

/**
 * The registries features plug into (docs/architecture.md, "Floors"): they import no feature, and
 * the app fills them when its modules start. A feature that forgets to register would leave its
 * rows behind when their owner is deleted, or a closed period without its archives.
 */
describe(`registries filled at start-up (${DB_KIND})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists what each owner takes down by reference', () => {
    const sut = t.app.get(ByReference);
    const names = (owner: Parameters<ByReference['ownedBy']>[0]) =>
      sut
        .ownedBy(owner)
        .map((r) => r.name)
        .sort();
    expect(names('individual')).toEqual([
      'basic roles',
      'comments on individuals',
      'list items (accountability, evaluationcriteria, supervisoryscope)',
      'memberships (individual side)',
      'metrics (individual) and what they own',
    ]);
    expect(names('organization')).toEqual(['comments on departments, organizations', 'memberships (organization side)']);
    expect(names('project')).toEqual(['comments on projects', 'list items (projectscope)', 'metrics (project) and what they own']);
    expect(names('metric')).toEqual(['comments on metrics']);
    expect(names('dialog')).toEqual(['comments on dialogs']);
    expect(names('task')).toEqual(['comments on tasks']);
  });

  it('closes a period with the archive writers of metrics and dashboards', () => {
    expect(t.app.get(ArchiveWriters).itemTypes).toEqual(['metric', 'dashboard']);
  });
});
