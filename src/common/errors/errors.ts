/**
 * Typed errors with stable codes. Services throw these; the global ProblemFilter maps each to an
 * RFC 9457 problem answer (`type` = PROBLEM_BASE + code) in the negotiated format.
 */
export const PROBLEM_BASE = 'urn:pms:problem:';

export interface FieldError {
  field: string;
  message: string;
}

export abstract class AppError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  abstract readonly title: string;
  /** Extra response headers, e.g. Retry-After. */
  headers: Record<string, string> = {};
  constructor(readonly detail?: string) {
    super(detail);
    this.name = new.target.name;
  }
}

/**
 * The base of the errors of one answer: its HTTP status, stable code and title, stated once in
 * the class line (`class PayloadTooLargeError extends problemOf(413, 'payload-too-large', '…') {}`).
 */
export function problemOf(status: number, code: string, title: string) {
  abstract class Problem extends AppError {
    readonly status: number = status;
    readonly code: string = code;
    readonly title: string = title;
  }
  return Problem;
}

export class ValidationError extends problemOf(400, 'validation-failed', 'The request is not valid') {
  constructor(
    readonly errors: FieldError[],
    detail?: string,
  ) {
    super(detail ?? (errors.length === 1 ? `${errors[0].field}: ${errors[0].message}` : `${errors.length} fields are not valid`));
  }
}

/** A request that cannot be read at all (malformed JSON/XML, forbidden XML constructs). */
export class BadRequestError extends problemOf(400, 'bad-request', 'The request cannot be read') {
  constructor(
    detail: string,
    override readonly code = 'bad-request',
  ) {
    super(detail);
  }
}

export class UnauthorizedError extends problemOf(401, 'unauthorized', 'Authentication is required') {
  constructor(detail = 'A valid bearer token is required') {
    super(detail);
    this.headers['WWW-Authenticate'] = 'Bearer realm="pms-api"';
  }
}

export class InvalidCredentialsError extends problemOf(401, 'invalid-credentials', 'The user name or password is not correct') {}

export class ForbiddenError extends problemOf(403, 'forbidden', 'This operation is not allowed for the caller') {}

export class AdminRequiredError extends ForbiddenError {
  override readonly code = 'admin-required';
  override readonly title = 'This operation requires an administrator';
}

/** An API token without the scope a route needs (docs/identity.md, "Scopes"); `scope` names it. */
export class ScopeMissingError extends ForbiddenError {
  override readonly code = 'insufficient-scope';
  override readonly title = 'The API token lacks the scope this operation needs';
  constructor(
    readonly scope: string | null,
    /** What the scope is needed for, when it is not the route itself (a field of the body). */
    what?: string,
  ) {
    super(
      scope
        ? `The API token lacks the scope ${scope}${what ? ` needed to write ${what}` : ''}`
        : 'API tokens cannot manage credentials (API tokens, identity providers, sign-in)',
    );
    // RFC 6750 §3.1: the challenge names the missing scope.
    if (scope) this.headers['WWW-Authenticate'] = `Bearer realm="pms-api", error="insufficient_scope", scope="${scope}"`;
  }
}

export class PmDisabledError extends ForbiddenError {
  override readonly code = 'pm-disabled';
  override readonly title = 'Performance management is disabled for this site';
}

export class NotFoundError extends problemOf(404, 'not-found', 'The resource was not found') {
  constructor(resource: string, id?: string | number) {
    super(id === undefined ? `${resource} was not found` : `${resource} ${id} was not found`);
  }
}

export class RouteNotFoundError extends problemOf(404, 'not-found', 'The resource was not found') {}

export class MethodNotAllowedError extends problemOf(405, 'method-not-allowed', 'The method is not allowed on this resource') {
  constructor(method: string, allowed: string[]) {
    super(`${method} is not allowed here; allowed: ${allowed.join(', ')}`);
    this.headers['Allow'] = allowed.join(', ');
  }
}

export class ConflictError extends problemOf(409, 'conflict', 'The request conflicts with the current state') {
  constructor(
    detail: string,
    override readonly code = 'conflict',
  ) {
    super(detail);
  }
}

export class PreconditionFailedError extends problemOf(412, 'precondition-failed', 'The record changed since it was read') {
  constructor() {
    super('If-Match does not match the current ETag of the record; read it again and retry');
  }
}

export class PayloadTooLargeError extends problemOf(413, 'payload-too-large', 'The request body is too large') {}

/** An Accept the route cannot answer in any type it names (a list without exports asked only for CSV: docs/exports.md). */
export class NotAcceptableError extends problemOf(406, 'not-acceptable', 'The route cannot answer in the media type asked for') {}

export class UnsupportedMediaTypeError extends problemOf(415, 'unsupported-media-type', 'The request media type is not supported') {}

export class TooManyRequestsError extends problemOf(429, 'too-many-requests', 'Too many requests') {
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super(detail);
    this.headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

export class ServiceUnavailableError extends problemOf(503, 'service-unavailable', 'The service is temporarily unavailable') {
  constructor(detail = 'The database is not reachable; retry shortly', retryAfterSeconds = 5) {
    super(detail);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}

export class InternalError extends problemOf(500, 'internal-error', 'An unexpected error occurred') {}

/** The RFC 9457 body written for every error. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  requestId?: string;
  errors?: FieldError[];
}

/** A sync cursor or `updatedSince` instant older than the retained change log (docs/delta-sync.md). */
export class GoneError extends AppError {
  readonly status = 410;
  readonly code = 'sync-expired';
  readonly title = 'The change log no longer reaches back that far';
}
