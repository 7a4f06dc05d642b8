#!/usr/bin/env node
// Compiles the service (tsc -p tsconfig.build.json into dist/) only when what it is built from
// changed since the last build that succeeded (README "Two commands", docs/operations.md "Fast start").
//
//   node scripts/build-if-changed.mjs           `npm run build`, `npm start`'s prestart, `npm run migrate`, `npm run seed:demo`
//   node scripts/build-if-changed.mjs --force   compile whatever the stamp says
//   node scripts/build-if-changed.mjs --check   compile nothing: exit 0 when dist/ is up to date, 1 (saying why) when not
//
// What a build is made of: every file under src/, ormconfig.ts, tsconfig*.json, package.json,
// package-lock.json and the installed tree (node_modules/.package-lock.json). Their SHA-256 goes into
// dist/.build-stamp.json, written only after tsc succeeded, with a fingerprint (size and mtime) of every
// file that build emitted. The next run skips tsc when both still match: any change of an input, a
// failed or interrupted build (the stamp is removed before tsc starts), or another tsc writing the same
// files (the process test's, the benchmarks') compiles again. Sources changed while tsc ran: no stamp.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = process.cwd();
const OUT = 'dist';
const STAMP = join(OUT, '.build-stamp.json');
/** Bumped when what the stamp means changes: an older stamp then never counts. */
const STAMP_VERSION = 1;

/** Every file under a directory, as paths relative to ROOT with forward slashes, sorted. */
function walk(dir) {
  const out = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...walk(path));
    else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}

function inputFiles() {
  const top = readdirSync(ROOT).filter((f) => /^tsconfig.*\.json$/.test(f) || ['ormconfig.ts', 'package.json', 'package-lock.json'].includes(f));
  const installed = existsSync(join(ROOT, 'node_modules/.package-lock.json')) ? ['node_modules/.package-lock.json'] : [];
  return [...walk('src'), ...top.sort(), ...installed];
}

/** SHA-256 over every input's path and content. */
function inputsHash() {
  const hash = createHash('sha256');
  for (const file of inputFiles()) {
    hash.update(file + '\0');
    hash.update(
      createHash('sha256')
        .update(readFileSync(join(ROOT, file)))
        .digest(),
    );
  }
  return hash.digest('hex');
}

/**
 * What tsc emits for the build's sources (tsconfig.build.json: src/**, ormconfig.ts; not the specs,
 * the features' test cases nor src/testing/): .js and .js.map each.
 */
function expectedOutputs() {
  const sources = [...walk('src'), ...(existsSync(join(ROOT, 'ormconfig.ts')) ? ['ormconfig.ts'] : [])].filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.endsWith('.spec.ts') && !f.endsWith('.cases.ts') && !f.startsWith('src/testing/'),
  );
  return sources.flatMap((f) => [`${OUT}/${f.slice(0, -3)}.js`, `${OUT}/${f.slice(0, -3)}.js.map`]);
}

/** Size and mtime of every file the build emits; null when one is missing. */
function outputsFingerprint() {
  const hash = createHash('sha256');
  for (const file of expectedOutputs()) {
    let st;
    try {
      st = statSync(join(ROOT, file));
    } catch {
      return null;
    }
    hash.update(`${file}\0${st.size}\0${st.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

function readStamp() {
  try {
    const stamp = JSON.parse(readFileSync(join(ROOT, STAMP), 'utf8'));
    return stamp?.version === STAMP_VERSION ? stamp : null;
  } catch {
    return null;
  }
}

const force = process.argv.includes('--force');
const inputs = inputsHash();
const stamp = readStamp();
const outputs = stamp ? outputsFingerprint() : null;
if (!force && stamp && stamp.inputs === inputs && outputs !== null && stamp.outputs === outputs) process.exit(0);

const why = force
  ? '--force'
  : !stamp
    ? 'no build of these sources yet'
    : stamp.inputs !== inputs
      ? 'the sources changed since the last build'
      : 'dist/ changed since the last build';
if (process.argv.includes('--check')) {
  process.stderr.write(`pms-api build: dist/ is not up to date (${why})\n`);
  process.exit(1);
}
process.stderr.write(`pms-api build: compiling TypeScript into dist/ (${why}) …\n`);
rmSync(join(ROOT, STAMP), { force: true });
const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
if (tsc.status !== 0) {
  process.stderr.write(`pms-api build: tsc failed (${tsc.signal ?? `exit code ${tsc.status}`}); dist/ is not marked as built\n`);
  process.exit(tsc.status || 1);
}
// A source saved while tsc ran may or may not be in dist/: leave no stamp, so the next run compiles.
if (inputsHash() !== inputs) {
  process.stderr.write('pms-api build: the sources changed while compiling; the next start compiles again\n');
  process.exit(0);
}
const fingerprint = outputsFingerprint();
if (fingerprint === null) {
  process.stderr.write('pms-api build: tsc left a source without its output in dist/; not marked as built\n');
  process.exit(0);
}
const tmp = `${join(ROOT, STAMP)}.${process.pid}`;
writeFileSync(tmp, JSON.stringify({ version: STAMP_VERSION, inputs, outputs: fingerprint }) + '\n');
renameSync(tmp, join(ROOT, STAMP));
