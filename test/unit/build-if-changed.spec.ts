import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm start`, `npm run build`, `npm run migrate` and `npm run seed:demo` compile only when what the
 * service is built from changed (scripts/build-if-changed.mjs, docs/operations.md "Fast start"). Run
 * here on a small project of the same layout with the real tsc: an unchanged tree is not compiled
 * again (dist/ is not rewritten), every kind of input change compiles, and a failed build or a dist/
 * written by another compiler is never taken for a fresh one.
 */
const SCRIPT = join(process.cwd(), 'scripts/build-if-changed.mjs');
let root: string;

const write = (path: string, text: string) => {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
};
const mtime = (path: string) => statSync(join(root, path)).mtimeMs;

/** Runs the script in the project; answers whether it compiled, and how it ended. */
function build(...args: string[]): { compiled: boolean; status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: root, encoding: 'utf8' });
  return { compiled: r.stderr.includes('compiling TypeScript into dist/'), status: r.status, stderr: r.stderr + r.stdout };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'pms-build-if-changed-'));
  symlinkSync(join(process.cwd(), 'node_modules'), join(root, 'node_modules'), 'dir');
  write('package.json', JSON.stringify({ name: 'demo', type: 'module' }));
  write('package-lock.json', JSON.stringify({ name: 'demo', lockfileVersion: 3 }));
  write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        types: [],
        outDir: 'dist',
        rootDir: '.',
        sourceMap: true,
      },
      include: ['src/**/*.ts'],
    }),
  );
  write('tsconfig.build.json', JSON.stringify({ extends: './tsconfig.json', exclude: ['**/*.spec.ts'] }));
  write('src/main.ts', "import { two } from './lib/two.js';\nexport const answer: number = two * 21;\n");
  write('src/lib/two.ts', 'export const two = 2;\n');
  write('src/main.spec.ts', 'export {};\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('scripts/build-if-changed.mjs', () => {
  it('compiles the first time, then not again while nothing changed: dist/ is left as it is', () => {
    const first = build();
    expect(first).toMatchObject({ compiled: true, status: 0 });
    expect(first.stderr).toContain('(no build of these sources yet)');
    expect(existsSync(join(root, 'dist/src/main.js'))).toBe(true);
    const before = [mtime('dist/src/main.js'), mtime('dist/src/lib/two.js'), mtime('dist/.build-stamp.json')];
    // Saving a file unchanged (a new mtime, the same bytes) is no change.
    writeFileSync(join(root, 'src/main.ts'), "import { two } from './lib/two.js';\nexport const answer: number = two * 21;\n");
    expect(build()).toEqual({ compiled: false, status: 0, stderr: '' });
    expect([mtime('dist/src/main.js'), mtime('dist/src/lib/two.js'), mtime('dist/.build-stamp.json')]).toEqual(before);
  }, 60_000);

  // Each input's change is seen (--check compiles nothing), and undoing it is seen as no change.
  it.each([
    ['a source under src/', 'src/lib/two.ts', (t: string) => t + '// changed\n'],
    ['a spec under src/', 'src/main.spec.ts', (t: string) => t + '// changed\n'],
    ['tsconfig.json', 'tsconfig.json', (t: string) => t.replace('"ES2022"', '"ES2023"')],
    ['tsconfig.build.json', 'tsconfig.build.json', (t: string) => t.replace(']', ',"nothing"]')],
    ['package.json', 'package.json', (t: string) => t.replace('}', ',"version":"1.0.1"}')],
    ['package-lock.json', 'package-lock.json', (t: string) => t.replace('}', ',"packages":{}}')],
  ])('sees a change of %s', (_what, path, change) => {
    const text = readFileSync(join(root, path), 'utf8');
    expect(build('--check')).toEqual({ compiled: false, status: 0, stderr: '' });
    write(path, change(text));
    expect(build('--check')).toEqual({
      compiled: false,
      status: 1,
      stderr: 'pms-api build: dist/ is not up to date (the sources changed since the last build)\n',
    });
    write(path, text);
    expect(build('--check')).toMatchObject({ status: 0 });
  });

  it('sees a new file under src/, and compiles it', () => {
    write('src/lib/three.ts', 'export const three = 3;\n');
    expect(build('--check').status).toBe(1);
    expect(build()).toMatchObject({ compiled: true, status: 0 });
    expect(existsSync(join(root, 'dist/src/lib/three.js'))).toBe(true);
    expect(build()).toMatchObject({ compiled: false, status: 0 });
  }, 60_000);

  it('never takes a failed build for a fresh one: no stamp after tsc fails, so the next run compiles again', () => {
    // tsc emits the JavaScript of a file with a type error, and exits non-zero.
    write('src/lib/two.ts', "export const two: number = 'two';\n");
    const failed = build();
    expect(failed).toMatchObject({ compiled: true, status: 2 });
    expect(failed.stderr).toContain('dist/ is not marked as built');
    expect(existsSync(join(root, 'dist/.build-stamp.json'))).toBe(false);
    expect(build('--check')).toMatchObject({ status: 1, stderr: expect.stringContaining('(no build of these sources yet)') });
    write('src/lib/two.ts', 'export const two = 2;\n');
    expect(build()).toMatchObject({ compiled: true, status: 0 });
    expect(build().compiled).toBe(false);
  }, 60_000);

  it('sees another compiler rewrite or remove what the last build emitted', () => {
    expect(build('--check').status).toBe(0);
    const emitted = readFileSync(join(root, 'dist/src/main.js'));
    writeFileSync(join(root, 'dist/src/main.js'), 'export const answer = 0;\n');
    expect(build('--check')).toMatchObject({ status: 1, stderr: expect.stringContaining('(dist/ changed since the last build)') });
    writeFileSync(join(root, 'dist/src/main.js'), emitted);
    rmSync(join(root, 'dist/src/lib/two.js'));
    expect(build('--check')).toMatchObject({ status: 1, stderr: expect.stringContaining('(dist/ changed since the last build)') });
  });
});
