import { parse } from 'csv-parse/sync';
import { cellOf, csvRecords, exportCells, neutralize } from './csv.js';
import { toJsonValue } from './codec.js';
import { parseTimeZone, UTC } from '../../common/dates.js';
import { WireField, WireType } from './wire.js';

@WireType('CellsNested')
class Nested {
  @WireField('string') Name: string | null;
  @WireField('date') At: Date | null;
}

@WireType('CellsRecord')
class Exported {
  @WireField('guid') ID: string;
  @WireField('string') Name: string | null;
  @WireField('int') Rank: number;
  @WireField('bool') Deleted: boolean;
  @WireField('dateTimeOffset') Created: Date;
  @WireField('dateTimeOffset') Due: Date | null;
  @WireField('string') Formula: string;
  @WireField('string') Tags: string[];
  @WireField('string') Owner: Nested | null;
}

describe('export cells (docs/exports.md)', () => {
  it.each([
    ['=1+2', "'=1+2"],
    ['+1', "'+1"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['\0x', "'\0x"],
    ['\uFF1DSUM(A1)', "'\uFF1DSUM(A1)"],
    ['\uFF0B1', "'\uFF0B1"],
    ['\uFF0D1', "'\uFF0D1"],
    ['\uFF20SUM(A1)', "'\uFF20SUM(A1)"],
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

describe("exportCells (an exported record's cells, docs/exports.md)", () => {
  const record = (over: Partial<Exported> = {}) =>
    Object.assign(new Exported(), {
      ID: '11111111-2222-4333-8444-555555555555',
      Name: 'Smith, Jo',
      Rank: -3,
      Deleted: false,
      Created: new Date('2026-11-21T15:00:00.123Z'),
      Due: null,
      Formula: '=HYPERLINK("http://evil.example")',
      Tags: ['a', '=b'],
      Owner: Object.assign(new Nested(), { Name: '@x', At: new Date('2026-01-02T03:04:05.000Z') }),
      ...over,
    });
  /** What the cells are defined as: cellOf of each column of the record's JSON value. */
  const expected = (r: object, columns: string[], tz = UTC) => {
    const json = toJsonValue(r, tz) as Record<string, unknown>;
    return columns.map((c) => cellOf(json[c]));
  };
  const all = ['ID', 'Name', 'Rank', 'Deleted', 'Created', 'Due', 'Formula', 'Tags', 'Owner'];

  it.each([
    ['every column', all, UTC],
    ['some columns, in another order', ['Owner', 'ID', 'Created'], UTC],
    ['every column, dates in a zone of the request', all, parseTimeZone('Europe/Oslo')!],
    ['every column, a fixed offset', all, parseTimeZone('-05:30')!],
  ])('equals cellOf over the JSON value for %s', (_what, columns, tz) => {
    for (const r of [
      record(),
      record({ Name: null, Due: new Date('1999-12-31T23:59:59.999Z'), Owner: null, Tags: [] }),
      record({ Name: '-1', Rank: 0, Deleted: true }),
    ])
      expect(exportCells(r, columns, tz)).toEqual(expected(r, columns, tz));
  });

  it("neutralizes formulas in text, in a list's and in a nested record's JSON text, and writes dates in the zone asked", () => {
    const cells = exportCells(record(), all, parseTimeZone('+02:00')!);
    expect(cells[4]).toBe('2026-11-21T17:00:00.123+02:00');
    expect(cells[6]).toBe('\'=HYPERLINK("http://evil.example")');
    expect(cells[7]).toBe('["a","=b"]');
    expect(cells[8]).toBe('{"Name":"@x","At":"2026-01-02T05:04:05.000+02:00"}');
  });

  it('takes a plain object and a column the class does not declare through the JSON value, and a non-record as empty cells', () => {
    const plain = { ID: 'x', When: new Date('2026-11-21T15:00:00.000Z'), Note: '+1' };
    expect(exportCells(plain, ['ID', 'When', 'Note', 'Missing'], UTC)).toEqual(['x', '2026-11-21T15:00:00.000+00:00', "'+1", null]);
    expect(exportCells(record(), ['ID', 'Undeclared'], UTC)).toEqual(['11111111-2222-4333-8444-555555555555', null]);
    expect(exportCells(null, ['ID', 'Name'], UTC)).toEqual([null, null]);
  });
});
