import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { INestApplication } from '@nestjs/common';
import { WireCodec, XmlInputError } from '../wire/codec.js';
import { mediaTypeOf, requestFormat } from './negotiation.js';
import { pathProtocolOf } from './path-protocols.js';
import { writeProblem } from './problem.filter.js';
import type { IncomingMessage } from 'node:http';
import { AppError, BadRequestError, PayloadTooLargeError, RouteNotFoundError, UnsupportedMediaTypeError } from '../../common/errors/errors.js';
import type { TrustProxy } from '../../config/config.js';
import { isUtf8 } from 'node:buffer';
import { BodyLimitBreach, BodyLimits, BODY_LIMITS, charsetOf, checkJsonBody, checkXmlBody, isAcceptedCharset } from '../wire/body-limits.js';
import { BULK_BODY_BYTES, BULK_BODY_LIMITS, isBulkPath } from '../wire/bulk.js';
import { isFileBodyPath } from '../wire/file-body.js';

/**
 * The only Express-specific code: registering the body parsers. Parse failures are not answered
 * here; they are recorded on the request (BODY_ERROR) and thrown by the BodyGuard, so the one
 * global filter writes them like every other error. Swapping to Fastify replaces this file.
 */
export const BODY_ERROR = '__pmsBodyError';
export const MAX_BODY_BYTES = 1024 * 1024;

const FORM_PATHS = new Set(['/v4/auth/token']);

/**
 * The format of a request's body: by its media type and method (negotiation.ts), except under a
 * path served by a protocol of its own (path-protocols.ts: SCIM reads JSON only), which decides.
 */
function bodyFormat(req: Request): ReturnType<typeof requestFormat> {
  const protocol = protocolOf(req);
  if (!protocol) return requestFormat(req.headers['content-type'], req.method);
  return protocol.bodyFormat(mediaTypeOf(req.headers['content-type']));
}

const protocolOf = (req: Request) => pathProtocolOf(String(req.originalUrl ?? req.url ?? ''));

function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

function recordError(req: Request, err: AppError): void {
  (req as unknown as Record<string, unknown>)[BODY_ERROR] = err;
}

const breachError = (b: BodyLimitBreach) => new BadRequestError(b.detail, b.code);
const BREACH = 'entity.limit.breached';
const NOT_UTF8 = 'The body is not valid UTF-8';

/** Thrown from a parser's verify hook: the raw bytes, before they are decoded or parsed. */
function refuse(breach: BodyLimitBreach): never {
  throw Object.assign(new Error(breach.detail), { type: BREACH, breach });
}

/** Verify hook of every parser: the bytes must be UTF-8 (never replaced by U+FFFD), then the JSON limits. */
function verifyBytes(json: boolean, limits: BodyLimits = BODY_LIMITS) {
  return (_req: Request, _res: Response, buf: Buffer): void => {
    if (!isUtf8(buf)) refuse({ code: 'malformed-body', detail: NOT_UTF8 });
    if (json) {
      const breach = checkJsonBody(buf, limits);
      if (breach) refuse(breach);
    }
  };
}

function translate(err: { type?: string; status?: number; message?: string; breach?: BodyLimitBreach }, bulk = false): AppError {
  if (err.type === BREACH && err.breach) return breachError(err.breach);
  if (err.type === 'entity.too.large' || err.status === 413) return new PayloadTooLargeError(`The request body is larger than ${bulk ? '16 MiB' : '1 MiB'}`);
  if (err.type === 'entity.parse.failed') return new BadRequestError(`Malformed JSON: ${err.message ?? 'cannot be parsed'}`, 'malformed-body');
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') return new UnsupportedMediaTypeError(err.message ?? 'Unsupported encoding');
  return new BadRequestError(err.message ?? 'The body cannot be read', 'malformed-body');
}

/**
 * The request body parsers, as one middleware (registered on the Express application, and run by
 * the front door for the routes it dispatches): JSON, XML and the login's form.
 */
