// The setup of the `prism` jest projects (npm run test:prism, test:prism:all): every test app's
// requests go through Stoplight Prism's validating proxy (test/e2e/prism.ts, docs/openapi.md).
process.env.PRISM = '1';
