import { ListQueries } from './list-query.js';
import { queryInMemory } from './list-query-memory.js';
import { field, resource } from './resource.js';

const Things = resource<{ id: number }>()('MemoryThing', {
  fields: {
    ID: field.int('RO', { query: { filter: true } }),
    Name: field.string('Req', { query: { filter: true, sort: true } }),
    Rank: field.int('-', { nullable: true, query: { filter: true, sort: true, then: ['name'] } }),
    Born: field.date('-', { nullable: true, query: { filter: true } }),
  },
});
const ITEMS = [
  { ID: 1, Name: 'Red', Rank: 2, Born: new Date('2026-01-01T00:00:00Z') },
  { ID: 2, Name: 'amber', Rank: null, Born: null },
  { ID: 3, Name: 'Green_1', Rank: 2, Born: new Date('2026-03-01T00:00:00Z') },
  { ID: 4, Name: '', Rank: 0, Born: null },
];
const queries = new ListQueries('a-secret-of-at-least-32-characters!!');
const ctx = { siteId: '11111111-1111-4111-8111-111111111111' };
const page = (q: Record<string, unknown>, take = 10, skip = 0) =>
  queryInMemory(
    ITEMS,
    Things.queryable,
    Things.queryable.get('id')!,
    queries.read(ctx, Things, q),
    [{ field: Things.queryable.get('rank')!, desc: false }],
    take,
    skip,
  );
const idsOf = (q: Record<string, unknown>) => page(q).rows.map((r) => r.ID);

describe('a list query answered in memory (lists not stored: docs/queries.md)', () => {
  it('filters as the SQL does: text case-insensitive and literal, null compared false but by ne and not, pr not empty', () => {
    expect(idsOf({ filter: 'Name eq "RED"' })).toEqual([1]);
    expect(idsOf({ filter: 'Name co "_"' })).toEqual([3]);
    expect(idsOf({ filter: 'Name sw "g" or Name ew "ED"' })).toEqual([3, 1]);
    expect(idsOf({ filter: 'Rank ge 1' })).toEqual([3, 1]);
    expect(idsOf({ filter: 'Rank ne 2' })).toEqual([2, 4]);
    expect(idsOf({ filter: 'not (Rank gt 0)' })).toEqual([2, 4]);
    expect(idsOf({ filter: 'Rank eq null' })).toEqual([2]);
    expect(idsOf({ filter: 'Name pr' })).toEqual([2, 3, 1]);
    expect(idsOf({ filter: 'Born lt "2026-02-01"' })).toEqual([1]);
  });

  it('orders null first ascending and last descending, continues with then and the key, and counts what the filter selects', () => {
    expect(idsOf({ filter: 'ID pr' })).toEqual([2, 4, 3, 1]);
    expect(idsOf({ sort: '-Rank' })).toEqual([1, 3, 4, 2]);
    expect(idsOf({ sort: 'Name' })).toEqual([4, 2, 3, 1]);
    expect(page({ filter: 'Rank pr' }, 1, 1)).toEqual({ rows: [ITEMS[2]], total: 3, next: [2, 'Green_1', 3] });
  });

  it('pages by cursor after the position of the last row, each item once, with no total', () => {
    const seen: number[] = [];
    let q: Record<string, unknown> = { sort: '-Rank', cursor: 'start' };
    for (;;) {
      const p = page(q, 1);
      expect(p.total).toBe(-1);
      seen.push(...p.rows.map((r) => r.ID));
      if (!p.next) break;
      q = { sort: '-Rank', cursor: queries.next(queries.read(ctx, Things, q), p.next) };
    }
    expect(seen).toEqual([1, 3, 4, 2]);
  });
});
