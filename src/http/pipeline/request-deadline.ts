import type { IncomingMessage, ServerResponse } from 'node:http';
import { ServiceUnavailableError } from '../../common/errors/errors.js';
import { writeProblem } from './problem.filter.js';
import type { JsonLogger } from '../../common/logging/json-logger.js';
import type { WireCodec } from '../wire/codec.js';
import { isBulkPath } from '../wire/bulk.js';
import { isFileBodyPath } from '../wire/file-body.js';

const DEADLINE_STARTED = '__pmsDeadlineStarted';

/** A bulk route (docs/bulk.md) does the work of up to 1,000 writes: it has this many times the deadline. */
export const BULK_DEADLINE_FACTOR = 8;

/**
 * A file route (a file import, docs/imports.md) reads its body as it arrives — up to 256 MiB — and
 * reads the stored file through before answering: it has this many times the deadline (10 minutes
 * with the default 15 s).
 */
export const FILE_DEADLINE_FACTOR = 40;

/** Seconds a client is told to wait before retrying a request that ran out of time. */
export const DEADLINE_RETRY_AFTER_SECONDS = 5;

/**
 * The per-request deadline (REQUEST_TIMEOUT_MS, docs/operations.md): a request whose body has
 * been read and that is still unanswered after `ms` is answered `503` with `Retry-After`, as
 * problem details in the negotiated format. The database bounds (pool acquire timeout, statement
 * limit) normally answer first; this is the bound that holds whatever the request waits for.
 *
 * The handler may still finish later: its response is then discarded, and a write it was doing
 * may have been committed (the 503 says "retry", so clients should retry with the record's own
 * `ID` where they can).
 */
export function requestDeadline(ms: number, codec: WireCodec, logger: JsonLogger) {
  return (req: IncomingMessage & Record<string, unknown>, res: ServerResponse, next: () => void): void => {
    // Started once, whether the front door or Express runs the middleware (front-door.ts).
    if (req[DEADLINE_STARTED]) return next();
    req[DEADLINE_STARTED] = true;
    const path = String(req.originalUrl ?? req.url ?? '').split('?')[0];
    const limit = req.method !== 'POST' ? ms : isFileBodyPath(path) ? ms * FILE_DEADLINE_FACTOR : isBulkPath(path) ? ms * BULK_DEADLINE_FACTOR : ms;
    const timer = setTimeout(() => {
      if (res.headersSent || res.writableEnded || res.destroyed) return;
      const error = new ServiceUnavailableError(`The request did not complete within ${limit} ms; retry shortly`, DEADLINE_RETRY_AFTER_SECONDS);
      writeProblem(req, res, error, codec);
      discardLaterWrites(res);
      logger.event('warn', 'RequestDeadline', {
        msg: `no answer within ${limit} ms: answered 503`,
        method: req.method,
        path,
        requestId: req.__pmsRequestId,
      });
    }, limit);
    const clear = () => clearTimeout(timer);
    res.once('finish', clear);
    res.once('close', clear);
    next();
  };
}

/** Makes the handler's eventual answer a no-op instead of an ERR_HTTP_HEADERS_SENT error. */
function discardLaterWrites(res: ServerResponse): void {
  const self = function (this: ServerResponse) {
    return this;
  };
  const r = res as unknown as Record<string, unknown>;
  r.setHeader = self;
  r.appendHeader = self;
  r.removeHeader = () => undefined;
  r.writeHead = self;
  r.write = () => true;
  r.end = self;
}
