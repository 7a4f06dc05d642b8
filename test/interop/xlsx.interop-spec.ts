import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RequestContext } from '../../src/common/context/request-context.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { createDepartment } from '../factories/individuals.js';
import { createSite, type TestSite } from '../factories/index.js';
import { bearer, startApp, type TestApp } from '../e2e/harness.js';
import { type Cell, expectedCell, rawBody } from '../e2e/list-query-grammar.js';

/**
 * XLSX exports (docs/exports.md) read by a spreadsheet library apart from the service's own:
 * openpyxl (Debian's python3-openpyxl, the reader of Python's data tools). Every cell of every row
 * is the JSON list's value, as the e2e suite holds with exceljs: texts with XML's special
 * characters, line breaks (a carriage return too), characters beyond the BMP, leading spaces and
 * neutralized formulas; numbers, booleans and empty cells as such.
 */
type Json = Record<string, unknown>;

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const here = dirname(fileURLToPath(import.meta.url));
/** Debian's interpreter, whose python3-openpyxl CI installs (another `python3` on PATH may lack it). */
const PYTHON = '/usr/bin/python3';

describe('XLSX exports read by openpyxl', () => {
  let t: TestApp;
  let acme: TestSite;
  let work: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'pms-xlsx-interop-'));
    t = await startApp({ EXPORT_BATCH_ROWS: '10' });
    acme = await createSite(t);
    const db = t.app.get(TenantDb);
    const ctx = RequestContext.system(acme.siteId);
    const texts = [
      'Ampersand & <angle> "quotes" \'apostrophe\'',
      'two\r\nlines',
      'only\rCR',
      '  leading spaces',
      'Zoë 中文 😀',
      '=HYPERLINK("http://x.test")',
      '@SUM(A1)',
      '</v></c><c r="Z1"><v>1</v></c>',
      'x'.repeat(250),
    ];
    for (let i = 0; i < 30; i++) {
      await db.repo(ctx, IndividualEntity).insert({
        firstName: i < texts.length ? texts[i].slice(0, 50) : `First${i}`,
        lastName: `Last${String(i % 13).padStart(2, '0')}`,
        primaryTitle: texts[i % texts.length],
        email: i % 4 === 0 ? null : `p${i}@acme.test`,
        hireDate: i % 3 === 0 ? null : new Date(Date.UTC(2021, i % 12, 1 + i)),
        primaryOrganizationId: acme.orgId,
        deleted: i % 10 === 9,
        externalId: i % 5 === 0 ? null : `HR-${i}`,
      });
    }
    for (let i = 0; i < 9; i++) await createDepartment(t, acme.siteId, { name: i < texts.length ? texts[i].slice(0, 100) : `Dept ${i}`, deleted: i === 4 });
  });
  afterAll(async () => {
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** The first sheet as openpyxl reads it. */
  const readBack = (file: string) =>
    JSON.parse(execFileSync(PYTHON, [join(here, 'read_xlsx.py'), file], { encoding: 'utf8' })) as { name: string; rows: Cell[][] };

  it.each([
    ['/v4/individuals?deleted=2', 'individuals'],
    ['/v4/individuals?fields=FirstName,PrimaryTitle,HireDate&sort=-HireDate', 'individuals'],
    ['/v4/departments?deleted=2', 'departments'],
  ])('%s: every row and cell as the JSON list gives it', async (path, sheet) => {
    const list = (await t.http().get(`${path}&limit=5000`).set('Authorization', bearer(acme.admin.token)).expect(200)).body as Json[];
    expect(list.length).toBeGreaterThan(8);
    const columns = Object.keys(list[0]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const res = await t.http().get(path).set('Authorization', bearer(acme.admin.token)).set('Accept', XLSX).buffer(true).parse(rawBody).expect(200);
    const file = join(work, `${sheet}-${Math.random().toString(36).slice(2)}.xlsx`);
    writeFileSync(file, res.body as Buffer);
    const read = readBack(file);
    expect(read.name).toBe(sheet);
    expect(read.rows).toEqual([columns, ...list.map((r) => columns.map((c) => expectedCell(r[c])))]);
  });
});
