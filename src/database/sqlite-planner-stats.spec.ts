import { plannedIndexStat } from './sqlite-planner-stats.js';

describe('the fixed statistics SQLite plans from', () => {
  it('takes a site for 100,000 rows that the deleted flag does not narrow, and any other column for a tenth of the rows before it', () => {
    expect(plannedIndexStat(['site_id', 'deleted'], false)).toBe('1000000 100000 100000');
    expect(plannedIndexStat(['site_id', 'deleted', 'last_name', 'first_name'], false)).toBe('1000000 100000 100000 10000 1000');
    expect(plannedIndexStat(['site_id', 'primary_organization_id'], false)).toBe('1000000 100000 10000');
  });

  it('takes an id, or the whole key of a unique index, for one row', () => {
    expect(plannedIndexStat(['id'], true)).toBe('1000000 1');
    expect(plannedIndexStat(['site_id', 'external_id'], true)).toBe('1000000 100000 1');
    expect(plannedIndexStat(['site_id', 'id', 'kind'], false)).toBe('1000000 100000 1 1');
    expect(plannedIndexStat(['user_id'], true)).toBe('1000000 1');
  });

  it('never takes a longer prefix for more rows than a shorter one, nor for fewer than one', () => {
    expect(plannedIndexStat(['kind', 'site_id'], false)).toBe('1000000 100000 100000');
    expect(plannedIndexStat(['a', 'b', 'c', 'd', 'e', 'f', 'g'], false)).toBe('1000000 100000 10000 1000 100 10 1 1');
  });
});
