import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { declaringFiles, render, SNAPSHOT } from '../../scripts/sql-snapshot.mjs';
import { declaredStatements, family, sql } from './statements.js';

/**
 * src/database/statements.sql, the file a review reads every statement in, is what the declarations
 * give (`npm run sql:snapshot` writes it from them): a statement changed, added or removed without
 * its snapshot fails here.
 */
describe('the snapshot of the named statements (src/database/statements.sql)', () => {
  const ROOT = process.cwd();

  it('matches the declarations: run `npm run sql:snapshot` after changing a statement', async () => {
    const files = declaringFiles(join(ROOT, 'src'), '.ts');
    for (const file of files) await import(pathToFileURL(file).href);
    const declared = declaredStatements();
    // Every statements file of the features and the data floor's query functions are among them.
    expect(files.map((f) => f.slice(ROOT.length + 1))).toEqual(
      expect.arrayContaining([
        'src/authorization/grants.statements.ts',
        'src/database/queries/trees.ts',
        'src/modules/dashboards/dashboards.statements.ts',
        'src/modules/individuals/individuals.statements.ts',
        'src/modules/webhooks/outbox.statements.ts',
      ]),
    );
    // Each is listed with the file that declares it.
    for (const d of declared) expect({ name: d.name, file: files.some((f) => f.endsWith(`/${d.file}`)) }).toEqual({ name: d.name, file: true });
    const snapshot = readFileSync(join(ROOT, SNAPSHOT), 'utf8');
    const expected = render(declared);
    if (snapshot !== expected) throw new Error(`${SNAPSHOT} does not match the declared statements: run npm run sql:snapshot, and review the difference`);
  });

  it('names each statement once, and writes a family with the text of each sample', () => {
    const one = sql<{ id: string }>('snapshot-test.one', 'SELECT id FROM goals WHERE site_id = ?');
    expect(() => sql('snapshot-test.one', 'SELECT 1')).toThrow('declared twice');
    expect(() => sql('NotAName', 'SELECT 1')).toThrow('<area>.<what>');
    const many = family(
      'snapshot-test.many',
      (n: number, lock: boolean) => `SELECT id FROM goals WHERE id IN (${'?, '.repeat(n - 1)}?)${lock ? ' FOR UPDATE' : ''}`,
      [
        [1, false],
        [3, true],
      ],
    );
    const mine = declaredStatements().filter((d) => d.name.startsWith('snapshot-test.'));
    expect(mine).toEqual([
      { kind: 'statement', name: 'snapshot-test.one', file: 'src/database/statements-snapshot.spec.ts', variants: [{ text: one.text }] },
      {
        kind: 'family',
        name: 'snapshot-test.many',
        file: 'src/database/statements-snapshot.spec.ts',
        variants: [
          { args: '(1, false)', text: 'SELECT id FROM goals WHERE id IN (?)' },
          { args: '(3, true)', text: 'SELECT id FROM goals WHERE id IN (?, ?, ?) FOR UPDATE' },
        ],
      },
    ]);
    const text = render(mine);
    expect(text).toContain('-- snapshot-test.many (family)\n-- src/database/statements-snapshot.spec.ts\n-- snapshot-test.many(1, false)\nSELECT');
    expect(text).toContain('1 statements, 1 families (2 samples)');
    // A variant asked for again is the same statement (no text built again); a fixed one is prepared, a variant not.
    expect(many.of(3, true)).toBe(many.of(3, true));
    expect(many.of(3, true).text).toBe('SELECT id FROM goals WHERE id IN (?, ?, ?) FOR UPDATE');
    expect([one.prepare, many.of(1, false).prepare]).toEqual([true, false]);
    expect([one.select, many.of(1, false).select]).toEqual([true, true]);
  });
});
