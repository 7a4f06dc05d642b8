import type { EntityMetadata } from 'typeorm';
import { diffRow } from './journal.js';

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
