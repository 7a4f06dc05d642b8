import { changesOf, changesRefused, changesUnder, deltaOf } from './delta-list.js';

describe('deltaOf (what a list answers with updatedSince, read from its path)', () => {
  it('answers a whole collection, also under a controller prefix and under /sites/{siteid}', () => {
    expect(deltaOf('individuals', changesOf('individuals'))).toEqual({ kind: 'individuals' });
    expect(deltaOf('/', changesOf('periods'))).toEqual({ kind: 'periods' });
    expect(deltaOf('sites/:siteid/individuals', changesOf('individuals'))).toEqual({ kind: 'individuals', site: 'siteid' });
  });

  it('ties a sub-list to the parent of its path, or to the caller under me/', () => {
    expect(deltaOf('individuals/:id/goals', changesUnder('goals', ['IndividualID']))).toEqual({
      kind: 'goals',
      parent: { of: 'individuals', param: 'id', fields: ['IndividualID'] },
    });
    expect(deltaOf('organizations/:ancestorid/archives', changesUnder('archives', ['AncestorID'], 'departments'))).toEqual({
      kind: 'archives',
      parent: { of: 'departments', param: 'ancestorid', fields: ['AncestorID'] },
    });
    expect(deltaOf('me/tasks', changesUnder('tasks', ['AssignedToID']))).toEqual({ kind: 'tasks', mine: ['AssignedToID'] });
  });

  it('keeps a refusal and a list of no records as they are, and refuses a declaration its path cannot hold', () => {
    expect(deltaOf('me/departments', changesRefused('use the memberships'))).toEqual({ refuse: 'use the memberships' });
    expect(deltaOf('colors/defaults', null)).toBeNull();
    expect(() => deltaOf('individuals/:id/goals', changesOf('goals'))).toThrow(/names the fields/);
    expect(() => deltaOf('dashboards/:ancestorId/commitments/:type', changesUnder('commitments', ['AncestorID']))).toThrow(/sub-list/);
  });
});
