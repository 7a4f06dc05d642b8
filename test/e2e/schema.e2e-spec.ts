import { DB_KIND, startApp, TestApp } from './harness.js';

describe('database schema', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it(`migrations create exactly what the entities describe (${DB_KIND})`, async () => {
    const sql = await t.ds.driver.createSchemaBuilder().log();
    expect(sql.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('has applied every migration and has none pending', async () => {
    expect(await t.ds.showMigrations()).toBe(false);
  });

  it('leads the indexes of every tenant table with site_id', () => {
    for (const meta of t.ds.entityMetadatas) {
      if (!meta.columns.some((c) => c.databaseName === 'site_id') || meta.tableName === 'users') continue;
      for (const index of meta.indices) {
        if (index.columns.some((c) => c.databaseName === 'user_id')) continue; // global uniqueness of a login account
        // Looked up before any site is known (docs/identity.md): an API token by its secret's hash, a provider by its issuer.
        if (['secret_hash', 'issuer'].includes(index.columns[0].databaseName)) continue;
        expect({ table: meta.tableName, index: index.name, first: index.columns[0].databaseName }).toEqual({
          table: meta.tableName,
          index: index.name,
          first: 'site_id',
        });
      }
    }
  });
});
