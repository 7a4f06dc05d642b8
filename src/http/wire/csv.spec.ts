import { parse } from 'csv-parse/sync';
import { cellOf, csvRecords, neutralize } from './csv.js';

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

describe('CSV records (RFC 4180)', () => {
  it('ends every record with CRLF, writes null empty and booleans as true/false, and quotes only what must be quoted', () => {
    expect(csvRecords([['ID', 'Name', 'Active', 'Age', 'Note']])).toBe('ID,Name,Active,Age,Note\r\n');
    expect(
      csvRecords([
        ['a', null, true, 42, 'plain'],
        ['b', '', false, -1.5, 'x'],
      ]),
    ).toBe('a,,true,42,plain\r\nb,,false,-1.5,x\r\n');
    expect(csvRecords([['Smith, Jo', 'say "hi"', 'two\nlines', 'cr\rhere', ' padded ']])).toBe(
      '"Smith, Jo","say ""hi""","two\nlines","cr\rhere"," padded "\r\n',
    );
    expect(csvRecords([])).toBe('');
  });

  it('reads back, through csv-parse, exactly the cells it was given', () => {
    const records = [
      ['ID', 'Text'],
      ['1', 'Smith, "Jo"\r\nnext line'],
      ['2', "'=1+2"],
      ['3', 'é ü 漢字 😀'],
      ['4', ''],
    ];
    expect(parse(csvRecords(records), { record_delimiter: '\r\n' })).toEqual(records);
  });
});
