import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { INestApplication } from '@nestjs/common';
import { WireCodec, XmlInputError } from './codec.js';
import { requestFormat } from './negotiation.js';
import { AppError, BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors/errors.js';
import type { TrustProxy } from '../../config/config.js';
import { charsetOf, isAcceptedCharset, jsonDepthExceeds, MAX_BODY_DEPTH, xmlDepthExceeds } from './body-limits.js';

/**
 * The only Express-specific code: registering the body parsers. Parse failures are not answered
 * here; they are recorded on the request (BODY_ERROR) and thrown by the BodyGuard, so the one
 * global filter writes them like every other error. Swapping to Fastify replaces this file.
 */
export const BODY_ERROR = '__pmsBodyError';
export const MAX_BODY_BYTES = 1024 * 1024;

const FORM_PATHS = new Set(['/v4/auth/token']);

function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

function recordError(req: Request, err: AppError): void {
  (req as unknown as Record<string, unknown>)[BODY_ERROR] = err;
}

const tooDeep = () => new BadRequestError(`The body is nested deeper than ${MAX_BODY_DEPTH} levels`, 'body-too-deep');

/** Thrown from the JSON parser's verify hook, before the text is parsed. */
function refuseDeepJson(_req: Request, _res: Response, buf: Buffer): void {
  if (jsonDepthExceeds(buf)) throw Object.assign(new Error('too deep'), { type: 'entity.too.deep' });
}

function translate(err: { type?: string; status?: number; message?: string }): AppError {
  if (err.type === 'entity.too.deep') return tooDeep();
  if (err.type === 'entity.too.large' || err.status === 413) return new PayloadTooLargeError('The request body is larger than 1 MiB');
  if (err.type === 'entity.parse.failed') return new BadRequestError(`Malformed JSON: ${err.message ?? 'cannot be parsed'}`, 'malformed-body');
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') return new UnsupportedMediaTypeError(err.message ?? 'Unsupported encoding');
  return new BadRequestError(err.message ?? 'The body cannot be read', 'malformed-body');
}

export function registerBodyParsers(app: INestApplication, codec: WireCodec): void {
  const instance = app.getHttpAdapter().getInstance() as express.Express;
  // Our own ETag (of the record, not of the bytes) is set by the WireInterceptor.
  instance.set('etag', false);
  instance.disable('x-powered-by');
  const json = express.json({
    type: (req) => requestFormat(req.headers['content-type']) === 'json',
    limit: MAX_BODY_BYTES,
    strict: true,
    verify: refuseDeepJson,
  });
  const text = express.text({ type: (req) => requestFormat(req.headers['content-type']) === 'xml', limit: MAX_BODY_BYTES, defaultCharset: 'utf-8' });
  const form = express.urlencoded({ type: (req) => requestFormat(req.headers['content-type']) === 'form', limit: MAX_BODY_BYTES, extended: false });

  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    const fmt = requestFormat(req.headers['content-type']);
    const charset = charsetOf(req.headers['content-type']);
    if (fmt !== null && !isAcceptedCharset(charset)) {
      recordError(req, new UnsupportedMediaTypeError(`Request bodies must be UTF-8; charset "${charset}" is not accepted (send charset=utf-8 or none)`));
      req.resume();
      return next();
    }
    const done = (err?: unknown) => {
      if (err) recordError(req, translate(err as { type?: string; status?: number; message?: string }));
      next();
    };
    if (fmt === 'json') return json(req, res, done);
    if (fmt === 'form' && FORM_PATHS.has(req.path)) return form(req, res, done);
    if (fmt === 'xml') {
      return text(req, res, (err?: unknown) => {
        if (err) return done(err);
        const raw = typeof req.body === 'string' ? req.body : '';
        if (raw.trim() === '') {
          req.body = undefined;
          return next();
        }
        if (xmlDepthExceeds(raw)) {
          req.body = undefined;
          recordError(req, tooDeep());
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
    recordError(
      req,
      new UnsupportedMediaTypeError(
        `Content-Type "${req.headers['content-type'] ?? '(none)'}" is not supported; use application/json, text/json, application/xml or text/xml`,
      ),
    );
    // Drain the unread body so the connection can be reused.
    req.resume();
    next();
  });
}

/**
 * Which proxies may supply the client address through X-Forwarded-For (TRUST_PROXY): by default
 * none, so the address is the socket's and a client cannot choose its own (login throttling).
 */
export function applyTrustProxy(app: INestApplication, trustProxy: TrustProxy): void {
  (app.getHttpAdapter().getInstance() as express.Express).set('trust proxy', trustProxy);
}
