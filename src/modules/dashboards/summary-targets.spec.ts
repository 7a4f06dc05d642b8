import {
  alikeGroups,
  bornAmong,
  primariesOf,
  classify,
  expand,
  targetsOfChange,
  targetsOfState,
  type SiteTree,
  type Target,
  type TrailChange,
} from './summary-targets.js';

const change = (kind: string, action: string, fields: [string, unknown, unknown][], opts: { gone?: boolean; rowId?: string } = {}): TrailChange => ({
  kind,
  rowId: opts.rowId ?? 'row-1',
  action,
  gone: opts.gone ?? false,
  fields: fields.map(([Field, Before, After]) => ({ Field, Before, After })),
});

/**
 *        org ─┬─ div (organization) ─── dept-a (department)
 *             └─ dept-b (department) ── dept-b1 (department)
 */
const TREE: SiteTree = {
  parentOf: new Map<string, string | null>([
    ['org', null],
    ['div', 'org'],
    ['dept-a', 'div'],
    ['dept-b', 'org'],
    ['dept-b1', 'dept-b'],
  ]),
  membershipsOf: new Map([
    ['ann', ['dept-a']],
    ['bob', ['dept-b1', 'div']],
  ]),
  primaryMembersOf: new Map([
    ['dept-a', ['ann']],
    ['dept-b1', ['bob']],
    ['div', ['cat']],
  ]),
};

const rows = (targets: Target[]) => {
  const r = expand(targets, TREE);
  return { individuals: [...r.individuals].sort(), units: [...r.units].sort() };
};

describe('classify', () => {
  const sut = classify;

  it('ignores an update that touches no counted field (a name is read at answer time)', () => {
    expect(sut(change('task', 'update', [['Name', 'a', 'b']]))).toEqual({ as: 'ignore' });
    expect(sut(change('individual', 'update', [['FirstName', 'A', 'B']]))).toEqual({ as: 'ignore' });
    expect(sut(change('comment', 'create', [['Body', null, 'x']]))).toEqual({ as: 'ignore' });
  });

  it('keeps both states of a counted update and asks for the current row (an update carries only what changed)', () => {
    expect(sut(change('goal', 'update', [['IndividualID', 'a', 'b']]))).toEqual({
      as: 'states',
      kind: 'goal',
      rowId: 'row-1',
      before: { IndividualID: 'a' },
      after: { IndividualID: 'b' },
      current: true,
    });
  });

  it('takes a create whole (no state before) and a hard delete whole (no state after)', () => {
    expect(sut(change('dialog', 'create', [['Kind', null, 'individual']]))).toMatchObject({ before: null, after: { Kind: 'individual' }, current: false });
    expect(sut(change('dialog', 'delete', [['Kind', 'individual', null]], { gone: true }))).toMatchObject({
      before: { Kind: 'individual' },
      after: null,
      current: false,
    });
  });

  it('sends a unit moved, deleted or created, a period’s dates and the thresholds to the whole site', () => {
    expect(sut(change('organization', 'update', [['ParentID', 'a', 'b']]))).toEqual({ as: 'site' });
    expect(sut(change('organization', 'delete', [['Deleted', false, true]]))).toEqual({ as: 'site' });
    expect(sut(change('organization', 'create', [['Name', null, 'X']]))).toEqual({ as: 'site' });
    expect(sut(change('period', 'update', [['EndDate', 'x', 'y']]))).toEqual({ as: 'site' });
    expect(sut(change('dashboard-settings', 'update', [['Threshold2', 90, 95]]))).toEqual({ as: 'site' });
    expect(sut(change('organization', 'update', [['Name', 'a', 'b']]))).toEqual({ as: 'ignore' });
    expect(sut(change('dashboard-settings', 'update', [['ShowGoals', true, false]]))).toEqual({ as: 'ignore' });
  });
});

