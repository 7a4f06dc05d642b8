// The import graph of src/ by floor and feature folder (docs/architecture.md links it):
//   npm run docs:graph            writes docs/architecture-graph.dot (dependency-cruiser) and renders
//                                 docs/architecture-graph.svg with Graphviz (`apt-get install graphviz`)
//   node scripts/docs-graph.mjs --check
//                                 (in npm run lint) fails when the committed graph no longer matches the code
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const DOT = 'docs/architecture-graph.dot';
const SVG = 'docs/architecture-graph.svg';

const dot = execFileSync(
  'npx',
  [
    'depcruise',
    'src',
    '--config',
    '.dependency-cruiser.cjs',
    '--include-only',
    '^src/',
    '--exclude',
    '(?:\\.spec|\\.cases)\\.ts$|^src/testing/',
    '--output-type',
    'dot',
  ],
  { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] },
);

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(DOT, 'utf8');
  } catch {
    // missing: stale by definition
  }
  if (committed !== dot) {
    console.error(`${DOT} no longer matches the imports of src/: run \`npm run docs:graph\` and commit ${DOT} and ${SVG}.`);
    process.exit(1);
  }
  console.log(`${DOT} matches the imports of src/.`);
} else {
  writeFileSync(DOT, dot);
  writeFileSync(SVG, execFileSync('dot', ['-Tsvg'], { input: dot, maxBuffer: 64 * 1024 * 1024 }));
  console.log(`wrote ${DOT} and ${SVG}`);
}
