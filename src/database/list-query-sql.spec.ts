import type { EntityMetadata } from 'typeorm';
import type { RequestContext } from '../common/context/request-context.js';
import type { ListQuery } from '../http/wire/list-query.js';
import { pageKeysOf } from './list-query-sql.js';
import type { TenantDb } from './tenant-db.js';

/** A table's metadata as the statement builder reads it: its name and columns. */
function table(tableName: string, columns: string[]): EntityMetadata {
  const cols = columns.map((c) => ({ databaseName: c, propertyName: c, propertyPath: c }));
  const find = (p: string) => cols.find((c) => c.propertyName === p);
  return {
    tableName,
    columns: cols,
    primaryColumns: [find('id')],
    findColumnWithPropertyPath: find,
    findColumnWithPropertyName: find,
  } as unknown as EntityMetadata;
}

const db = (metadata: EntityMetadata) => ({ metadataOf: () => metadata, isSqlite: true }) as unknown as TenantDb;
const ctx = { siteId: 'site-a' } as RequestContext;
const plain: ListQuery = { filter: null, sort: [], fields: null, cursor: null, binding: '', url: '' };

describe('pageKeysOf: the tenant condition', () => {
  it("starts a tenant table's list with the caller's site", () => {
    const keys = pageKeysOf(db(table('colors', ['id', 'site_id', 'name'])), ctx, 'colors', {}, plain, [], 10, 0);
    expect(keys.statement.text).toMatch(/WHERE t\.site_id = \?/);
    expect(keys.params[0]).toBe('site-a');
  });

  it('refuses a global scope on a table that has site_id (it would list every tenant’s rows)', () => {
    expect(() => pageKeysOf(db(table('colors', ['id', 'site_id', 'name'])), ctx, 'colors', { global: true }, plain, [], 10, 0)).toThrow(
      /ListScope\.global on colors, a tenant table/,
    );
  });

  it('takes a global scope on the sites table, with no site parameter', () => {
    const keys = pageKeysOf(db(table('sites', ['id', 'name'])), ctx, 'sites', { global: true, equal: { id: 'site-a' } }, plain, [], 10, 0);
    expect(keys.statement.text).not.toMatch(/site_id/);
    expect(keys.params).not.toContain(undefined);
  });
});

describe('pageKeysOf: the index a page without a filter is read by (MySQL/MariaDB)', () => {
  const people = (): EntityMetadata => {
    const m = table('individuals', ['id', 'site_id', 'deleted', 'last_name', 'first_name', 'email']);
    const col = (n: string) => m.columns.find((c) => c.databaseName === n)!;
    (m as unknown as { indices: unknown[] }).indices = [
      { name: 'ix_individuals_site_deleted', columns: [col('site_id'), col('deleted')] },
      { name: 'ix_individuals_site_name', columns: [col('site_id'), col('deleted'), col('last_name'), col('first_name')] },
      { name: 'ix_individuals_site_email', columns: [col('site_id'), col('deleted'), col('email')] },
    ];
    return m;
  };
  const mysql = (metadata: EntityMetadata) => ({ metadataOf: () => metadata, isSqlite: false }) as unknown as TenantDb;
  const byName = [{ field: { property: 'last_name', then: ['first_name'] }, desc: false }] as never;
  const live = { equal: { deleted: false } };
  const text = (scope: object, query: Partial<ListQuery>, sqlite = false) =>
    pageKeysOf(sqlite ? db(people()) : mysql(people()), ctx, 'individuals', scope, { ...plain, ...query }, byName, 100, 0).statement.text;

  it('names the index that holds the scope and the order, on a plain page and a cursor page', () => {
    expect(text(live, {})).toMatch(/FROM individuals t USE INDEX \(ix_individuals_site_name\) WHERE/);
    expect(text(live, { cursor: ['Smith', 'Ann', 'id-1'] })).toMatch(/USE INDEX \(ix_individuals_site_name\)/);
    expect(text(live, { sort: [{ field: { property: 'email', then: [] }, desc: true }] as never })).toMatch(/USE INDEX \(ix_individuals_site_email\)/);
  });

  it('leaves the choice to the database with a filter, a scope of sets of rows, an equality the index lacks, mixed directions, or on SQLite', () => {
    const filter = { op: 'sw', field: { property: 'last_name', kind: 'string', then: [] }, value: 'Sm' };
    expect(text(live, { filter } as never)).not.toMatch(/USE INDEX/);
    expect(text({ ...live, in: { property: 'id', values: ['a', 'b'] } }, {})).not.toMatch(/USE INDEX/);
    expect(text({ equal: { deleted: false, email: 'a@b' } }, {})).not.toMatch(/USE INDEX/);
    expect(text({}, {})).not.toMatch(/USE INDEX/);
    expect(
      text(live, {
        sort: [
          { field: { property: 'last_name', then: [] }, desc: false },
          { field: { property: 'email', then: [] }, desc: true },
        ],
      } as never),
    ).not.toMatch(/USE INDEX/);
    expect(text(live, {}, true)).not.toMatch(/USE INDEX/);
  });
});
