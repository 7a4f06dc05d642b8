import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The data-access boundary (docs/architecture.md): modules reach the database only through
 * `TenantDb` (site-scoped repositories, `global()` for sites and accounts) and the query functions
 * of `src/database/queries/` (and the authorization engine's reads of Permission records,
 * `src/authorization/grants.ts`). Nothing else may hold a DataSource or an EntityManager, run raw
 * SQL or build queries from scratch, so no module can skip the site filter or write outside a
 * transaction's context.
 */
const RAW_SQL_OUTSIDE_DATABASE = new Set(['authorization/grants.ts']);
const ROOT = join(process.cwd(), 'src');
const FORBIDDEN: [RegExp, string][] = [
  [/\bDataSource\b/, 'a DataSource'],
  [/\bEntityManager\b/, 'an EntityManager'],
  [/\bInjectDataSource\b|\bInjectRepository\b|\bInjectEntityManager\b/, 'an injected TypeORM handle'],
  [/\.getRepository\(/, 'getRepository()'],
  [/\.query\(/, 'raw SQL (.query())'],
  [/\.manager\b/, 'a manager'],
  [/\.sql\(/, 'raw SQL (TenantDb.sql(), for src/database/queries only)'],
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('data-access boundary', () => {
  it('keeps DataSource, EntityManager and raw SQL inside src/database/ (and the grants reads of src/authorization/)', () => {
    const found: string[] = [];
    for (const file of files(ROOT)) {
      const rel = relative(ROOT, file);
      if (rel.startsWith('database/') || RAW_SQL_OUTSIDE_DATABASE.has(rel)) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const code = line.replace(/\/\/.*$/, '');
          if (/^\s*(\*|\/\*)/.test(code)) return; // comments
          for (const [re, what] of FORBIDDEN) if (re.test(code)) found.push(`src/${rel}:${i + 1} uses ${what}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('finds a violation when there is one (the scan itself works)', () => {
    const sample = "constructor(@InjectDataSource() private readonly ds: DataSource) { this.ds.query('SELECT 1'); }";
    expect(FORBIDDEN.filter(([re]) => re.test(sample)).map(([, what]) => what)).toEqual(['a DataSource', 'an injected TypeORM handle', 'raw SQL (.query())']);
  });
});
