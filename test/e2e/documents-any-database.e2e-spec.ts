import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XSD_BASE, XSD_FILES } from '../../src/openapi/xsd.js';
import { startApp, TestApp } from './harness.js';

/**
 * The OpenAPI document and the XML Schema do not depend on the database: an app on this run's
 * database (MySQL/MariaDB with DATABASE_URL) answers them byte for byte as an app on an embedded
 * SQLite file does. This is what lets the run on MySQL/MariaDB leave the linting of the document
 * (test/e2e/openapi-lint.e2e-spec.ts) to the SQLite run (SQLITE_ONLY_SPECS, test/groups/groups.mjs).
 */
describe('the OpenAPI document and the XML Schema on every database', () => {
  let onRun: TestApp;
  let onSqlite: TestApp;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pms-documents-'));
    onRun = await startApp();
    onSqlite = await startApp({ DATABASE_URL: `sqlite:${join(dir, 'documents.sqlite')}` });
  });
  afterAll(async () => {
    await onSqlite?.close();
    await onRun?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the OpenAPI document is the same on this run’s database as on SQLite', async () => {
    expect(onSqlite.config.database.kind).toBe('sqlite');
    const [a, b] = await Promise.all([onRun, onSqlite].map(async (t) => (await t.http().get('/docs/openapi.json').expect(200)).text));
    expect(a.length).toBeGreaterThan(100_000);
    expect(a).toBe(b);
  });

  it.each(Object.values(XSD_FILES))('the XML Schema %s is the same on this run’s database as on SQLite', async (name) => {
    const [a, b] = await Promise.all([onRun, onSqlite].map(async (t) => (await t.http().get(`${XSD_BASE}${name}`).expect(200)).text));
    expect(a).toContain('<xs:schema');
    expect(a).toBe(b);
  });
});
