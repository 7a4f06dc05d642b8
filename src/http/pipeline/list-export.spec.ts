import { cellOf, neutralize } from './list-export.js';

describe('export cells (docs/exports.md)', () => {
  it.each([
    ['=1+2', "'=1+2"],
    ['+1', "'+1"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['plain', 'plain'],
    ['a=b', 'a=b'],
    ['', ''],
    ["'quoted", "'quoted"],
  ])('neutralizes %j as %j (OWASP: a quote before a formula)', (text, cell) => {
    expect(neutralize(text)).toBe(cell);
  });

  it('writes null empty, numbers and booleans as themselves, objects and arrays as their JSON text', () => {
    expect(cellOf(null)).toBeNull();
    expect(cellOf(undefined)).toBeNull();
    expect(cellOf(-5)).toBe(-5);
    expect(cellOf(false)).toBe(false);
    expect(cellOf(['a', 'b'])).toBe('["a","b"]');
    expect(cellOf({ Name: '=x' })).toBe('{"Name":"=x"}');
    expect(cellOf('=x')).toBe("'=x");
  });
});
