import { fileURLToPath, pathToFileURL } from 'node:url';
import { specsOfGroup } from './groups.mjs';

/**
 * Imports the spec files of the group whose test file is `groupUrl`, one after another: each
 * registers its describe blocks (with their own beforeAll/afterAll, their own apps and databases)
 * and Jest runs them in this order, with the modules they share loaded once (test/groups/groups.mjs).
 */
export async function runGroup(groupUrl: string): Promise<void> {
  for (const spec of specsOfGroup(fileURLToPath(groupUrl))) await import(pathToFileURL(spec).href);
}
