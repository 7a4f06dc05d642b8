/**
 * Routes whose request body is a file read by the handler itself, as a stream (docs/imports.md):
 * the body parsers leave such a request's body unread, whatever its media type, and the handler
 * reads, limits and stores it. A route registers its path with its decorator, as the bulk routes
 * register theirs (bulk.ts).
 */
const filePaths = new Set<string>();

/** Registers `POST {path}` (`/v4/imports`) as a route that reads its body as a file. */
export function registerFileBodyPath(path: string): void {
  filePaths.add(path.toLowerCase());
}

export function isFileBodyPath(path: string): boolean {
  return filePaths.size > 0 && filePaths.has(path.toLowerCase().replace(/\/+$/, ''));
}