export function registerBodyParsers(app: INestApplication, codec: WireCodec): (req: Request, res: Response, next: NextFunction) => void {
  const instance = app.getHttpAdapter().getInstance() as express.Express;
  // Our own ETag (of the record, not of the bytes) is set by the WireWriter.
  instance.set('etag', false);
  instance.disable('x-powered-by');
  const json = express.json({
    type: (req) => bodyFormat(req as Request) === 'json',
    limit: MAX_BODY_BYTES,
    strict: true,
    verify: verifyBytes(true),
  });
  const text = express.text({
    type: (req) => requestFormat(req.headers['content-type'], req.method) === 'xml',
    limit: MAX_BODY_BYTES,
    defaultCharset: 'utf-8',
    verify: verifyBytes(false),
  });
  // The bulk routes (docs/bulk.md): up to 16 MiB and the scan limits of 1,000 items.
  const bulkJson = express.json({ type: () => true, limit: BULK_BODY_BYTES, strict: true, verify: verifyBytes(true, BULK_BODY_LIMITS) });
  const bulkText = express.text({ type: () => true, limit: BULK_BODY_BYTES, defaultCharset: 'utf-8', verify: verifyBytes(false) });
  const form = express.urlencoded({
    type: (req) => requestFormat(req.headers['content-type'], req.method) === 'form',
    limit: MAX_BODY_BYTES,
    extended: false,
    parameterLimit: 100,
    verify: verifyBytes(false),
  });

  const parse = (req: Request, res: Response, next: NextFunction): void => {
    if (!hasBody(req)) return next();
    // A file route reads its body itself, as a stream (file-body.ts: a file import).
    if (req.method === 'POST' && isFileBodyPath(req.path)) return next();
    const fmt = bodyFormat(req);
    const charset = charsetOf(req.headers['content-type']);
    if (fmt !== null && !isAcceptedCharset(charset)) {
      recordError(req, new UnsupportedMediaTypeError(`Request bodies must be UTF-8; charset "${charset}" is not accepted (send charset=utf-8 or none)`));
      req.resume();
      return next();
    }
    const bulk = req.method === 'POST' && isBulkPath(req.path);
    const done = (err?: unknown) => {
      if (err) recordError(req, translate(err as Parameters<typeof translate>[0], bulk));
      next();
    };
    if (fmt === 'json') return (bulk ? bulkJson : json)(req, res, done);
    if (fmt === 'form' && FORM_PATHS.has(req.path)) return form(req, res, done);
    if (fmt === 'xml') {
      return (bulk ? bulkText : text)(req, res, (err?: unknown) => {
        if (err) return done(err);
        const raw = typeof req.body === 'string' ? req.body : '';
        if (raw.trim() === '') {
          req.body = undefined;
          return next();
        }
        const breach = checkXmlBody(raw, bulk ? BULK_BODY_LIMITS : BODY_LIMITS);
        if (breach) {
          req.body = undefined;
          recordError(req, breachError(breach));
          return next();
        }
        codec
          .decodeXml(raw)
          .then((value) => {
            req.body = value;
            next();
          })
          .catch((e: unknown) => {
            recordError(
              req,
              e instanceof XmlInputError ? new BadRequestError(e.message, 'malformed-body') : new BadRequestError('Malformed XML', 'malformed-body'),
            );
            next();
          });
      });
    }
    const protocol = protocolOf(req);
    if (protocol) {
      recordError(req, new UnsupportedMediaTypeError(protocol.unsupportedMediaType));
      req.resume();
      return next();
    }
    recordError(
      req,
      new UnsupportedMediaTypeError(
        `Content-Type "${req.headers['content-type'] ?? '(none)'}" is not supported; use application/json, text/json, application/xml or text/xml` +
          (req.method === 'PATCH' ? ' (on PATCH also application/merge-patch+json or application/merge-patch+xml)' : ''),
      ),
    );
    // Drain the unread body so the connection can be reused.
    req.resume();
    next();
  };
  app.use(parse);
  return parse;
}

/**
 * Which proxies may supply the client address through X-Forwarded-For (TRUST_PROXY): by default
 * none, so the address is the socket's and a client cannot choose its own (login throttling).
 */
export function applyTrustProxy(app: INestApplication, trustProxy: TrustProxy): void {
  (app.getHttpAdapter().getInstance() as express.Express).set('trust proxy', trustProxy);
}

/**
 * The end of the Express chain, after Nest's routes: `GET /` sends a person to Swagger UI, and
 * any other request no route took — a path outside `/v4`, or one Express does not see under the
 * prefix such as `//v4//departments` — is answered 404 as problem details in the negotiated
 * format, like every other error, never with Express's HTML page. So is an error Express itself
 * raises out there (a path that cannot be decoded is 400).
 */
export function registerFallback(app: INestApplication, codec: WireCodec): void {
  const instance = app.getHttpAdapter().getInstance() as express.Express;
  const answer = (req: Request, res: Response, error: AppError) => {
    if (!res.headersSent) writeProblem(req as unknown as IncomingMessage & Record<string, unknown>, res, error, codec);
  };
  instance.use((req: Request, res: Response) => {
    if ((req.method === 'GET' || req.method === 'HEAD') && req.path === '/') return res.redirect(302, '/docs');
    answer(req, res, new RouteNotFoundError('No resource lives at this path'));
  });
  instance.use((err: { status?: number; statusCode?: number }, req: Request, res: Response, _next: NextFunction) => {
    const status = err.status ?? err.statusCode;
    answer(
      req,
      res,
      status === 400 ? new BadRequestError('The request path cannot be read', 'malformed-path') : new RouteNotFoundError('No resource lives at this path'),
    );
  });
}
