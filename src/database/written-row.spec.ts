import { DataSource } from 'typeorm';
import { ColorEntity } from './entities/color.entity.js';
import { GoalEntity } from './entities/goal.entity.js';
import { entitiesFor } from './registry.js';
import { rowAsWritten } from './written-row.js';

describe('rowAsWritten', () => {
  let ds: DataSource;
  beforeAll(async () => {
    ds = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: entitiesFor(true) });
    await ds.initialize();
  });
  afterAll(() => ds.destroy());

  const goal = () => ds.getMetadata(GoalEntity);
  const color = () => ds.getMetadata(ColorEntity);
  const before = { id: 7, name: 'Old', completed: false, dueDate: new Date('2026-01-01T00:00:00Z'), version: 3, comment: 'kept' };

  it('is the locked row with the values set and the version bumped', () => {
    const due = new Date('2026-12-31T10:11:12.345Z');
    const sut = rowAsWritten(goal(), before, { name: 'New  ', completed: true, dueDate: due, why: null });
    expect(sut).toEqual({ ...before, name: 'New  ', completed: true, dueDate: due, why: null, version: 4 });
  });

  it('reads back (null) a string the database would not store as given', () => {
    expect(rowAsWritten(goal(), before, { name: 'lone \ud800 surrogate' })).toBeNull();
    const max = Number(goal().findColumnWithPropertyName('name')!.length);
    expect(rowAsWritten(goal(), before, { name: 'x'.repeat(max) })).not.toBeNull();
    expect(rowAsWritten(goal(), before, { name: 'x'.repeat(max + 1) })).toBeNull();
    expect(rowAsWritten(goal(), before, { comment: 'é'.repeat(40_000) })).toBeNull();
    expect(rowAsWritten(goal(), before, { comment: 'é'.repeat(30_000) })).not.toBeNull();
  });

  it('reads back numbers out of their column, other types, dates out of range and SQL expressions', () => {
    expect(rowAsWritten(color(), before, { minPercent: 12.5 })).not.toBeNull();
    expect(rowAsWritten(color(), before, { minPercent: 12.34567 })).toBeNull();
    expect(rowAsWritten(color(), before, { colorValue: 1.5 })).toBeNull();
    expect(rowAsWritten(color(), before, { colorValue: 2 ** 31 })).toBeNull();
    expect(rowAsWritten(goal(), before, { completed: 1 })).toBeNull();
    expect(rowAsWritten(goal(), before, { dueDate: '2026-01-01' })).toBeNull();
    expect(rowAsWritten(goal(), before, { dueDate: new Date('0999-12-31T00:00:00Z') })).toBeNull();
    expect(rowAsWritten(goal(), before, { completed: () => 'NOT completed' })).toBeNull();
    expect(rowAsWritten(goal(), before, { notAColumn: 'x' })).toBeNull();
    expect(rowAsWritten(goal(), before, { name: null })).toBeNull();
  });

  it('reads back a row whose version it does not know', () => {
    expect(rowAsWritten(goal(), { ...before, version: undefined }, { name: 'New' })).toBeNull();
  });
});
