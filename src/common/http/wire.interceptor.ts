import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { HttpAdapterHost, Reflector } from '@nestjs/core';
import { map, Observable } from 'rxjs';
import { CONTEXT_KEY, RequestContext } from '../context/request-context.js';
import { Page } from '../pagination/pagination.js';
import { WireCodec } from './codec.js';
import { UTC } from './dates.js';
import { etagOf, etagOfJson } from './etag.js';
import { negotiate } from './negotiation.js';
import { WIRE_RESULT, WireResultMeta } from './wire.js';

/**
 * Writes every handler's answer in the negotiated format (Accept, q-values; JSON by default)
 * with the matching Content-Type, dates in the request's time zone, an ETag on single records,
 * and X-Total-Count / Link on pages. Works on Nest's adapter abstraction only.
 */
@Injectable()
export class WireInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly adapterHost: HttpAdapterHost,
    private readonly codec: WireCodec,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const meta = this.reflector.get<WireResultMeta | undefined>(WIRE_RESULT, context.getHandler());
    const http = context.switchToHttp();
    const req = http.getRequest<Record<string, unknown> & { headers: Record<string, string | undefined> }>();
    const res = http.getResponse();
    const adapter = this.adapterHost.httpAdapter;
    return next.handle().pipe(
      map((result: unknown) => {
        if (result instanceof RawBody) {
          adapter.setHeader(res, 'Content-Type', result.contentType);
          return result.body;
        }
        const ctx = req[CONTEXT_KEY] as RequestContext | undefined;
        const tz = ctx?.tz ?? UTC;
        const neg = negotiate(req.headers.accept);
        let value = result;
        let single = false;
        if (result instanceof Page) {
          value = result.items;
          adapter.setHeader(res, 'X-Total-Count', String(result.total));
          if (result.hasNext) {
            const url = new URL(String(adapter.getRequestUrl(req)), 'http://placeholder');
            url.searchParams.set('offset', String(result.offset + result.items.length));
            url.searchParams.set('limit', String(result.limit));
            adapter.setHeader(res, 'Link', `<${url.pathname}${url.search}>; rel="next"`);
          }
        } else if (result && typeof result === 'object' && !Array.isArray(result) && meta?.type && !meta.collection) {
          single = true;
        }
        const body = this.codec.encode(value, neg.format, tz, meta);
        // A JSON answer in UTC is the very text the ETag hashes: do not render the record twice.
        if (single) adapter.setHeader(res, 'ETag', neg.format === 'json' && tz === UTC ? etagOfJson(body) : etagOf(result));
        adapter.setHeader(res, 'Content-Type', `${neg.contentType}; charset=utf-8`);
        adapter.setHeader(res, 'Vary', 'Accept');
        return body;
      }),
    );
  }
}

/** A handler answer written as is (the OpenAPI document, metrics text). */
export class RawBody {
  constructor(
    readonly body: string,
    readonly contentType: string,
  ) {}
}
