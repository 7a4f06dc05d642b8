import { Injectable } from '@nestjs/common';
import { CONTEXT_KEY, RequestContext } from '../../common/context/request-context.js';
import { KeysetPage, Page, QueriedPage } from '../wire/pagination.js';
import { WireCodec } from '../wire/codec.js';
import { UTC } from '../../common/dates.js';
import { etagOf, etagOfJson } from '../wire/etag.js';
import { ROUTE_KEY } from './http-metrics.js';
import { negotiate } from './negotiation.js';
import { ROUTE_HANDLER_KEY, WireResultMeta, wireResultOf } from '../wire/wire.js';
import { WithHeaders } from '../wire/answer-headers.js';

/**
 * How every handler's answer is written: in the negotiated format (Accept, q-values; JSON by default)
 * with the matching Content-Type, dates in the request's time zone, an ETag on single records
 * and on List-of-one reads, and X-Total-Count / Link on pages. Headers are set on Node's response
 * (`setHeader`, which Express's response inherits).
 *
 * Conditional GET: the ETag is set before the body is sent, and Express's `res.send` decides
 * `304 Not Modified` (no body) with `fresh`. So an `If-None-Match` naming the tag
 * (weak comparison, several tags, `*`) is a 304, unless `Cache-Control: no-cache` asks for the
 * body — docs/http-caching.md; test/e2e/http-details.e2e-spec.ts holds it to that.
 */
type WireRequest = Record<string, unknown> & { headers: Record<string, string | string[] | undefined>; url?: string; originalUrl?: string };
/** Where the headers go: Node's ServerResponse, or Express's, which inherits its setHeader. */
interface HeaderTarget {
  setHeader(name: string, value: string): unknown;
}

/**
 * The body and headers of an answer: the negotiated format, dates in the request's zone, ETag,
 * X-Total-Count and Link. Returns the body to send. Every route's answer is written here, by the
 * adapter's reply (route-table.ts), once the handler and the route's stages are done.
 */
@Injectable()
export class WireWriter {
  constructor(private readonly codec: WireCodec) {}

  /**
   * The answer of a request, as the adapter sends it: a route handler's value under the answer
   * its route declares; text already written (a RawBody, e.g. the problem filter's) as it is;
   * anything else (no route ran) untouched.
   */
  answer(req: WireRequest | undefined, res: HeaderTarget, body: unknown): unknown {
    if (body instanceof RawBody) return this.render(req ?? { headers: {} }, res, body, undefined);
    const handler = req?.[ROUTE_HANDLER_KEY];
    return typeof handler === 'function' ? this.render(req!, res, body, wireResultOf(handler)) : body;
  }

  /**
   * The answer's body, with its headers set on `res`: text, or bytes for a list of kept records
   * (a page read through a record memo: WireCodec.encodeBytes copies each record's kept UTF-8
   * bytes into one buffer instead of joining, measuring and encoding its texts again).
   */
  render(req: WireRequest, res: HeaderTarget, result: unknown, declared: WireResultMeta | undefined): string | Buffer {
    if (result instanceof WithHeaders) {
      for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
      result = result.value;
    }
    if (result instanceof RawBody) {
      res.setHeader('Content-Type', result.contentType);
      for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
      return result.body;
    }
    const ctx = req[CONTEXT_KEY] as RequestContext | undefined;
    const tz = ctx?.tz ?? UTC;
    const neg = negotiate(req.headers.accept as string | undefined);
    let value = result;
    let single = false;
    let meta = declared;
    if (result instanceof KeysetPage) {
      value = result.items;
      if (result.wire) meta = result.wire;
      for (const [name, v] of Object.entries(result.headers)) res.setHeader(name, v);
      if (result.next) {
        const url = new URL(String(req.originalUrl ?? req.url), 'http://placeholder');
        for (const [name, v] of Object.entries(result.next)) url.searchParams.set(name, v);
        res.setHeader('Link', `<${url.pathname}${url.search}>; rel="next"`);
      }
    } else if (result instanceof QueriedPage) {
      value = result.items;
      if (result.nextCursor === undefined) res.setHeader('X-Total-Count', String(result.total));
      if (result.hasNext) {
        const url = new URL(String(req.originalUrl ?? req.url), 'http://placeholder');
        if (result.nextCursor) {
          url.searchParams.delete('offset');
          url.searchParams.set('cursor', result.nextCursor);
        } else {
          url.searchParams.set('offset', String(result.offset + result.items.length));
        }
        url.searchParams.set('limit', String(result.limit));
        res.setHeader('Link', `<${url.pathname}${url.search}>; rel="next"`);
      }
      if (result.fields) {
        res.setHeader('Content-Type', `${neg.contentType}; charset=utf-8`);
        res.setHeader('Vary', 'Accept');
        return this.codec.encodeFields(value as unknown[], result.fields, neg.format, tz, meta);
      }
    } else if (result instanceof Page) {
      value = result.items;
      res.setHeader('X-Total-Count', String(result.total));
      if (result.hasNext) {
        const url = new URL(String(req.originalUrl ?? req.url), 'http://placeholder');
        url.searchParams.set('offset', String(result.offset + result.items.length));
        url.searchParams.set('limit', String(result.limit));
        res.setHeader('Link', `<${url.pathname}${url.search}>; rel="next"`);
      }
    } else if (result && typeof result === 'object' && !Array.isArray(result) && meta?.type && !meta.collection) {
      single = true;
    } else if (isOneRecordRead(req, result, meta)) {
      // A record read answered as a List of one (GET /accountabilities/{id}): the ETag of that
      // record, so the client can send it back in If-Match / If-None-Match.
      res.setHeader('ETag', etagOf(result[0]));
    }
    const body = (!single && this.codec.encodeBytes(value, neg.format, tz, meta)) || this.codec.encode(value, neg.format, tz, meta);
    // A JSON answer in UTC is the very text the ETag hashes: do not render the record twice.
    if (single) res.setHeader('ETag', neg.format === 'json' && tz === UTC && typeof body === 'string' ? etagOfJson(body, result) : etagOf(result));
    res.setHeader('Content-Type', `${neg.contentType}; charset=utf-8`);
    res.setHeader('Vary', 'Accept');
    return body;
  }
}

/**
 * A GET whose route ends with an id (`…/{id}`) but whose answer is a collection holding one
 * record: the List-of-one reads (docs/list-items.md). Collections read by a path ending in a word are not.
 */
function isOneRecordRead(req: Record<string, unknown>, result: unknown, meta: WireResultMeta | undefined): result is [object] {
  if (!meta?.collection || req.method !== 'GET' || !Array.isArray(result) || result.length !== 1) return false;
  const route = req[ROUTE_KEY];
  return typeof route === 'string' && /\/:[^/]+$/.test(route) && typeof result[0] === 'object' && result[0] !== null;
}

/** A handler answer written as is (the OpenAPI document, metrics text, SCIM resources), with headers of its own (ETag, Location). */
export class RawBody {
  constructor(
    readonly body: string,
    readonly contentType: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}
