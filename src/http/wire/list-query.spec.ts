import { ValidationError } from '../../common/errors/errors.js';
import { CursorCodec, ListQueries, listScopeOf, type Queryable, type QueryableField, queryNotes } from './list-query.js';
import { field, resource } from './resource.js';

const People = resource<{ id: string }>()('QueryPerson', {
  fields: {
    ID: field.guid('RO', { query: { filter: true, sort: true } }),
    Name: field.string('Req', { query: { filter: true, sort: true, then: ['id'] } }),
    Age: field.int('-', { nullable: true, query: { filter: true } }),
    Born: field.date('-', { nullable: true, query: { filter: true, sort: true } }),
    Active: field.bool('-', { query: { filter: true } }),
    Note: field.string('-', { nullable: true }),
  },
});

const queries = new ListQueries('a-secret-of-at-least-32-characters!!');
const ctx = { siteId: '11111111-1111-4111-8111-111111111111' };
const read = (q: Record<string, unknown>) => queries.read(ctx, People, q);
const fails = (q: Record<string, unknown>): { field: string; message: string } => {
  try {
    read(q);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).errors[0];
  }
  throw new Error('no error');
};

describe('list queries: what a list may be asked, from the fields’ declarations', () => {
  it('collects the queryable fields by lower-cased name, with their property and kind', () => {
    const q: Queryable = People.queryable;
    expect([...q.keys()]).toEqual(['id', 'name', 'age', 'born', 'active']);
    expect(q.get('name')).toEqual<QueryableField>({ name: 'Name', kind: 'string', property: 'name', nullable: false, filter: true, sort: true, then: ['id'] });
    expect(queryNotes(People)).toContain('Sortable with `sort=`: ID (guid), Name (string), Born (date)');
  });

  it('reads a filter into typed conditions: dates as Date, guids lower-cased, names and operators in any case', () => {
    const { filter } = read({ filter: 'name SW "Sm" and (Born GE "2026-01-31" or not (Active eq true)) and ID eq "ABCDEF01-1111-4111-8111-111111111111"' });
    expect(filter).toEqual({
      op: 'and',
      of: [
        { op: 'sw', field: People.queryable.get('name'), value: 'Sm' },
        {
          op: 'or',
          of: [
            { op: 'ge', field: People.queryable.get('born'), value: new Date('2026-01-31T00:00:00Z') },
            { op: 'not', of: { op: 'eq', field: People.queryable.get('active'), value: true } },
          ],
        },
        { op: 'eq', field: People.queryable.get('id'), value: 'abcdef01-1111-4111-8111-111111111111' },
      ],
    });
  });

  it('refuses what it cannot answer, naming the parameter and the field', () => {
    expect(fails({ filter: 'Note eq "x"' })).toEqual({
      field: 'filter',
      message: expect.stringMatching(/Unknown field Note \(filterable: ID, Name, Age, Born, Active\)/),
    });
    expect(fails({ filter: 'Age co "1"' }).message).toMatch(/operator co does not apply to Age \(a int; it takes eq, ne, gt, ge, lt, le, pr\)/);
    expect(fails({ filter: 'Age gt 1.5' }).message).toMatch(/integer/);
    expect(fails({ filter: 'Active eq "yes"' }).message).toMatch(/true or false/);
    expect(fails({ filter: 'Name zz "x"' }).message).toMatch(/Unknown operator zz after Name/);
    expect(fails({ sort: 'Age' })).toEqual({ field: 'sort', message: expect.stringMatching(/Age is not sortable.*sortable: ID, Name, Born/) });
    expect(fails({ sort: 'Name,Born,ID,Name' }).message).toMatch(/At most 3/);
    expect(fails({ sort: '-' }).message).toMatch(/empty sort key/);
    expect(fails({ fields: 'ID,Nope' })).toEqual({ field: 'fields', message: expect.stringMatching(/Unknown field Nope/) });
    expect(fails({ cursor: 'start', offset: 3 }).field).toBe('offset');
  });

  it('answers the fields asked for in declared order, ID always', () => {
    expect(read({ fields: 'note,Name' }).fields).toEqual(['ID', 'Name', 'Note']);
    expect(read({ fields: 'ID' }).fields).toEqual(['ID']);
    expect(read({}).fields).toBeNull();
  });

  it('makes cursors only its own key reads, bound to the site and the query', () => {
    const q = read({ filter: 'Name sw "A"', sort: '-Born' });
    const position = [new Date('2026-02-03T04:05:06.789Z'), 'Ada', 'abcdef01-1111-4111-8111-111111111111'];
    const cursor = queries.next(q, position)!;
    expect(read({ filter: 'Name sw "A"', sort: '-Born', cursor }).cursor).toEqual(position);
    // Another filter, sort, deleted or site; another key; a changed byte: 400.
    expect(fails({ filter: 'Name sw "B"', sort: '-Born', cursor }).message).toMatch(/another list, another site, or other parameters/);
    expect(fails({ filter: 'Name sw "A"', sort: 'Born', cursor }).field).toBe('cursor');
    expect(fails({ filter: 'Name sw "A"', sort: '-Born', deleted: 2, cursor }).field).toBe('cursor');
    expect(() => queries.read({ siteId: '22222222-2222-4222-8222-222222222222' }, People, { filter: 'Name sw "A"', sort: '-Born', cursor })).toThrow(
      ValidationError,
    );
    const other = new CursorCodec('another-secret-of-at-least-32-characters');
    expect(() => other.decode(q.binding, cursor)).toThrow(/not one this list gave/);
    const [payload, mac] = cursor.split('.');
    for (const bad of [`${payload}x.${mac}`, `${payload}.${mac.slice(1)}`, payload, `${cursor}.x`, ''])
      expect(fails({ filter: 'Name sw "A"', sort: '-Born', cursor: bad || 'x' }).field).toBe('cursor');
    expect(read({ cursor: 'start' }).cursor).toBe('start');
    expect(queries.next(q, null)).toBeNull();
  });

  it('binds a cursor to the list it was given for: its path and its parameters but those of the page', () => {
    const at = (url: string, q: Record<string, unknown>) => queries.read({ ...ctx, url }, People, q);
    const url = '/v4/people/abc/children?period=7&filter=Name%20sw%20%22A%22&limit=2';
    const q = at(url, { filter: 'Name sw "A"', cursor: 'start' });
    const position = ['Ada', 'abcdef01-1111-4111-8111-111111111111'];
    const cursor = queries.next(q, position)!;
    // The Link's form of the same list (parameters in another order and encoding, another limit, fields, tz): it continues.
    for (const same of [
      `/v4/people/abc/children?filter=Name+sw+%22A%22&period=7&limit=50&fields=ID&tz=Europe%2FOslo&cursor=${cursor}`,
      `/v4/people/abc/children?limit=2&period=7&filter=Name%20sw%20%22A%22&cursor=${cursor}`,
    ])
      expect(at(same, { filter: 'Name sw "A"', cursor }).cursor).toEqual(position);
    // Another record's list, another collection, another period, a parameter more: 400 naming cursor.
    for (const other of [
      '/v4/people/abd/children?period=7&filter=Name%20sw%20%22A%22',
      '/v4/people?period=7&filter=Name%20sw%20%22A%22',
      '/v4/people/abc/children?period=8&filter=Name%20sw%20%22A%22',
      '/v4/people/abc/children?filter=Name%20sw%20%22A%22',
      '/v4/people/abc/children?period=7&issuer=x&filter=Name%20sw%20%22A%22',
    ])
      expect(() => at(other, { filter: 'Name sw "A"', cursor })).toThrow(expect.objectContaining({ errors: [expect.objectContaining({ field: 'cursor' })] }));
    expect(listScopeOf('/v4/people?b=2&a=1&a=0&limit=3')).toBe(listScopeOf('/v4/people?a=0&a=1&b=2'));
  });
});
