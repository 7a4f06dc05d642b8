// Module resolution hook: `import ts from 'typescript'` inside openapi-typescript resolves to the
// `typescript5` alias package; every other importer keeps the project's TypeScript.
export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/openapi-typescript/')) {
    return nextResolve('typescript5', context);
  }
  return nextResolve(specifier, context);
}
