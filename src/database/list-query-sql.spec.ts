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
const plain: ListQuery = { filter: null, sort: [], fields: null, cursor: null, binding: '' };

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
