import { AppError, BadRequestError, ConflictError, PayloadTooLargeError, ValidationError } from '../../common/errors/errors.js';

/**
 * SCIM 2.0 on the wire (RFC 7643/7644; docs/identity.md, "SCIM provisioning"): the base path, the
 * media type and schema URNs, and the error body every failure under /scim/v2 is written as,
 * whatever raised it (the guard's 401/403, a body the parser refused, a service's 404 or 409).
 */
export const SCIM_BASE = '/scim/v2';
export const SCIM_MEDIA_TYPE = 'application/scim+json';
export const SCIM_CONTENT_TYPE = `${SCIM_MEDIA_TYPE}; charset=utf-8`;

export const SCIM_SCHEMA = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  enterpriseUser: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

/** Whether a request path is a SCIM one (its errors are SCIM error bodies, its bodies JSON only). */
export function isScimPath(path: string): boolean {
  const p = path.split('?')[0].toLowerCase();
  return p === SCIM_BASE || p.startsWith(`${SCIM_BASE}/`);
}

/** The `scimType` values of RFC 7644 §3.12 the service answers. */
export type ScimType =
  'invalidFilter' | 'tooMany' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue' | 'invalidVers' | 'sensitive';

const TITLES: Record<number, string> = {
  400: 'The request is not valid',
  404: 'The resource was not found',
  409: 'The request conflicts with the current state',
  412: 'The resource changed since it was read',
  501: 'Not implemented',
};

/** An error a SCIM route raises itself, with the `scimType` the client acts on. */
export class ScimError extends AppError {
  readonly code: string;
  readonly title: string;
  constructor(
    readonly status: number,
    readonly scimType: ScimType | null,
    detail: string,
  ) {
    super(detail);
    this.code = scimType ? `scim-${scimType}` : `scim-${status}`;
    this.title = TITLES[status] ?? 'The request failed';
  }
}

/** The `scimType` of any error: its own, or what the service's typed errors mean in SCIM. */
export function scimTypeOf(error: AppError): ScimType | null {
  if (error instanceof ScimError) return error.scimType;
  if (error instanceof ConflictError && /^duplicate/.test(error.code)) return 'uniqueness';
  if (error instanceof ValidationError) return 'invalidValue';
  if (error instanceof BadRequestError) return 'invalidSyntax';
  if (error instanceof PayloadTooLargeError) return 'invalidSyntax';
  return null;
}

/** The SCIM error body (RFC 7644 §3.12): the status as a string, the scimType where one applies, the detail. */
export function scimErrorBody(error: AppError): Record<string, unknown> {
  const scimType = scimTypeOf(error);
  return {
    schemas: [SCIM_SCHEMA.error],
    status: String(error.status),
    ...(scimType ? { scimType } : {}),
    detail: error.detail ?? error.title,
  };
}
