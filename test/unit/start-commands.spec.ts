import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * The service is started with the same node options wherever it is deployed (docs/operations.md,
 * "Node's garbage collector"): `npm start`, the image's command and the Kubernetes deployment. The
 * benchmarks and the cluster script read `npm start`'s options, so what is measured is what runs.
 */
const read = (path: string) => readFileSync(join(process.cwd(), path), 'utf8');
const flagsOf = (words: string[]) => words.filter((w) => w.startsWith('--'));

/** The words of an npm script. */
const npmScript = (name: string): string[] => (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts[name].split(/\s+/);

function npmStart(name: string): string[] {
  const words = npmScript(name);
  expect(words.at(-1)).toBe('dist/src/main.js');
  return flagsOf(words);
}

function imageCommand(): string[] {
  const cmd = read('Dockerfile')
    .split('\n')
    .find((line) => line.startsWith('CMD '))!;
  // The exec form: node itself is the container's process, which gets SIGTERM (docs/operations.md, "Probes").
  const words = JSON.parse(cmd.slice('CMD '.length)) as string[];
  expect([words[0], words.at(-1)]).toEqual(['node', 'dist/src/main.js']);
  return flagsOf(words);
}

function deploymentCommand(): string[] {
  const [deployment] = parseAllDocuments(read('deploy/k8s/base/deployment.yaml')).map(
    (d) => d.toJS() as { spec: { template: { spec: { containers: { name: string; command: string[] }[] } } } },
  );
  const api = deployment.spec.template.spec.containers.find((c) => c.name === 'api')!;
  expect(api.command.at(-1)).toBe('dist/src/main.js');
  return flagsOf(api.command);
}

/** The `NAME=value` words in front of an npm script's command. */
function npmEnv(name: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const w of npmScript(name)) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(w);
    if (!m) break;
    env[m[1]] = m[2];
  }
  return env;
}

/** The image's `ENV` settings (one instruction, continued over lines). */
function imageEnv(): Record<string, string> {
  const text = read('Dockerfile').replace(/\\\n\s*/g, ' ');
  const line = text.split('\n').find((l) => l.startsWith('ENV '))!;
  return Object.fromEntries(
    line
      .slice('ENV '.length)
      .trim()
      .split(/\s+/)
      .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
  );
}

function deploymentEnv(): Record<string, string> {
  const [deployment] = parseAllDocuments(read('deploy/k8s/base/deployment.yaml')).map(
    (d) => d.toJS() as { spec: { template: { spec: { containers: { name: string; env: { name: string; value?: string }[] }[] } } } },
  );
  const api = deployment.spec.template.spec.containers.find((c) => c.name === 'api')!;
  return Object.fromEntries(api.env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));
}

describe('the service start commands', () => {
  it('have glibc give freed blocks of 128 KiB or more back to the system, in start:prod, the image and the Kubernetes deployment', () => {
    // docs/operations.md, "Memory given back": an import's peak about 50 MB lower at the same pace.
    expect(npmEnv('start:prod')).toEqual({ MALLOC_MMAP_THRESHOLD_: '131072' });
    expect(imageEnv().MALLOC_MMAP_THRESHOLD_).toBe('131072');
    expect(deploymentEnv().MALLOC_MMAP_THRESHOLD_).toBe('131072');
    // npm start stays one portable command (a Windows shell has no NAME=value prefix).
    expect(npmEnv('start')).toEqual({});
  });

  it('size the young generation for a server: 64 MB semi-spaces from the start', () => {
    expect(npmStart('start')).toEqual(expect.arrayContaining(['--min-semi-space-size=64', '--max-semi-space-size=64']));
  });

  it('let the old generation grow by half its live size between full collections, not up to four times', () => {
    expect(npmStart('start')).toContain('--heap-growing-percent=50');
  });

  it('collect garbage on the main thread alone: the service is given one CPU', () => {
    expect(npmStart('start')).toContain('--single-threaded-gc');
  });

  it('carry the same node options in npm start, start:prod, the image and the Kubernetes deployment', () => {
    const flags = npmStart('start');
    expect(npmStart('start:prod')).toEqual(flags);
    expect(imageCommand()).toEqual(flags);
    expect(deploymentCommand()).toEqual(flags);
  });
});
