import { applyDecorators, Delete, Get, HttpCode, Patch, Post, Put, SetMetadata } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { IdempotentWrite } from '../../http/pipeline/route-stages.js';
import type { AccessRule, RouteDoc } from '../../http/pipeline/routes.js';
import { WIRE_RESULT, type WireResultMeta } from '../../http/wire/wire.js';

/** What a SCIM operation answers on success (RFC 7644 §3.3, §3.6): 201 for a create (POST), 204 for a delete, else 200. */
const SCIM_SUCCESS = { get: 200, post: 201, put: 200, patch: 200, delete: 204 } as const;

/**
 * A SCIM route (docs/identity.md, "SCIM provisioning"), under /scim/v2: JSON only, answered as
 * the handler wrote it (a RawBody with its ETag and Location), with the status of its method on
 * success (SCIM_SUCCESS). Its OpenAPI operation — the SCIM media type, schemas and error bodies —
 * is completed by scim-openapi.ts.
 */
export const ScimRoute = (access: AccessRule, method: keyof typeof SCIM_SUCCESS, path: string, doc: RouteDoc): MethodDecorator => {
  const verb = { get: Get, post: Post, put: Put, patch: Patch, delete: Delete }[method];
  return applyDecorators(
    ...(method === 'post' || method === 'put' || method === 'patch' ? [IdempotentWrite()] : []),
    SetMetadata(WIRE_RESULT, { type: null, collection: false, root: 'scim' } satisfies WireResultMeta),
    HttpCode(SCIM_SUCCESS[method]),
    ApiOperation(doc),
    access(),
    verb(path),
  );
};
