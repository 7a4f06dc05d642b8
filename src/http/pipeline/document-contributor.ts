import { SetMetadata } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * A feature's own part of the OpenAPI document (docs/openapi.md): the operations of a protocol it
 * serves itself (SCIM), or what the document says beside the operations (the webhooks' events).
 * A provider of the feature's module marked `@ContributesToDocument()` implements it; the document
 * builder (src/openapi) finds every such provider at start-up, so it names no feature.
 */
export const DOCUMENT_CONTRIBUTOR = 'pms:document-contributor';

/** An operation of the document as a contributor sees it. */
export interface DocumentRoute {
  method: 'get' | 'put' | 'patch' | 'post' | 'delete';
  /** The OpenAPI path template, e.g. `/scim/v2/Users/{id}`. */
  path: string;
}

export interface DocumentContribution {
  /** The operations this feature completes itself; the generic refinement leaves them alone. */
  claims?(path: string): boolean;
  /** Completes the claimed operations (before the document is turned into OpenAPI 3.1). */
  refineOperations?(document: OpenAPIObject, routes: DocumentRoute[]): void;
  /** Adds to the finished document (e.g. its `webhooks`). */
  complete?(document: OpenAPIObject): void;
}

/** Marks a provider as a DocumentContribution. */
export const ContributesToDocument = (): ClassDecorator => SetMetadata(DOCUMENT_CONTRIBUTOR, true);
