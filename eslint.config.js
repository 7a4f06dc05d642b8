import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'data/', '.bench-builds/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-unsafe-function-type': 'off',
      'no-console': 'error',
    },
  },
  {
    // An async-context scope taxes every promise of every request (docs/performance.md, "No async
    // context"); the request's context is passed explicitly. SQLite's writer lock is the exception.
    files: ['src/**/*.ts'],
    ignores: ['src/database/transactions.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'node:async_hooks', message: 'No async context on the request path: pass RequestContext (docs/performance.md, "No async context").' },
            { name: 'async_hooks', message: 'No async context on the request path: pass RequestContext (docs/performance.md, "No async context").' },
          ],
        },
      ],
    },
  },
  { files: ['bench/**/*.ts', 'test/**/*.ts', 'scripts/**/*.mjs'], rules: { 'no-console': 'off' } },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } } },
);
