import type { IncomingMessage, ServerResponse } from 'node:http';
import { ServiceUnavailableError } from '../errors/errors.js';
import { writeProblem } from '../errors/problem.filter.js';
import type { JsonLogger } from '../logging/json-logger.js';
import type { WireCodec } from './codec.js';

const DEADLINE_STARTED = '__pmsDeadlineStarted';

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
    const timer = setTimeout(() => {
      if (res.headersSent || res.writableEnded || res.destroyed) return;
      const error = new ServiceUnavailableError(`The request did not complete within ${ms} ms; retry shortly`, DEADLINE_RETRY_AFTER_SECONDS);
      writeProblem(req, res, error, codec);
      discardLaterWrites(res);
      logger.event('warn', 'RequestDeadline', {
        msg: `no answer within ${ms} ms: answered 503`,
        method: req.method,
        path: String(req.originalUrl ?? req.url ?? '').split('?')[0],
        requestId: req.__pmsRequestId,
      });
    }, ms);
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
