import { applyPatch, managerIdOf, normalisePath, readPatch, splitMemberOperations } from './scim-patch.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const op = (...Operations: unknown[]) => ({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations });

describe('readPatch', () => {
  it('reads Entra’s capitalised op names and string booleans', () => {
    expect(readPatch(op({ op: 'Replace', path: 'active', value: 'False' }), USER)).toEqual([{ op: 'replace', path: 'active', value: false }]);
  });

  it('splits an op without a path into one op per attribute, the enterprise extension included', () => {
    const sut = readPatch(op({ op: 'replace', value: { active: 'true', 'Name.GivenName': 'Ada', id: 'ignored', [ENTERPRISE]: { manager: 'm1' } } }), USER);
    expect(sut).toEqual([
      { op: 'replace', path: 'active', value: true },
      { op: 'replace', path: 'name.givenName', value: 'Ada' },
      { op: 'replace', path: `${ENTERPRISE}:manager`, value: 'm1' },
    ]);
  });

  it('names paths in the service’s spelling, keeping filter values as sent', () => {
    expect(normalisePath('Emails[Type eq "Work"].Value', USER)).toBe('emails[Type eq "Work"].value');
    expect(normalisePath(`${USER}:UserName`, USER)).toBe('userName');
    expect(normalisePath('manager', USER)).toBe(`${ENTERPRISE}:manager`);
    expect(normalisePath(`${ENTERPRISE.toUpperCase()}:Manager.Value`, USER)).toBe(`${ENTERPRISE}:manager.value`);
  });

  it.each([
    [{ Operations: [{ op: 'move', path: 'a' }] }, 'invalidSyntax'],
    [{ schemas: ['urn:other'], Operations: [{ op: 'add', value: {} }] }, 'invalidSyntax'],
    [op(), 'invalidSyntax'],
    [op({ op: 'remove' }), 'noTarget'],
    [op({ op: 'add', path: 'title' }), 'invalidValue'],
    [op({ op: 'add', value: 'x' }), 'invalidValue'],
    [[], 'invalidSyntax'],
  ])('refuses %j with scimType %s', (body, scimType) => {
    expect(() => readPatch(body, USER)).toThrow(expect.objectContaining({ status: 400, scimType }));
  });
});

describe('applyPatch and managerIdOf', () => {
  const user: Record<string, unknown> = { schemas: [USER], userName: 'a', name: { givenName: 'A', familyName: 'B' }, active: true, meta: {} };

  it('applies value-filter paths, adding the element a filter names when there is none', () => {
    const sut = applyPatch(user, readPatch(op({ op: 'Add', path: 'emails[type eq "work"].value', value: 'a@x' }), USER));
    expect(sut.emails).toEqual([{ type: 'work', value: 'a@x' }]);
    expect(user).not.toHaveProperty('emails');
  });

  it.each([
    ['a bare id', 'M1', 'm1'],
    ['an object', { value: 'M1' }, 'm1'],
    ['a one-element list', [{ $ref: null, value: 'M1' }], 'm1'],
    ['an empty value', { value: '' }, null],
  ])('reads the manager given as %s', (_what, value, expected) => {
    const sut = applyPatch(user, readPatch(op({ op: 'add', path: 'manager', value }), USER));
    expect(managerIdOf(sut)?.toLowerCase() ?? null).toBe(expected);
  });

  it('removes the manager', () => {
    const withManager = { ...user, [ENTERPRISE]: { manager: { value: 'm1' } } };
    expect(managerIdOf(applyPatch(withManager, readPatch(op({ op: 'remove', path: `${ENTERPRISE}:manager` }), USER)))).toBeFalsy();
  });
});

describe('splitMemberOperations', () => {
  const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
  const split = (...ops: unknown[]) => splitMemberOperations(readPatch(op(...ops), GROUP));

  it('reads Okta’s member filter and Entra’s value lists as one change, in order', () => {
    const sut = split(
      { op: 'add', path: 'members', value: [{ value: 'A' }, { value: 'b' }] },
      { op: 'remove', path: 'members[value eq "a"]' },
      { op: 'Remove', path: 'members', value: [{ $ref: null, value: 'c' }] },
      { op: 'replace', path: 'displayName', value: 'x' },
    );
    expect(sut.others).toEqual([{ op: 'replace', path: 'displayName', value: 'x' }]);
    expect(sut.members).toEqual({ replace: null, add: new Set(['b']), remove: new Set(['a', 'c']) });
  });

  it('reads a replace, a remove of all members and members in a value object', () => {
    expect(split({ op: 'replace', path: 'members', value: [{ value: 'a' }] }).members).toEqual({ replace: new Set(['a']), add: new Set(), remove: new Set() });
    expect(split({ op: 'add', path: 'members', value: [{ value: 'a' }] }, { op: 'remove', path: 'members' }).members).toEqual({
      replace: new Set(),
      add: new Set(),
      remove: new Set(),
    });
    expect(split({ op: 'add', value: { members: [{ value: 'z' }] } }).members?.add).toEqual(new Set(['z']));
    expect(split({ op: 'remove', path: 'members[value eq "a" or value eq "b"]' }).members?.remove).toEqual(new Set(['a', 'b']));
  });

  it('refuses a member filter on anything but value, and a member without one', () => {
    expect(() => split({ op: 'remove', path: 'members[display eq "a"]' })).toThrow(expect.objectContaining({ scimType: 'invalidPath' }));
    expect(() => split({ op: 'add', path: 'members', value: [{ display: 'a' }] })).toThrow(expect.objectContaining({ scimType: 'invalidValue' }));
  });
});
