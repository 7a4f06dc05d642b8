// Which e2e spec files run together in one Jest test file. Jest loads the whole module graph of
// every test file anew (the app: NestJS, TypeORM, @nestjs/swagger, …), about 3 s of a worker's CPU
// a file in its ESM mode; the e2e project therefore runs its spec files in groups, each group one
// Jest test file (test/groups/e2e-NN.group-spec.ts) that imports its specs one after another, so the
// modules load once a group. Each spec still starts and closes its own apps on its own databases.
// See docs/testing.md, "e2e specs run in groups".
//
// The groups are made here from the files found, so a new spec file joins one with nothing listed:
// the specs are dealt to the groups largest first, each to the group with the fewest bytes so far
// (file size is the only cost known before a run), in one order on every machine.
//
// Left out on MySQL/MariaDB: SQLITE_ONLY_SPECS (below).
//
// Not grouped (each runs as a test file of its own):
// - the slow suites (their own Jest project, run by `npm test` and `npm run test:slow`),
// - specs with snapshots: a snapshot is kept beside the test file that ran it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMysqlUrl } from '../template-name.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** The e2e suites that take longest and guard what changes least: their own project (`slow`). */
export const SLOW_SPECS = [
  'roles-matrix',
  'process',
  'generated-client',
  'individuals-scale',
  'metrics-scale',
  'performance-records-scale',
  'migration-last-comment',
  'migration-utf8mb4-user-names',
].map((name) => `test/e2e/${name}.e2e-spec.ts`);

/**
 * Specs whose outcome cannot depend on the database DATABASE_URL names, run only on the embedded
 * SQLite default (`npm test`), not again by `npm run test:e2e` on MySQL/MariaDB:
 * - the service as a process: it starts `node dist/src/main.js` on SQLite files of its own, with
 *   an environment of its own;
 * - the OpenAPI document under Redocly and Spectral: it lints the document, which is the same on
 *   every database (test/e2e/documents-any-database.e2e-spec.ts holds that on MySQL/MariaDB).
 */
export const SQLITE_ONLY_SPECS = ['process', 'openapi-lint'].map((name) => `test/e2e/${name}.e2e-spec.ts`);

/** Whether this run's database is MySQL/MariaDB (DATABASE_URL), as the harness decides it. */
export const ON_MYSQL = isMysqlUrl(process.env.DATABASE_URL);

/** The specs this run leaves out: the SQLite-only ones on MySQL/MariaDB. */
export const LEFT_OUT_SPECS = ON_MYSQL ? SQLITE_ONLY_SPECS : [];

const SPEC_FOLDERS = ['test/e2e', 'test/security'];
const SNAPSHOT = /\.toMatch(Inline)?Snapshot\(|\.toThrowErrorMatching(Inline)?Snapshot\(/;

function specsUnder(folder) {
  const out = [];
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) out.push(...specsUnder(path));
    else if (entry.name.endsWith('.e2e-spec.ts')) out.push(path);
  }
  return out;
}

/** Every e2e spec file of the e2e project (the slow ones left out), relative to the root, sorted. */
export function e2eSpecs() {
  return SPEC_FOLDERS.flatMap(specsUnder)
    .filter((f) => !SLOW_SPECS.includes(f) && !LEFT_OUT_SPECS.includes(f))
    .sort();
}

/** The specs that run as test files of their own (they keep snapshots). */
export function standaloneSpecs() {
  return e2eSpecs().filter((f) => SNAPSHOT.test(readFileSync(join(ROOT, f), 'utf8')));
}

/** The group files present (test/groups/e2e-NN.group-spec.ts), sorted. */
export function groupFiles() {
  return readdirSync(join(ROOT, 'test/groups'))
    .filter((f) => /^e2e-\d+\.group-spec\.ts$/.test(f))
    .sort()
    .map((f) => `test/groups/${f}`);
}

/** The spec files (absolute paths) of the group whose file is `groupFile` (absolute or relative). */
export function specsOfGroup(groupFile) {
  const files = groupFiles();
  const index = files.indexOf(relative(ROOT, resolve(ROOT, groupFile)));
  if (index < 0) throw new Error(`${groupFile} is not one of the e2e group files (${files.join(', ')})`);
  const standalone = new Set(standaloneSpecs());
  const sized = e2eSpecs()
    .filter((f) => !standalone.has(f))
    .map((f) => ({ f, size: statSync(join(ROOT, f)).size }))
    .sort((a, b) => b.size - a.size || a.f.localeCompare(b.f));
  const bins = files.map(() => ({ size: 0, specs: [] }));
  for (const { f, size } of sized) {
    let least = 0;
    for (let i = 1; i < bins.length; i++) if (bins[i].size < bins[least].size) least = i;
    bins[least].size += size;
    bins[least].specs.push(f);
  }
  return bins[index].specs.sort().map((f) => join(ROOT, f));
}
