/**
 * The floors of docs/architecture.md as rules (`npm run lint` runs them: `npm run lint:arch`),
 * bottom to top, each a folder holding one kind of thing:
 *   config (the environment) → common (context, errors, dates, logging, invalidation, egress, tasks)
 *   → http (the wire model in http/wire, the request pipeline in http/pipeline)
 *   → auth (credentials: tokens, passwords, the guard) → database (schema, data access, caches,
 *   registries) → authorization → features (src/modules/<resource>) → app (src/*.ts, src/demo,
 *   src/openapi: the OpenAPI document).
 * A floor imports only floors below it; a feature uses another only through that feature's module
 * or service; entities live on the schema floor alone; nothing imports in a cycle.
 */
const APP = '^src/(?:[^/]+\\.ts$|demo/|openapi/)';
const FEATURES = '^src/modules/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle: break it by moving what both sides need a floor down, or by a registry the upper side fills at start-up.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'config-imports-nothing-above',
      severity: 'error',
      comment: 'src/config is the ground floor: it reads the environment and imports no other part of src.',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: '^src/config/' },
    },
    {
      name: 'common-imports-only-config',
      severity: 'error',
      comment: 'src/common (request context, typed errors, dates, logging, invalidation, egress, background tasks) imports only src/config and itself.',
      from: { path: '^src/common/' },
      to: { path: '^src/', pathNot: '^src/(?:common|config)/' },
    },
    {
      name: 'http-imports-only-common',
      severity: 'error',
      comment: 'src/http (the wire model and the request pipeline) imports common and config only: never credentials, the data layer or a feature.',
      from: { path: '^src/http/' },
      to: { path: '^src/', pathNot: '^src/(?:http|common|config)/' },
    },
    {
      name: 'wire-model-below-pipeline',
      severity: 'error',
      comment: 'src/http/wire (resource declarations, codec, pages) does not know the pipeline that carries it.',
      from: { path: '^src/http/wire/' },
      to: { path: '^src/http/pipeline/' },
    },
    {
      name: 'auth-imports-only-http-and-below',
      severity: 'error',
      comment:
        'src/auth (tokens, passwords, the throttle, the guard) imports http, common and config: it asks the CallerResolver the app provides, never the data layer.',
      from: { path: '^src/auth/' },
      to: { path: '^src/', pathNot: '^src/(?:auth|http|common|config)/' },
    },
    {
      name: 'database-imports-no-feature',
      severity: 'error',
      comment:
        'src/database (entities, migrations, TenantDb, statements, caches, registries) imports the floors below only: features plug into its registries at start-up.',
      from: { path: '^src/database/' },
      to: { path: ['^src/(?:authorization|modules)/', APP] },
    },
    {
      name: 'authorization-imports-no-feature',
      severity: 'error',
      comment: 'src/authorization (the access service, grants, shared access rules) sits below the features: they ask it, it imports none of them.',
      from: { path: '^src/authorization/' },
      to: { path: [FEATURES, APP] },
    },
    {
      name: 'features-import-no-app',
      severity: 'error',
      comment: 'A feature does not import the app floor (app module, core module, demo seeds).',
      from: { path: FEATURES },
      to: { path: APP },
    },
    {
      name: 'feature-through-module-or-service',
      severity: 'error',
      comment:
        "A feature uses another feature only through that feature's module or service, never its entities, DTOs or helpers (entities come from src/database/entities).",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: FEATURES, pathNot: ['^src/modules/$1/', '\\.(?:module|service)\\.ts$'] },
    },
    {
      name: 'test-cases-import-only-their-feature',
      severity: 'error',
      comment:
        "A feature's test cases (<feature>.cases.ts) import the cases support (src/testing), their own feature's dto files (the examples they send) and the examples registry, nothing else of src.",
      from: { path: '^src/modules/([^/]+)/[^/]+\\.cases\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/testing/', '^src/modules/$1/dto/', '^src/http/wire/examples\\.ts$'] },
    },
    {
      name: 'test-support-imports-only-examples',
      severity: 'error',
      comment: 'src/testing (the types and helpers of the test cases) imports the examples registry only: never the app, the data layer or a test harness.',
      from: { path: '^src/testing/' },
      to: { path: '^src/', pathNot: ['^src/testing/', '^src/http/wire/examples\\.ts$'] },
    },
    {
      name: 'app-imports-no-test-cases',
      severity: 'error',
      comment: 'Nothing of the app imports the test cases or their support: they are not part of the build (tsconfig.build.json), the tests collect them.',
      from: { path: '^src/', pathNot: ['^src/testing/', '\\.cases\\.ts$'] },
      to: { path: ['^src/testing/', '\\.cases\\.ts$'] },
    },
    {
      name: 'statements-declared-in-statements-files',
      severity: 'error',
      comment:
        'SQL is declared (sql, family: src/database/statements.ts) on the data floor or in a statements file (<name>.statements.ts) of a feature or of the authorization engine, which runs it; everything else calls that file\'s functions (docs/architecture.md, "What a module may call").',
      from: { path: '^src/', pathNot: ['^src/database/', '\\.statements\\.ts$'] },
      to: { path: '^src/database/statements\\.ts$' },
    },
    {
      name: 'entities-on-the-schema-floor',
      severity: 'error',
      comment: 'Every entity lives in src/database/entities.',
      from: {},
      to: { path: '\\.entity\\.ts$', pathNot: '^src/database/entities/' },
    },
    {
      name: 'exceljs-on-first-use',
      severity: 'error',
      comment:
        'exceljs (the XLSX reader, with the zip and promise libraries it loads) is imported where an XLSX file is read (`await import`), never at start: a replica that reads none does not hold it (docs/imports.md, "Memory").',
      from: { path: '^src/', pathNot: '\\.spec\\.ts$' },
      to: { path: 'node_modules/exceljs/', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to no file.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Packages' subpath exports (`csv-stringify/sync`), resolved as Node resolves them.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    reporterOptions: {
      dot: {
        // One node per folder of the floors (each feature, each part of common, the schema), so the graph stays readable.
        collapsePattern:
          '^src/(?:modules/[^/]+|common|http/wire|http/pipeline|auth|database/entities|database/migrations|database|authorization|config|demo|openapi)|^src/[^/]+',
      },
    },
  },
};