describe('targetsOfState', () => {
  const sut = targetsOfState;

  it('maps a record of each level to whose rows count it', () => {
    expect(sut('task', 't', { Kind: 'individual', AncestorID: 'ann' })).toEqual([{ t: 'person', id: 'ann' }]);
    expect(sut('commitment', '7', { Type: 'department', AncestorID: 'dept-a' })).toEqual([{ t: 'level', level: 'department', id: 'dept-a' }]);
    expect(sut('metric', 'm', { Kind: 'project', AncestorID: 'p' })).toEqual([{ t: 'project', id: 'p' }]);
    expect(sut('dialog', 'd', { Kind: 'organization', AncestorID: 'org' })).toEqual([
      { t: 'level', level: 'organization', id: 'org' },
      { t: 'dialog-roles', id: 'd' },
    ]);
  });

  it('follows a record through the one it belongs to', () => {
    expect(sut('metric-value', 'v', { MetricID: 'm' })).toEqual([{ t: 'metric', id: 'm' }]);
    expect(sut('assessment-rating', 'r', { AssessmentID: 'a' })).toEqual([{ t: 'assessment', id: 'a' }]);
    expect(sut('basic-role-dialog', 'x', { BasicRoleID: 'br', DialogID: 'd' })).toEqual([
      { t: 'basic-role', id: 'br' },
      { t: 'dialog-roles', id: 'd' },
    ]);
    expect(sut('project', 'p', { OwnerID: 'ann', OrganizationID: 'dept-b' })).toEqual([
      { t: 'person', id: 'ann' },
      { t: 'unit', id: 'dept-b' },
    ]);
  });

  it('maps nothing it cannot place (no ancestor, an unknown level)', () => {
    expect(sut('task', 't', { Kind: 'individual', AncestorID: null })).toEqual([]);
    expect(sut('task', 't', { Kind: 'galaxy', AncestorID: 'x' })).toEqual([]);
  });
});

describe('expand', () => {
  it('reaches a person’s row and every unit above each unit they belong to', () => {
    expect(rows([{ t: 'person', id: 'bob' }])).toEqual({ individuals: ['bob'], units: ['dept-b', 'dept-b1', 'div', 'org'] });
  });

  it('a membership moved from one unit to another reaches both branches (Before and After)', () => {
    const before = targetsOfState('organization-member', 'm', { IndividualID: 'ann', OrganizationID: 'dept-a' });
    const after = targetsOfState('organization-member', 'm', { IndividualID: 'ann', OrganizationID: 'dept-b1' });
    expect(rows([...before, ...after]).units).toEqual(['dept-a', 'dept-b', 'dept-b1', 'div', 'org']);
  });

  it('a department’s own record reaches the units above it and the people whose primary unit it is', () => {
    expect(rows([{ t: 'level', level: 'department', id: 'dept-b1' }])).toEqual({ individuals: ['bob'], units: ['dept-b', 'dept-b1', 'org'] });
  });

  it('an organization’s own record reaches every unit below it and the people whose primary unit lies below it', () => {
    expect(rows([{ t: 'level', level: 'organization', id: 'div' }])).toEqual({ individuals: ['ann', 'cat'], units: ['dept-a', 'div', 'org'] });
  });

  it('stops on a cycle in the tree instead of looping', () => {
    const cyclic: SiteTree = {
      ...TREE,
      parentOf: new Map([
        ['a', 'b'],
        ['b', 'a'],
      ]),
    };
    expect([...expand([{ t: 'unit', id: 'a' }], cyclic).units].sort()).toEqual(['a', 'b']);
  });

  it('refuses a target that points through another record (it must be resolved first)', () => {
    expect(() => expand([{ t: 'metric', id: 'm' }], TREE)).toThrow(/resolved/);
  });
});

