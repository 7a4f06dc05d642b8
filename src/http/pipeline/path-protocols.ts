import type { AppError } from '../../common/errors/errors.js';

/**
 * A protocol of its own served under a path prefix beside the /v4 API (SCIM 2.0 at /scim/v2): how
 * request bodies are read there and how errors are answered. The pipeline knows no such protocol
 * by name; the feature that serves one registers it when its module starts
 * (docs/architecture.md, "A feature declares itself"), and the body parser and every error answer
 * (the filter's, the deadline's, the fallback's) ask `pathProtocolOf` for the request's path.
 */
export interface PathProtocol {
  /** Where it is served, e.g. `/scim/v2` (the prefix itself and everything below it). */
  prefix: string;
  /** How a request body of this media type (lower case, parameters dropped; empty when none was sent) is read, or null when the protocol refuses it (415). */
  bodyFormat(mediaType: string): 'json' | null;
  /** The detail of that 415. */
  unsupportedMediaType: string;
  /** An error as the protocol answers it. */
  errorAnswer(error: AppError): { body: string; contentType: string };
}

/** The protocols of this process, by prefix (one per feature; every app of the process serves the same). */
const protocols = new Map<string, PathProtocol>();

export function servePathProtocol(protocol: PathProtocol): void {
  protocols.set(protocol.prefix.toLowerCase(), protocol);
}

/** The protocol a request path is served by, or undefined for the /v4 API's own. */
export function pathProtocolOf(path: string): PathProtocol | undefined {
  if (protocols.size === 0) return undefined;
  const p = path.split('?')[0].toLowerCase();
  for (const [prefix, protocol] of protocols) if (p === prefix || p.startsWith(`${prefix}/`)) return protocol;
  return undefined;
}
