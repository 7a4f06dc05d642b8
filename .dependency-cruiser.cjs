/**
 * The floors of docs/architecture.md as rules (`npm run lint` runs them: `npm run lint:arch`):
 *   config → common → database (schema, data access, registries) → authorization → features
 *   (src/modules/<resource>) → app (src/*.ts, src/demo).
 * A floor imports only floors below it; a feature uses another only through that feature's module
 * or service; entities live on the schema floor alone; nothing imports in a cycle.
 */
const APP = '^src/(?:[^/]+\\.ts$|demo/)';
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
      comment: 'src/common (HTTP, wire model, errors, context, auth guard) imports only src/config and itself: never the data layer, the engine or a feature.',
      from: { path: '^src/common/' },
      to: { path: '^src/', pathNot: '^src/(?:common|config)/' },
    },
    {
      name: 'database-imports-no-feature',
      severity: 'error',
      comment:
        'src/database (entities, migrations, TenantDb, queries, registries) imports config and common only: features plug into its registries at start-up.',
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
      name: 'entities-on-the-schema-floor',
      severity: 'error',
      comment: 'Every entity lives in src/database/entities.',
      from: {},
      to: { path: '\\.entity\\.ts$', pathNot: '^src/database/entities/' },
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
    reporterOptions: {
      dot: {
        // One node per folder of the floors (each feature, each part of common, the schema), so the graph stays readable.
        collapsePattern: '^src/(?:modules/[^/]+|common|database/entities|database/migrations|database|authorization|config|demo)|^src/[^/]+',
      },
    },
  },
};
