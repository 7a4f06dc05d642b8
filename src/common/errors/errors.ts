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

export class ValidationError extends AppError {
  readonly status = 400;
  readonly code = 'validation-failed';
  readonly title = 'The request is not valid';
  constructor(
    readonly errors: FieldError[],
    detail?: string,
  ) {
    super(detail ?? (errors.length === 1 ? `${errors[0].field}: ${errors[0].message}` : `${errors.length} fields are not valid`));
  }
}

/** A request that cannot be read at all (malformed JSON/XML, forbidden XML constructs). */
export class BadRequestError extends AppError {
  readonly status = 400;
  readonly title = 'The request cannot be read';
  constructor(
    detail: string,
    readonly code = 'bad-request',
  ) {
    super(detail);
  }
}

export class UnauthorizedError extends AppError {
  readonly status = 401;
  readonly code = 'unauthorized';
  readonly title = 'Authentication is required';
  constructor(detail = 'A valid bearer token is required') {
    super(detail);
    this.headers['WWW-Authenticate'] = 'Bearer realm="pms-api"';
  }
}

export class InvalidCredentialsError extends AppError {
  readonly status = 401;
  readonly code = 'invalid-credentials';
  readonly title = 'The user name or password is not correct';
}

export class ForbiddenError extends AppError {
  readonly status = 403;
  readonly code: string = 'forbidden';
  readonly title: string = 'This operation is not allowed for the caller';
}

export class AdminRequiredError extends ForbiddenError {
  override readonly code = 'admin-required';
  override readonly title = 'This operation requires an administrator';
}

export class PmDisabledError extends ForbiddenError {
  override readonly code = 'pm-disabled';
  override readonly title = 'Performance management is disabled for this site';
}

export class NotFoundError extends AppError {
  readonly status = 404;
  readonly code = 'not-found';
  readonly title = 'The resource was not found';
  constructor(resource: string, id?: string | number) {
    super(id === undefined ? `${resource} was not found` : `${resource} ${id} was not found`);
  }
}

export class RouteNotFoundError extends AppError {
  readonly status = 404;
  readonly code = 'not-found';
  readonly title = 'The resource was not found';
}

export class MethodNotAllowedError extends AppError {
  readonly status = 405;
  readonly code = 'method-not-allowed';
  readonly title = 'The method is not allowed on this resource';
  constructor(method: string, allowed: string[]) {
    super(`${method} is not allowed here; allowed: ${allowed.join(', ')}`);
    this.headers['Allow'] = allowed.join(', ');
  }
}

export class ConflictError extends AppError {
  readonly status = 409;
  readonly title = 'The request conflicts with the current state';
  constructor(
    detail: string,
    readonly code = 'conflict',
  ) {
    super(detail);
  }
}

export class PreconditionFailedError extends AppError {
  readonly status = 412;
  readonly code = 'precondition-failed';
  readonly title = 'The record changed since it was read';
  constructor() {
    super('If-Match does not match the current ETag of the record; read it again and retry');
  }
}

export class PayloadTooLargeError extends AppError {
  readonly status = 413;
  readonly code = 'payload-too-large';
  readonly title = 'The request body is too large';
}

export class UnsupportedMediaTypeError extends AppError {
  readonly status = 415;
  readonly code = 'unsupported-media-type';
  readonly title = 'The request media type is not supported';
}

export class TooManyRequestsError extends AppError {
  readonly status = 429;
  readonly code = 'too-many-requests';
  readonly title = 'Too many requests';
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super(detail);
    this.headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

export class ServiceUnavailableError extends AppError {
  readonly status = 503;
  readonly code = 'service-unavailable';
  readonly title = 'The service is temporarily unavailable';
  constructor(detail = 'The database is not reachable; retry shortly', retryAfterSeconds = 5) {
    super(detail);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}

export class InternalError extends AppError {
  readonly status = 500;
  readonly code = 'internal-error';
  readonly title = 'An unexpected error occurred';
}

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
