import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { APP_LOGGER } from '../../common/logging/logger.token.js';
import { JsonLogger } from '../../common/logging/json-logger.js';
import { HttpMetrics, ROUTE_KEY } from './http-metrics.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Paths a platform polls every few seconds (probes, the scrape): their access lines are debug. */
const PROBE_PATHS = new Set(['/health/live', '/health/ready']);

/**
 * Gives every request an id (a well-formed incoming X-Request-Id is kept), echoes it in the
 * response, leaves it on the request (`__pmsRequestId`, which RequestContext takes over) for the
 * lines written about the request, which name it themselves (no AsyncLocalStorage scope:
 * docs/performance.md, "No async context"), and writes one access-log line when the response
 * finishes — at debug for a successful probe or
 * scrape (`/health/*`, `/metrics`), which a platform sends every few seconds. Works on the raw Node objects, so it
 * serves any HTTP adapter.
 */
@Injectable()
export class RequestLogMiddleware implements NestMiddleware {
  constructor(
    @Inject(APP_LOGGER) private readonly logger: JsonLogger,
    private readonly metrics: HttpMetrics,
  ) {}

  use(req: IncomingMessage & Record<string, unknown>, res: ServerResponse, next: () => void): void {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
    req.__pmsRequestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const url = String(req.originalUrl ?? req.url ?? '');
      const route = req[ROUTE_KEY] as string | undefined;
      this.metrics.observe(String(req.method), route, res.statusCode, ms / 1000);
      const path = url.split('?')[0];
      const level = res.statusCode >= 500 ? 'error' : PROBE_PATHS.has(path) && res.statusCode < 400 ? 'debug' : 'info';
      this.logger.event(level, 'http', {
        requestId,
        method: req.method,
        path,
        route,
        status: res.statusCode,
        ms: Math.round(ms * 10) / 10,
      });
    });
    next();
  }
}
