// The import measures of docs/architecture.md ("Floors"), from dependency-cruiser's JSON output:
//   node scripts/import-measures.mjs [cruise.json]
// Without an argument it runs the cruise itself (spec files included, since they import too).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const input = process.argv[2];
const json = input
  ? readFileSync(input, 'utf8')
  : execFileSync('npx', ['depcruise', 'src', '--no-config', '--ts-pre-compilation-deps', '--ts-config', 'tsconfig.json', '-T', 'json'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
const cruise = JSON.parse(json);

const feature = (path) => {
  const m = /^src\/modules\/([^/]+?)(?:\.ts)?(?:\/|$)/.exec(path);
  return m ? m[1] : null;
};
const edges = cruise.modules.flatMap((m) =>
  m.dependencies.filter((d) => d.resolved.startsWith('src/')).map((d) => ({ from: m.source, to: d.resolved, circular: d.circular })),
);

const arrows = new Set();
const folders = new Set();
let entityAcross = 0;
let databaseUp = 0;
let authorizationUp = 0;
let commonUp = 0;
for (const { from, to } of edges) {
  const a = feature(from);
  const b = feature(to);
  if (a) folders.add(a);
  if (b) folders.add(b);
  if (a && b && a !== b) arrows.add(`${a} -> ${b}`);
  if (to.endsWith('.entity.ts') && b && a !== b) entityAcross++;
  if (from.startsWith('src/database/') && b) databaseUp++;
  if (from.startsWith('src/authorization/') && b) authorizationUp++;
  if (from.startsWith('src/common/') && (b || to.startsWith('src/database/'))) commonUp++;
}
const cycles = new Set(edges.filter((e) => e.circular).map((e) => e.from));

console.log(`imports between module folders: ${arrows.size} arrows over ${folders.size} folders`);
console.log(`imports of another module's *.entity.ts: ${entityAcross}`);
console.log(`src/database -> src/modules imports: ${databaseUp}`);
console.log(`src/authorization -> src/modules imports: ${authorizationUp}`);
console.log(`src/common -> src/database or src/modules imports: ${commonUp}`);
console.log(`files on an import cycle: ${cycles.size}${cycles.size ? ' (' + [...cycles].sort().join(', ') + ')' : ''}`);
