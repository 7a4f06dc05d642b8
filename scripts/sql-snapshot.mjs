#!/usr/bin/env node
// The snapshot of the service's SQL (src/database/statements.ts, docs/architecture.md "What a
// module may call"): every named statement, where it is declared and its SQL, each family with the
// text of its samples, in one file a review reads (src/database/statements.sql).
//
//   npm run sql:snapshot          build if needed, then write src/database/statements.sql
//   npm run sql:snapshot -- --check   write nothing: exit 1 (saying so) when the file is not what the declarations give
//
// The unit test src/database/statements-snapshot.spec.ts makes the same comparison from the
// sources, so `npm test` fails on a statement changed without its snapshot.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format } from 'sql-formatter';

export const SNAPSHOT = 'src/database/statements.sql';

/** A module that imports the statements API (`sql`, `family`): `from '../statements.js'`, `from '../../database/statements.js'`. */
const DECLARES = /from '(?:\.{1,2}\/)+(?:database\/)?statements\.js'/;

/** The files under `dir` (compiled `.js` or source `.ts`) that may declare statements: app code importing the API. */
export function declaringFiles(dir, ext) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'testing') walk(path);
      } else if (entry.name.endsWith(ext) && !/\.(?:spec|cases|d)\.[jt]s$/.test(entry.name) && DECLARES.test(readFileSync(path, 'utf8'))) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

/** SQL as a review reads it: one clause a line (the formatter's whitespace; the text sent is the declaration's). */
function readable(text) {
  try {
    return format(text, { language: 'mariadb', keywordCase: 'preserve', tabWidth: 2, expressionWidth: 80 });
  } catch {
    return text.trim();
  }
}

/** The snapshot of these declarations (statements.ts `declaredStatements()`), sorted by name. */
export function render(declarations) {
  const sorted = [...declarations].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const families = sorted.filter((d) => d.kind === 'family');
  const samples = families.reduce((n, d) => n + d.variants.length, 0);
  const out = [
    '-- Every SQL statement the service writes by hand, as declared with src/database/statements.ts: its name,',
    '-- the file that declares it and its text (a family: the text of each sample of its arguments).',
    '-- Written by `npm run sql:snapshot`; src/database/statements-snapshot.spec.ts fails when it no longer',
    "-- matches the declarations. Whitespace is the formatter's; the text sent is the declaration's.",
    '--',
    '-- Not here: the kept statements of simple finds, inserts and updates (built from the entities,',
    '-- src/database/kept-sql.ts, kept-writes.ts), the audit trail the journal writes with each commit',
    '-- (src/database/journal.ts), migrations, and the machinery of the connection (ping, migration lock,',
    '-- data source setup, character set check).',
    '--',
    `-- ${sorted.length - families.length} statements, ${families.length} families (${samples} samples).`,
  ];
  for (const d of sorted) {
    out.push('', `-- ${d.name}${d.kind === 'family' ? ' (family)' : ''}`, `-- ${d.file}`);
    for (const v of d.variants) {
      if (v.args !== undefined) out.push(`-- ${d.name}${v.args}`);
      out.push(`${readable(v.text)};`);
    }
  }
  return out.join('\n') + '\n';
}

/** Loads the compiled declarations of the repository at `root` and renders them. */
async function snapshotOf(root) {
  for (const file of declaringFiles(join(root, 'dist/src'), '.js')) await import(pathToFileURL(file).href);
  const { declaredStatements } = await import(pathToFileURL(join(root, 'dist/src/database/statements.js')).href);
  return render(declaredStatements());
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const check = process.argv.includes('--check');
  const text = await snapshotOf(root);
  const path = join(root, SNAPSHOT);
  let kept = null;
  try {
    kept = readFileSync(path, 'utf8');
  } catch {
    // No snapshot yet.
  }
  if (check) {
    if (kept !== text) {
      process.stderr.write(`${SNAPSHOT} does not match the declared statements: run npm run sql:snapshot\n`);
      process.exit(1);
    }
    process.stdout.write(`${SNAPSHOT} matches the declared statements\n`);
  } else {
    writeFileSync(path, text);
    process.stdout.write(`${relative(process.cwd(), path) || SNAPSHOT}: ${kept === text ? 'unchanged' : 'written'}\n`);
  }
}
