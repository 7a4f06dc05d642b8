// The global teardown of the `prism` Jest projects: stops the Prisms of the run (test/e2e/prism-pool.mjs).
export { teardown as default } from './prism-pool.mjs';
