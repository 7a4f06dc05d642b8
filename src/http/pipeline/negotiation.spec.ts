import { mayAskExport, negotiate, negotiateExport, requestFormat } from './negotiation.js';

describe('negotiate', () => {
  it.each([
    [undefined, 'json', 'application/json'],
    ['*/*', 'json', 'application/json'],
    ['application/xml', 'xml', 'application/xml'],
    ['text/xml', 'xml', 'text/xml'],
    ['text/json', 'json', 'text/json'],
    ['image/png', 'json', 'application/json'],
    ['application/json;q=0.5, application/xml;q=0.9', 'xml', 'application/xml'],
    ['application/xml;q=0.2, */*;q=0.8', 'json', 'application/json'],
    ['text/xml, application/json', 'xml', 'text/xml'],
    ['application/xml;q=0, application/json', 'json', 'application/json'],
    ['application/problem+xml', 'xml', 'application/xml'],
    ['APPLICATION/XML; charset=utf-8', 'xml', 'application/xml'],
  ])('Accept %s answers %s (%s)', (accept, format, contentType) => {
    expect(negotiate(accept)).toEqual({ format, contentType });
  });
});

describe('requestFormat', () => {
  it.each([
    ['application/json; charset=utf-8', 'json'],
    ['text/json', 'json'],
    ['application/xml', 'xml'],
    ['text/xml; charset=utf-8', 'xml'],
    ['application/x-www-form-urlencoded', 'form'],
    ['text/plain', null],
    [undefined, null],
  ])('%s is %s', (ct, expected) => {
    expect(requestFormat(ct)).toBe(expected);
  });

  it.each([
    ['application/merge-patch+json', 'PATCH', 'json'],
    ['application/merge-patch+xml; charset=utf-8', 'PATCH', 'xml'],
    ['application/json', 'PATCH', 'json'],
    ['text/xml', 'PATCH', 'xml'],
    ['application/merge-patch+json', 'PUT', null],
    ['application/merge-patch+xml', 'POST', null],
    ['application/json-patch+json', 'PATCH', null],
    ['application/vnd.api+json', 'PATCH', null],
  ])('%s on %s is %s (the merge-patch types only on PATCH)', (ct, method, expected) => {
    expect(requestFormat(ct, method)).toBe(expected);
  });
});

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

describe('negotiateExport (docs/exports.md)', () => {
  it.each([
    [undefined, null, true],
    ['text/csv', 'csv', false],
    [XLSX, 'xlsx', false],
    ['application/x-ndjson', 'ndjson', false],
    ['TEXT/CSV; charset=utf-8', 'csv', false],
    ['text/csv, application/json;q=0.5', 'csv', true],
    ['application/json;q=0.5, text/csv', 'csv', true],
    ['text/csv;q=0.5, application/json', null, true],
    ['text/csv;q=0.5, */*', null, true],
    ['text/csv, */*', 'csv', true],
    ['*/*;q=0.1, application/x-ndjson', 'ndjson', true],
    [`text/csv;q=0.8, ${XLSX};q=0.9`, 'xlsx', false],
    ['text/csv, application/x-ndjson', 'csv', false],
    ['text/csv;q=0', null, true],
    ['text/csv;q=0, application/xml', null, true],
    ['image/png, text/csv;q=0.1', 'csv', false],
    ['image/png', null, true],
  ])('Accept %s exports %s (JSON or XML would do: %s)', (accept, format, body) => {
    expect(negotiateExport(accept)).toEqual({ format, body });
  });

  it('looks further only when an export type may be named at all', () => {
    expect(mayAskExport('application/json')).toBe(false);
    expect(mayAskExport(undefined)).toBe(false);
    expect(mayAskExport('text/csv;q=0')).toBe(true);
    expect(mayAskExport(XLSX)).toBe(true);
    expect(mayAskExport('application/x-ndjson')).toBe(true);
  });
});
