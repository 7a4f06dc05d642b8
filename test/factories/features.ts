import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FeatureCases, KindCase, PatchCase, RouteCase, SetupStep } from '../../src/testing/cases.js';

/**
 * The test cases the features declare next to themselves (src/testing/cases.ts), collected: every
 * `<folder>/<name>.cases.ts` under a root, found on disk — no file lists the features. The app's
 * are under src/modules; a test adds others (test/fixtures) with `joinFeatures`.
 */
export interface Features {
  /** The cases files, from the project root. */
  files: readonly string[];
  kinds: Readonly<Record<string, KindCase>>;
  steps: readonly SetupStep[];
  routes: Readonly<Record<string, RouteCase>>;
  patches: readonly PatchCase[];
  /** The cases file that declares each route, kind and PATCH row, by its key. */
  origin: Readonly<Record<string, string>>;
}

const PROJECT = fileURLToPath(new URL('../../', import.meta.url));

/** Every cases file of the folders under `root` (from the project root, e.g. `src/modules`), in folder order. */
export async function findFeatures(root: string): Promise<Features> {
  const files: string[] = [];
  for (const folder of readdirSync(join(PROJECT, root), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()) {
    for (const name of readdirSync(join(PROJECT, root, folder))
      .filter((n) => n.endsWith('.cases.ts'))
      .sort())
      files.push(`${root}/${folder}/${name}`);
  }
  const found: Features[] = [];
  // One at a time: jest's ESM loader fails modules linked by concurrent imports ("not in cache").
  for (const file of files) found.push(featuresOf(file, ((await import(join(PROJECT, file))) as { default: FeatureCases }).default));
  return joinFeatures(...found);
}

function featuresOf(file: string, c: FeatureCases): Features {
  const origin: Record<string, string> = {};
  for (const key of [...Object.keys(c.kinds ?? {}), ...Object.keys(c.routes), ...(c.patches ?? []).map((p) => `row ${p.route}`)]) origin[key] = file;
  return { files: [file], kinds: (c.kinds ?? {}) as Record<string, KindCase>, steps: c.steps ?? [], routes: c.routes, patches: c.patches ?? [], origin };
}

/** The features of several sets together; a route, kind or PATCH row declared twice throws, naming both files. */
export function joinFeatures(...sets: Features[]): Features {
  const origin: Record<string, string> = {};
  for (const set of sets)
    for (const [key, file] of Object.entries(set.origin)) {
      if (origin[key]) throw new Error(`${key} is declared by ${origin[key]} and by ${file}`);
      origin[key] = file;
    }
  return {
    files: sets.flatMap((s) => s.files),
    kinds: Object.assign({}, ...sets.map((s) => s.kinds)),
    steps: sets.flatMap((s) => s.steps),
    routes: Object.assign({}, ...sets.map((s) => s.routes)),
    patches: sets.flatMap((s) => s.patches),
    origin,
  };
}

/** The features of the app: src/modules/<feature>/<feature>.cases.ts. */
export const FEATURES = await findFeatures('src/modules');
