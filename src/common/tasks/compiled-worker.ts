import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The compiled worker script `file` next to the module at `moduleUrl` (its `import.meta.url`), or
 * null where there is none: the TypeScript sources under test run in-process instead (the start's
 * migrations, an import's whole-file parse).
 */
export function compiledWorker(file: string, moduleUrl: string): URL | null {
  const url = new URL(file, moduleUrl);
  return url.protocol === 'file:' && moduleUrl.endsWith('.js') && existsSync(fileURLToPath(url)) ? url : null;
}