describe('people created among the changes built (targetsOfChange)', () => {
  // `ann` and `bob` are in TREE (ann in dept-a, bob in dept-b1 and div); `new` was created among the changes.
  const born = bornAmong([
    { kind: 'individual', rowId: 'new', before: null },
    { kind: 'individual', rowId: 'ann', before: { PrimaryOrganizationID: 'dept-b1' } },
    { kind: 'goal', rowId: 'g1', before: null },
  ]);

  it('finds the people whose create is among the changes, not those updated nor other records', () => {
    expect([...born]).toEqual(['new']);
  });

  it('a new person’s own change and their memberships reach their own row alone', () => {
    expect(targetsOfChange('individual', 'new', { PrimaryOrganizationID: 'dept-a' }, born)).toEqual([{ t: 'own', id: 'new' }]);
    expect(targetsOfChange('organization-member', 'm', { IndividualID: 'new', OrganizationID: 'dept-a' }, born)).toEqual([{ t: 'own', id: 'new' }]);
    const tree: SiteTree = { ...TREE, membershipsOf: new Map([...TREE.membershipsOf, ['new', ['dept-a', 'dept-b1']]]) };
    expect([...expand([{ t: 'own', id: 'new' }], tree).units]).toEqual([]);
    expect([...expand([{ t: 'own', id: 'new' }], tree).individuals]).toEqual(['new']);
  });

  it('a new person’s records still reach every unit above the units they belong to now', () => {
    const goal = targetsOfChange('goal', 'g1', { IndividualID: 'new', PeriodID: 1 }, born);
    expect(goal).toEqual([{ t: 'person', id: 'new' }]);
    const tree: SiteTree = { ...TREE, membershipsOf: new Map([...TREE.membershipsOf, ['new', ['dept-b1']]]) };
    const r = expand(goal, tree);
    expect({ individuals: [...r.individuals], units: [...r.units].sort() }).toEqual({ individuals: ['new'], units: ['dept-b', 'dept-b1', 'org'] });
  });

  it('a person who existed before keeps reaching their units, moved or given a membership', () => {
    expect(targetsOfChange('individual', 'ann', { PrimaryOrganizationID: 'dept-a' }, born)).toEqual([{ t: 'person', id: 'ann' }]);
    expect(targetsOfChange('organization-member', 'm', { IndividualID: 'bob', OrganizationID: 'dept-a' }, born)).toEqual([
      { t: 'person', id: 'bob' },
      { t: 'unit', id: 'dept-a' },
    ]);
    expect(rows(targetsOfChange('organization-member', 'm', { IndividualID: 'ann', OrganizationID: 'dept-b1' }, born)).units).toEqual([
      'dept-a',
      'dept-b',
      'dept-b1',
      'div',
      'org',
    ]);
  });

  it('a membership taken from a person who existed and given to a new one reaches the old person’s units (Before), the new one’s row alone (After)', () => {
    const before = targetsOfChange('organization-member', 'm', { IndividualID: 'ann', OrganizationID: 'dept-a' }, born);
    const after = targetsOfChange('organization-member', 'm', { IndividualID: 'new', OrganizationID: 'dept-a' }, born);
    expect(rows([...before, ...after])).toEqual({ individuals: ['ann', 'new'], units: ['dept-a', 'div', 'org'] });
  });
});

describe('new people alike (alikeGroups)', () => {
  it('a person reached only through their own row is alone; one reached by a record of theirs, or by a level above, is not', () => {
    const r = expand(
      [
        { t: 'own', id: 'new1' },
        { t: 'own', id: 'new2' },
        { t: 'person', id: 'new2' },
        { t: 'own', id: 'ann' },
        { t: 'level', level: 'department', id: 'dept-a' },
      ],
      TREE,
    );
    expect({ alone: [...r.alone], individuals: [...r.individuals].sort() }).toEqual({ alone: ['new1'], individuals: ['ann', 'new1', 'new2'] });
  });

  it('takes each new person’s primary unit from their last state that names it, and no one else’s', () => {
    const states = [
      { kind: 'individual', rowId: 'n1', after: { PrimaryOrganizationID: 'dept-a' } },
      { kind: 'individual', rowId: 'n2', after: { PrimaryOrganizationID: 'dept-a' } },
      { kind: 'individual', rowId: 'n1', after: { PrimaryOrganizationID: 'dept-b' } },
      { kind: 'individual', rowId: 'n2', after: { LastName: 'X' } },
      { kind: 'individual', rowId: 'n3', after: { PrimaryOrganizationID: null } },
      { kind: 'individual', rowId: 'ann', after: { PrimaryOrganizationID: 'dept-b' } },
      { kind: 'goal', rowId: 'n4', after: { PrimaryOrganizationID: 'dept-b' } },
    ];
    expect([...primariesOf(states, new Set(['n1', 'n2', 'n3', 'n4']))]).toEqual([
      ['n1', 'dept-b'],
      ['n2', 'dept-a'],
      ['n3', null],
    ]);
  });

  it('groups the people alone by their primary unit; a group of one, or a person whose unit is not known, is left out', () => {
    const primaryOf = new Map<string, string | null>([
      ['a1', 'dept-a'],
      ['a2', 'dept-a'],
      ['a3', 'dept-a'],
      ['b1', 'dept-b'],
      ['n1', null],
      ['n2', null],
    ]);
    expect(alikeGroups(new Set(['a1', 'a2', 'b1', 'n1', 'n2', 'x1', 'a3']), primaryOf)).toEqual([
      ['a1', 'a2', 'a3'],
      ['n1', 'n2'],
    ]);
  });
});
