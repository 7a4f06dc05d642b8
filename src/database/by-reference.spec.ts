import { ByReference } from './by-reference.js';
import type { OwnedRows } from './soft-delete.js';

const rows = (name: string): OwnedRows => ({ name, takeDown: async () => 0, restore: async () => 0 });

describe('ByReference (the registry of what an owner takes down, filled by the features at start-up)', () => {
  it('answers what each owner registered, in the order it was registered', () => {
    const sut = new ByReference();
    sut.register('individual', rows('memberships'));
    sut.register('project', rows('list items'));
    sut.register('individual', rows('comments'));
    expect(sut.ownedBy('individual').map((r) => r.name)).toEqual(['memberships', 'comments']);
    expect(sut.ownedBy('project').map((r) => r.name)).toEqual(['list items']);
  });

  it('answers nothing for an owner nothing hangs off', () => {
    expect(new ByReference().ownedBy('task')).toEqual([]);
  });

  it('refuses the same rows twice under one owner (they would be taken down twice)', () => {
    const sut = new ByReference();
    sut.register('dialog', rows('comments on dialogs'));
    expect(() => sut.register('dialog', rows('comments on dialogs'))).toThrow('comments on dialogs is registered twice under dialog');
  });
});
