import { RawBody } from './wire-writer.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { WireCodec } from '../wire/codec.js';
import { negotiate } from './negotiation.js';
import { JsonLogger } from '../../common/logging/json-logger.js';
import { CONTEXT_KEY, RequestContext } from '../../common/context/request-context.js';
import {
  AppError,
  BadRequestError,
  ConflictError,
  InternalError,
  MethodNotAllowedError,
  PayloadTooLargeError,
  PROBLEM_BASE,
  ProblemDetails,
  RouteNotFoundError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
} from '../../common/errors/errors.js';
import { APP_LOGGER } from '../../common/logging/logger.token.js';
import { RouteIndex } from './route-index.js';
import { dbErrorCode, isDatabaseUnavailable, isForeignKeyViolation, isUniqueViolation } from '../../common/errors/db-errors.js';
import { pathProtocolOf } from './path-protocols.js';

/**
 * Translates anything thrown into a typed AppError. Unknown errors become a generic 500 whose
 * body says nothing of the cause (no stack, no SQL); the cause is logged with the request id.
 */
export function toAppError(e: unknown): { error: AppError; unexpected: boolean } {
  if (e instanceof AppError) return { error: e, unexpected: false };
  if (e instanceof HttpException) {
    const status = e.getStatus();
    if (status === 404) return { error: new RouteNotFoundError('No resource lives at this path'), unexpected: false };
    if (status === 405) return { error: new MethodNotAllowedError('This method', []), unexpected: false };
    if (status === 413) return { error: new PayloadTooLargeError('The request body is larger than 1 MiB'), unexpected: false };
    if (status === 415) return { error: new UnsupportedMediaTypeError('Use application/json, text/json, application/xml or text/xml'), unexpected: false };
    if (status >= 400 && status < 500) return { error: new BadRequestError(e.message), unexpected: false };
    return { error: new InternalError('The request could not be completed'), unexpected: true };
  }
  if (isDatabaseUnavailable(e)) return { error: new ServiceUnavailableError(), unexpected: true };
  if (isUniqueViolation(e)) return { error: new ConflictError('A record with the same unique value already exists', 'duplicate'), unexpected: true };
  if (isForeignKeyViolation(e))
    return {
      error: new ConflictError('A record this request refers to was removed, or another record still refers to this one', 'reference'),
      unexpected: true,
    };
  return { error: new InternalError('The request could not be completed'), unexpected: true };
}

export function problemOf(error: AppError, requestId?: string, instance?: string): ProblemDetails {
  const p: ProblemDetails = { type: PROBLEM_BASE + error.code, title: error.title, status: error.status };
  if (error.detail) p.detail = error.detail;
  if (instance) p.instance = instance;
  if (requestId) p.requestId = requestId;
  const errors = (error as { errors?: ProblemDetails['errors'] }).errors;
  if (errors) p.errors = errors;
  return p;
}

/**
 * Writes an error as problem details straight on Node's response, for the answers given outside
 * Nest's pipeline (the request deadline, a body refused at shutdown, a path no route took): the
 * same body, type and headers the filter writes.
 */
export function writeProblem(req: IncomingMessage & Record<string, unknown>, res: ServerResponse, error: AppError, codec: WireCodec): void {
  const path = String(req.originalUrl ?? req.url ?? '').split('?')[0];
  const { body, contentType } = errorAnswer(error, path, req.headers.accept, req.__pmsRequestId as string | undefined, codec);
  res.statusCode = error.status;
  for (const [k, v] of Object.entries(error.headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * The body and Content-Type of an error answer: as the protocol served under the path answers it
 * (path-protocols.ts: a SCIM error under /scim/v2), otherwise problem details in the negotiated format.
 */
function errorAnswer(error: AppError, path: string, accept: string | undefined, requestId: string | undefined, codec: WireCodec) {
  const protocol = pathProtocolOf(path);
  if (protocol) return protocol.errorAnswer(error);
  const neg = negotiate(accept);
  return { body: codec.encodeProblem(problemOf(error, requestId, path), neg.format), contentType: `application/problem+${neg.format}; charset=utf-8` };
}

/** The one global filter: every error leaves as RFC 9457 problem details, JSON or XML. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly codec: WireCodec,
    @Inject(APP_LOGGER) private readonly logger: JsonLogger,
    private readonly routes: RouteIndex,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Record<string, unknown> & { headers: Record<string, string | undefined> }>();
    const res = http.getResponse();
    const adapter = this.adapterHost.httpAdapter;
    const path = String(adapter.getRequestUrl(req) ?? '').split('?')[0];
    let { error, unexpected } = toAppError(exception);
    if (error instanceof RouteNotFoundError) {
      const allowed = this.routes.allowedMethods(path);
      if (allowed.length > 0) ({ error, unexpected } = { error: new MethodNotAllowedError(String(req.method ?? ''), allowed), unexpected: false });
    }
    const ctx = req[CONTEXT_KEY] as RequestContext | undefined;
    const requestId = ctx?.requestId ?? (req.__pmsRequestId as string | undefined);
    if (unexpected) {
      const e = exception as Error;
      this.logger.event(error.status >= 500 && error.status !== 503 ? 'error' : 'warn', 'ProblemFilter', {
        requestId,
        msg: `${error.status} ${error.code}: ${e?.message ?? String(exception)}`,
        errorName: e?.name,
        errorCode: dbErrorCode(exception),
        stack: e?.stack,
      });
    }
    // Already answered (the request deadline, or a body refused at shutdown): nothing to add.
    if (res.headersSent || res.writableEnded || res.destroyed) return;
    const { body, contentType } = errorAnswer(error, path, req.headers?.accept, requestId, this.codec);
    // Text already written: the adapter sends it as it is (not as a route's answer).
    adapter.reply(res, new RawBody(body, contentType, error.headers), error.status);
  }
}
