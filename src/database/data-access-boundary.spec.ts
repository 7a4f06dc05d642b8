import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The data-access boundary (docs/architecture.md, "What a module may call"): modules reach the
 * database only through `TenantDb` (site-scoped repositories, `global()` for sites and accounts)
 * and named statements (src/database/statements.ts). Outside src/database:
 *
 * - nothing holds a DataSource, an EntityManager or a TypeORM repository, or sends `.query(`;
 * - TenantDb's statement paths (`sql`, `sqlAtCommit`, `reader`/`rows`, `pollRead`,
 *   `housekeeping`, `housekeepingWrite`) are called only in a statements file (`*.statements.ts`:
 *   a feature's, or the authorization engine's grants), where the statements are declared and run;
 * - SQL text is written only there: no string in any other file starts a statement, and only a
 *   statements file declares statements.
 *
 * So no module can skip the site filter, write outside a transaction's context, or send SQL that
 * `src/database/statements.sql` does not show. The test declarations (`src/testing`, `*.cases.ts`)
 * are no app code and are not scanned; test files neither.
 */
const ROOT = join(process.cwd(), 'src');

/** Anywhere outside src/database, statements files included. */
const HANDLES: [RegExp, string][] = [
  [/\bDataSource\b/, 'a DataSource'],
  [/\bEntityManager\b/, 'an EntityManager'],
  [/\bInjectDataSource\b|\bInjectRepository\b|\bInjectEntityManager\b/, 'an injected TypeORM handle'],
  [/\.getRepository\(/, 'getRepository()'],
  [/\.query\(/, 'raw SQL (.query())'],
  [/\.manager\b/, 'a manager'],
];

/** Only in a statements file. */
const STATEMENT_PATHS: [RegExp, string][] = [
  [/\.sql\(/, 'TenantDb.sql()'],
  [/\bsqlAtCommit\(/, 'TenantDb.sqlAtCommit()'],
  [/\.reader\(/, 'TenantDb.reader()'],
  [/\.rows\(/, "a reader's rows()"],
  [/\bpollRead\(/, 'TenantDb.pollRead()'],
  [/\bhousekeeping\(/, 'TenantDb.housekeeping()'],
  [/\bhousekeepingWrite\(/, 'TenantDb.housekeepingWrite()'],
  [/\b(?:sql|family|familyWithParams)(?:<[^>]*>)?\(\s*['"`][a-z-]+\./, 'a statement declaration'],
];

/** A string that starts a SQL statement (only in a statements file). */
const SQL_TEXT =
  /['"`]\s*(?:SELECT\s|WITH\s+(?:RECURSIVE\s+)?\w+\s*(?:\(|AS\b)|INSERT\s+(?:INTO|IGNORE|OR)\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|REPLACE\s+INTO\s)/g;

/** The text with its comments blanked out, line breaks kept (so line numbers still hold). */
function codeOf(text: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  return text.replace(/\/\*[\s\S]*?\*\//g, blank).replace(/(^|[^:'"`\\])\/\/[^\n]*/g, (m, before: string) => before + blank(m.slice(before.length)));
}

/** What a file breaks of the boundary, as `<file>:<line> <what>`. */
function violations(rel: string, text: string): string[] {
  const statements = rel.endsWith('.statements.ts');
  const code = codeOf(text);
  const found: string[] = [];
  code.split('\n').forEach((line, i) => {
    for (const [re, what] of HANDLES) if (re.test(line)) found.push(`src/${rel}:${i + 1} uses ${what}`);
    if (!statements) for (const [re, what] of STATEMENT_PATHS) if (re.test(line)) found.push(`src/${rel}:${i + 1} uses ${what} outside a statements file`);
  });
  if (!statements) {
    for (const m of code.matchAll(SQL_TEXT)) found.push(`src/${rel}:${code.slice(0, m.index).split('\n').length} writes SQL text outside a statements file`);
  }
  return found;
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

/** App code outside the data floor: not src/database, not the test declarations. */
const scanned = (rel: string) => !rel.startsWith('database/') && !rel.startsWith('testing/') && !rel.endsWith('.cases.ts');

describe('data-access boundary', () => {
  it('keeps DataSource, EntityManager and .query( inside src/database/, and statements (their paths and SQL text) inside statements files', () => {
    const found: string[] = [];
    for (const file of files(ROOT)) {
      const rel = relative(ROOT, file).split('\\').join('/');
      if (scanned(rel)) found.push(...violations(rel, readFileSync(file, 'utf8')));
    }
    expect(found).toEqual([]);
  });

  it('scans the statements files too, and leaves out only the data floor and the test declarations', () => {
    const all = files(ROOT).map((f) => relative(ROOT, f).split('\\').join('/'));
    expect(all.filter((rel) => rel.endsWith('.statements.ts') && scanned(rel)).length).toBeGreaterThanOrEqual(5);
    expect(all.filter((rel) => !scanned(rel)).every((rel) => rel.startsWith('database/') || rel.startsWith('testing/') || rel.endsWith('.cases.ts'))).toBe(
      true,
    );
  });

  describe('finds a planted violation of each kind (the scan itself works)', () => {
    const planted: [string, string][] = [
      ['constructor(@InjectDataSource() private readonly ds: DataSource) {}', 'a DataSource'],
      ['run(m: EntityManager) {}', 'an EntityManager'],
      ['@InjectRepository(GoalEntity) goals: unknown', 'an injected TypeORM handle'],
      ['const goals = this.em.getRepository(GoalEntity);', 'getRepository()'],
      ["await this.runner.query('SELECT 1');", 'raw SQL (.query())'],
      ['const m = this.ds.manager;', 'a manager'],
      ['await this.db.sql(ctx, GOALS, [ctx.siteId]);', 'TenantDb.sql()'],
      ['this.db.sqlAtCommit(ctx, GOALS, [ctx.siteId]);', 'TenantDb.sqlAtCommit()'],
      ['const reader = this.db.reader(ctx);', 'TenantDb.reader()'],
      ['const rows = await reader.rows(GOALS, [ctx.siteId]);', "a reader's rows()"],
      ['await this.db.pollRead(GOALS, []);', 'TenantDb.pollRead()'],
      ['await this.db.housekeeping((h) => h.write(GOALS, []));', 'TenantDb.housekeeping()'],
      ['await this.db.housekeepingWrite(GOALS, []);', 'TenantDb.housekeepingWrite()'],
      ["const GOALS = sql<{ id: string }>('goals.all', TEXT);", 'a statement declaration'],
      ["const PAGE = family('goals.page', build, [[1]]);", 'a statement declaration'],
    ];
    it.each(planted)('%s', (line, what) => {
      expect(violations('modules/goals/goals.service.ts', line).join('\n')).toContain(`uses ${what}`);
    });

    it.each([
      "const text = 'SELECT id FROM goals WHERE site_id = ?';",
      'const text = `\n  WITH RECURSIVE up(id) AS (SELECT 1)`;',
      'const text = "INSERT INTO goals (id) VALUES (?)";',
      "const text = 'UPDATE goals SET name = ? WHERE id = ?';",
      "const text = 'DELETE FROM goals WHERE id = ?';",
    ])('SQL text: %s', (line) => {
      expect(violations('authorization/access.service.ts', line)).toEqual(['src/authorization/access.service.ts:1 writes SQL text outside a statements file']);
    });

    it('allows statements and their paths in a statements file, never a TypeORM handle', () => {
      const file = [
        "const GOALS = sql<{ id: string }>('goals.all', 'SELECT id FROM goals WHERE site_id = ?');",
        'export const goals = (db: TenantDb, ctx: RequestContext) => db.reader(ctx).rows(GOALS, [ctx.siteId]);',
        'export const all = (m: EntityManager) => m.query(GOALS.text);',
      ].join('\n');
      expect(violations('modules/goals/goals.statements.ts', file)).toEqual([
        'src/modules/goals/goals.statements.ts:3 uses an EntityManager',
        'src/modules/goals/goals.statements.ts:3 uses raw SQL (.query())',
      ]);
    });

    it('reads neither comments nor route names as SQL', () => {
      const file = [
        '// SELECT id FROM goals: db.sql(ctx, …) is for statements files',
        '/** `DELETE FROM goals` runs in goals.statements.ts; this.db.reader(ctx) too. */',
        "const route = 'DELETE /v4/goals/:id';",
        "const url = 'https://example.com/SELECT x';",
      ].join('\n');
      expect(violations('modules/goals/goals.service.ts', file)).toEqual([]);
    });
  });
});
