import { FilterSyntaxError, MAX_FILTER_LENGTH, MAX_FILTER_TERMS, parseFilter } from './filter-grammar.js';

describe('the filter grammar (RFC 7644 §3.4.2.2), shared by SCIM and every list', () => {
  it('reads comparisons, presence, and, or, not and parentheses, and binds and tighter than or', () => {
    expect(parseFilter('a eq 1 or b pr and not (c sw "x")')).toEqual({
      op: 'or',
      filters: [
        { op: 'eq', attrPath: 'a', compValue: 1 },
        {
          op: 'and',
          filters: [
            { op: 'pr', attrPath: 'b' },
            { op: 'not', filter: { op: 'sw', attrPath: 'c', compValue: 'x' } },
          ],
        },
      ],
    });
  });

  it('names an unknown operator, and refuses what does not parse and what is over its bounds', () => {
    expect(() => parseFilter('LastName xx "a"')).toThrow(/Unknown operator xx after LastName/);
    expect(() => parseFilter('(a eq 1')).toThrow(FilterSyntaxError);
    expect(() => parseFilter(`a eq "${'x'.repeat(MAX_FILTER_LENGTH)}"`)).toThrow(/longer than/);
    const terms = Array.from({ length: MAX_FILTER_TERMS + 1 }, (_, i) => `a eq ${i}`).join(' or ');
    expect(() => parseFilter(terms)).toThrow(/at most 16/);
    expect(() => parseFilter(terms.split(' or ').slice(1).join(' or '))).not.toThrow();
  });
});
