import { formalName, fullName, fullOrderedName } from '../../common/names.js';

describe('derived names of an individual (docs/individuals.md)', () => {
  it('FullName is "First Last"', () => {
    expect(fullName('Ada', 'Lovelace')).toBe('Ada Lovelace');
  });

  it('FormalName is "Prefix First Last, Suffix" with only the parts present', () => {
    expect(formalName('Dr.', 'Ada', 'Lovelace', 'PhD')).toBe('Dr. Ada Lovelace, PhD');
    expect(formalName(null, 'Ada', 'Lovelace', null)).toBe('Ada Lovelace');
    expect(formalName('  ', 'Ada', 'Lovelace', 'Jr.')).toBe('Ada Lovelace, Jr.');
    expect(formalName('Ms.', null, 'Lovelace', '')).toBe('Ms. Lovelace');
  });

  it('FullOrderedName is "Last, First", or the one part present', () => {
    expect(fullOrderedName('Ada', 'Lovelace')).toBe('Lovelace, Ada');
    expect(fullOrderedName('', 'Lovelace')).toBe('Lovelace');
    expect(fullOrderedName('Ada', null)).toBe('Ada');
  });
});
