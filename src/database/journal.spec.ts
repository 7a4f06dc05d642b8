import type { EntityMetadata } from 'typeorm';
import { decodeChanges, diffRow, encodeChanges, type FieldChange } from './journal.js';

/** A stand-in for an entity's metadata: what diffRow reads (its name and columns). */
const meta = {
  name: 'GoalEntity',
  target: 'GoalEntity',
  columns: [
    { propertyName: 'name', type: 'varchar' },
    { propertyName: 'completed', type: 'boolean' },
    { propertyName: 'dueDate', type: 'datetime' },
    { propertyName: 'measure1StartDate', type: 'datetime' },
    { propertyName: 'updated', type: 'datetime' },
  ],
} as unknown as EntityMetadata;

describe('diffRow', () => {
  const before = { name: 'Grow', completed: 0, dueDate: new Date('2026-06-01T00:00:00.000Z'), measure1StartDate: null, updated: new Date(1) };

  it('lists only the fields an update changed, instants as ISO text and booleans as booleans', () => {
    const after = { ...before, name: 'Grow more', completed: true, dueDate: new Date('2026-06-01T00:00:00.000Z'), updated: new Date(2) };
    expect(diffRow(meta, before, after)).toEqual([
      { Field: 'Name', Before: 'Grow', After: 'Grow more' },
      { Field: 'Completed', Before: false, After: true },
    ]);
  });

  it('sees a moved instant, and a date read back as text equal to the same instant', () => {
    const moved = { ...before, dueDate: new Date('2026-06-02T00:00:00.000Z') };
    expect(diffRow(meta, before, moved)).toEqual([{ Field: 'DueDate', Before: '2026-06-01T00:00:00.000Z', After: '2026-06-02T00:00:00.000Z' }]);
    const asText = { ...before, dueDate: '2026-06-01 00:00:00.000', completed: false };
    expect(diffRow(meta, before, asText)).toEqual([]);
  });

  it('writes every set field of a created row and of a deleted one', () => {
    expect(diffRow(meta, null, before)).toEqual([
      { Field: 'Name', Before: null, After: 'Grow' },
      { Field: 'Completed', Before: null, After: false },
      { Field: 'DueDate', Before: null, After: '2026-06-01T00:00:00.000Z' },
    ]);
    expect(diffRow(meta, before, null).map((f) => f.Field)).toEqual(['Name', 'Completed', 'DueDate']);
  });
});

describe('the stored form of a record’s changes', () => {
  const changes: FieldChange[] = [
    { Field: 'ID', Before: null, After: 'a1' },
    { Field: 'Name', Before: 'Grow', After: 'Grow more' },
    { Field: 'Tags', Before: ['x'], After: [] },
    { Field: 'Completed', Before: true, After: null },
    { Field: 'PasswordHash', Secret: true },
    { Field: 'Weight', Before: null, After: 0 },
  ];

  it('reads back every field in its order, with values of any JSON type, a null Before and a secret', () => {
    expect(decodeChanges(encodeChanges(changes))).toEqual(changes);
  });

  it('is shorter than the list of objects it replaced, and keeps no value of a secret', () => {
    const stored = encodeChanges(changes);
    expect(stored).toBe('{"ID":["a1"],"Name":["Grow","Grow more"],"Tags":[["x"],[]],"Completed":[true,null],"PasswordHash":0,"Weight":[0]}');
    expect(stored.length).toBeLessThan(JSON.stringify(changes).length * 0.6);
  });

  it('reads rows written before it, stored as the list of {Field, Before, After}', () => {
    const legacy = JSON.stringify([
      { Field: 'Name', Before: 'a', After: 'b' },
      { Field: 'PasswordHash', Secret: true },
    ]);
    expect(decodeChanges(legacy)).toEqual([
      { Field: 'Name', Before: 'a', After: 'b' },
      { Field: 'PasswordHash', Secret: true },
    ]);
  });

  it('is the JSON text of the object of its fields, with dates, quotes, other scripts and undefined values as JSON writes them', () => {
    const due = new Date(Date.UTC(2026, 10, 29, 23, 59, 59, 123));
    const odd: FieldChange[] = [
      { Field: 'Title', Before: 'say "hi"\\ \n', After: 'Zoë 李 \u2028 😀' },
      { Field: 'DueDate', Before: null, After: due },
      { Field: 'Score', Before: 1.5, After: undefined },
      { Field: 'Deleted', Before: undefined, After: false },
      { Field: 'Extra', Before: { a: [1, null] }, After: { a: [] } },
      { Field: 'Token', Before: 'old', After: 'new', Secret: true },
    ];
    const asObject = {
      Title: ['say "hi"\\ \n', 'Zoë 李 \u2028 😀'],
      DueDate: [due],
      Score: [1.5, null],
      Deleted: [false],
      Extra: [{ a: [1, null] }, { a: [] }],
      Token: 0,
    };
    expect(encodeChanges(odd)).toBe(JSON.stringify(asObject));
  });

  it('stores nothing for a record with no changed field', () => {
    expect(encodeChanges([])).toBe('{}');
    expect(decodeChanges('{}')).toEqual([]);
  });
});
