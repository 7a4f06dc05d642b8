import type { Declaration } from '../src/database/statements.js';

/** Where the snapshot is kept, from the repository's root. */
export const SNAPSHOT: string;
/** The files under `dir` ending in `ext` that may declare statements (they import the API). */
export function declaringFiles(dir: string, ext: string): string[];
/** The snapshot of these declarations. */
export function render(declarations: readonly Declaration[]): string;
