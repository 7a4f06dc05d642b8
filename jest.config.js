// Jest runs in its ESM mode (node --experimental-vm-modules, see package.json).
// ts-jest transpiles each file on its own (isolatedModules); `npm test` type-checks the whole
// project with tsc first, so type errors still fail the run. (SWC would spend a fifth less CPU,
// but the npm registry this project installs from lacks @swc/core's binaries for other platforms,
// so its lock file would not install with npm ci: docs/decisions.md.)
import { LEFT_OUT_SPECS, SLOW_SPECS, standaloneSpecs } from './test/groups/groups.mjs';

const tsJest = ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.json' }];
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': tsJest },
  testEnvironment: 'node',
  rootDir: '.',
};
/**
 * e2e suites that take longest and guard what changes least: the full roles matrix, the service
 * as a process, the generated client compiled with tsc, the scale and migration suites. `npm test`
 * runs them as a project of their own beside the grouped e2e specs (`npm run test:slow` alone), and
 * `.ci/run` on MariaDB too (`npm run test:e2e`; not the SQLite-only ones). Listed in test/groups/groups.mjs.
 */
const SLOW = SLOW_SPECS.filter((f) => !LEFT_OUT_SPECS.includes(f)).map((f) => `<rootDir>/${f}`);
/** What the e2e project leaves to other projects or, on MySQL/MariaDB, to the SQLite run (SQLITE_ONLY_SPECS in groups.mjs). */
const NOT_E2E = [...SLOW_SPECS, ...LEFT_OUT_SPECS].map((f) => `/${f}`);

/**
 * The e2e project runs its spec files in groups, one Jest test file a group (test/groups/groups.mjs:
 * the app's modules load once a group, not once a file). Given paths of spec files (`npm run
 * test:e2e -- test/e2e/goals.e2e-spec.ts`), or with E2E_FILES=1, it runs each spec as a file of its own.
 */
const SPECS_NAMED = process.argv.slice(2).some((a) => /\.e2e-spec\.ts$|(^|\/)test\/(e2e|security)(\/|$)/.test(a));
const E2E_PER_FILE = process.env.E2E_FILES === '1' || SPECS_NAMED;
const E2E_GROUPED = ['<rootDir>/test/groups/e2e-*.group-spec.ts', ...standaloneSpecs().map((f) => `<rootDir>/${f}`)];

/**
 * The e2e files `npm run test:prism` sends through Stoplight Prism's validating proxy (docs/openapi.md,
 * "Prism"): a representative few minutes — the records of every shape (people, goals, periods,
 * projects, comments, tasks, tokens, archives), lists and their updatedSince, dashboards, the HTTP
 * conventions and hostile input (the cases meant to be invalid).
 * `npm run test:prism:all` sends every e2e file.
 */
const PRISM_SUBSET = [
  'goals',
  'individuals',
  'periods',
  'projects',
  'comments',
  'tasks',
  'api-tokens',
  'archives',
  'delta-lists',
  'dashboards',
  'http-conventions',
  'hostile-input',
].map((name) => `<rootDir>/test/e2e/${name}.e2e-spec.ts`);
const E2E = ['<rootDir>/test/e2e/**/*.e2e-spec.ts', '<rootDir>/test/security/**/*.e2e-spec.ts'];
const PRISM_SETUP = ['<rootDir>/test/e2e/prism-mode.ts'];
/** The Prism runs' check of their own machinery (the pool, the switch, the relays). */
const PRISM_OWN = '<rootDir>/test/prism/**/*.prism-spec.ts';
/** The run's Prisms, one per distinct OpenAPI document, shared by every worker (test/e2e/prism-pool.mjs). */
const PRISM_POOL = { globalSetup: '<rootDir>/test/e2e/prism-pool.mjs', globalTeardown: '<rootDir>/test/e2e/prism-pool-teardown.mjs' };

export default {
  // A global option (ignored inside a project): e2e hooks start a whole app and create users
  // (scrypt), so be generous on a loaded 2-core machine.
  testTimeout: 60_000,
  // Three workers on two cores: an e2e spec waits part of its time (on the database, on child
  // processes, for dashboard summaries to catch up), and a third worker fills those waits. The e2e
  // and slow run on MariaDB took 516 s with two, 447 s with three (docs/testing.md, "Workers").
  maxWorkers: 3,
  // A worker whose heap has grown past this after a test file is replaced by a fresh one. Jest's ESM
  // mode keeps every file's module graph (the whole app: NestJS, TypeORM, …) alive in its worker, so
  // a worker that ran 60 e2e files held 4.4 GB and spent its time in the garbage collector: the files
  // it ran last took up to 27× as long as with this limit (docs/testing.md, "Workers").
  workerIdleMemoryLimit: '800MB',
  // A folder for the run where the e2e harness keeps the documents its apps answer (test/e2e/harness.ts).
  globalSetup: '<rootDir>/test/documents-setup.mjs',
  globalTeardown: '<rootDir>/test/documents-teardown.mjs',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/unit/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      // test/security: the attack suite (docs/security.md), on SQLite here and on MariaDB in `npm run test:e2e`.
      testMatch: E2E_PER_FILE ? E2E : E2E_GROUPED,
      testPathIgnorePatterns: NOT_E2E,
    },
    { ...common, displayName: 'slow', testMatch: SLOW },
    // Through Prism's validating proxy: `npm run test:prism` (CI) and `npm run test:prism:all`.
    { ...common, ...PRISM_POOL, displayName: 'prism', testMatch: [...PRISM_SUBSET, PRISM_OWN], setupFiles: PRISM_SETUP },
    {
      ...common,
      ...PRISM_POOL,
      displayName: 'prism-all',
      testMatch: [...E2E, PRISM_OWN],
      testPathIgnorePatterns: NOT_E2E,
      setupFiles: PRISM_SETUP,
    },
    // Needs Mono (mcs, mono) and Debian's python3-openpyxl: run by `npm run test:interop` and CI, not by `npm test`.
    { ...common, displayName: 'interop', testMatch: ['<rootDir>/test/interop/**/*.interop-spec.ts'] },
    // Starts MariaDB servers of its own and kills them: run by `npm run test:faults` (two files at a time) and CI.
    { ...common, displayName: 'faults', testMatch: ['<rootDir>/test/faults/**/*.fault-spec.ts'] },
    // Starts a whole cluster of its own (scripts/cluster.mjs: Galera, HAProxy, Redis, replicas): `npm run test:cluster` and CI.
    { ...common, displayName: 'cluster', testMatch: ['<rootDir>/test/cluster/**/*.cluster-spec.ts'] },
    // Needs a Redis server (127.0.0.1:6379 or TEST_REDIS_URL): run by `npm run test:redis` and CI, not by `npm test`.
    { ...common, displayName: 'redis', testMatch: ['<rootDir>/test/redis/**/*.redis-spec.ts'] },
    // Starts the service with `npm start` and runs the README's shell examples (bash, curl): `npm run test:readme` and CI.
    { ...common, displayName: 'readme', testMatch: ['<rootDir>/test/readme/**/*.readme-spec.ts'] },
    // Needs Debian's chromium (/usr/bin/chromium): run by `npm run test:browser` and CI, not by `npm test`.
    { ...common, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'] },
  ],
};
