import { changesOf, changesRefused, changesUnder, deltaOf, subListOf, subListParents } from './delta-list.js';

describe('deltaOf (what a list answers with updatedSince, read from its path)', () => {
  it('answers a whole collection, also under a controller prefix and under /sites/{siteid}', () => {
    expect(deltaOf('individuals', changesOf('individuals'))).toEqual({ kind: 'individuals' });
    expect(deltaOf('/', changesOf('periods'))).toEqual({ kind: 'periods' });
    expect(deltaOf('sites/:siteid/individuals', changesOf('individuals'))).toEqual({ kind: 'individuals', site: 'siteid' });
  });

  it('ties a sub-list to the parent of its path, or to the caller under me/', () => {
    expect(deltaOf('individuals/:id/goals', changesUnder('goals', ['IndividualID']))).toEqual({
      kind: 'goals',
      parent: { of: 'individuals', param: 'id', fields: ['IndividualID'], at: 'individuals' },
    });
    expect(deltaOf('organizations/:ancestorid/archives', changesUnder('archives', ['AncestorID'], 'departments'))).toEqual({
      kind: 'archives',
      parent: { of: 'departments', param: 'ancestorid', fields: ['AncestorID'], at: 'organizations' },
    });
    expect(deltaOf('me/tasks', changesUnder('tasks', ['AssignedToID']))).toEqual({ kind: 'tasks', mine: ['AssignedToID'] });
  });

  it('records each sub-list for the sync route’s parent= (the parent’s path segment, or me), and refuses two that disagree', () => {
    deltaOf('individuals/:id/goals', changesUnder('goals', ['IndividualID']));
    deltaOf('me/goals', changesUnder('goals', ['IndividualID']));
    deltaOf('organizations/:ancestorid/archives', changesUnder('archives', ['AncestorID'], 'departments'));
    expect(subListOf('goals', 'individuals')).toEqual({ of: 'individuals', fields: ['IndividualID'] });
    expect(subListOf('goals', 'me')).toEqual({ of: 'me', fields: ['IndividualID'] });
    expect(subListOf('archives', 'organizations')).toEqual({ of: 'departments', fields: ['AncestorID'] });
    expect(subListOf('goals', 'projects')).toBeUndefined();
    expect(subListParents('goals')).toEqual(['individuals', 'me']);
    expect(() => deltaOf('individuals/:x/goals', changesUnder('goals', ['OwnerID']))).toThrow(/different fields/);
  });

  it('keeps a refusal and a list of no records as they are, and refuses a declaration its path cannot hold', () => {
    expect(deltaOf('me/departments', changesRefused('use the memberships'))).toEqual({ refuse: 'use the memberships' });
    expect(deltaOf('colors/defaults', null)).toBeNull();
    expect(() => deltaOf('individuals/:id/goals', changesOf('goals'))).toThrow(/names the fields/);
    expect(() => deltaOf('dashboards/:ancestorId/commitments/:type', changesUnder('commitments', ['AncestorID']))).toThrow(/sub-list/);
  });
});
