import { METHOD_METADATA } from '@nestjs/common/constants.js';
import { ExpressAdapter } from '@nestjs/platform-express';
import FindMyWay, { type HTTPVersion, type Instance as Router } from 'find-my-way';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { WireWriter } from './wire-writer.js';
import { STREAMED } from './list-export.js';

/** A route handler as Nest builds it: guards, interceptors, pipes, the controller method and the exception filters, in one function. */
export type NestRouteHandler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => unknown;

interface RecordedRoute {
  method: string;
  path: string;
  handler: NestRouteHandler;
}

/**
 * The Express adapter, recording the handler Nest registers for each controller route
 * (docs/architecture.md, "How a request runs"). Nest builds one function per route that runs the
 * route's whole pipeline — global and route guards, interceptors, pipes, the controller method,
 * the exception filters, and the answer through Express's `res` — and hands it to Express's router.
 * This adapter hands it on unchanged, and keeps it for the RouteTable, which finds it by a radix
 * lookup instead of Express's walk over every registered route.
 *
 * Only controller routes are recorded (the handler carries Nest's method metadata); whatever else
 * is registered (Swagger UI's document and assets) stays Express's alone.
 */
export class RecordingExpressAdapter extends ExpressAdapter {
  readonly recorded: RecordedRoute[] = [];
  /** Built from `recorded` once the application is initialised (createApp). */
  table: RouteTable | null = null;
  /** Writes every answer (createApp sets it once the application exists). */
  writer: WireWriter | null = null;

  /**
   * Sends an answer: Nest calls this with a route handler's value once the route's guards, pipes,
   * stages and handler are done, and the problem filter with an error's text. The value is
   * written here (WireWriter.answer: format, ETag, paging headers) rather than by a global
   * interceptor, so a route without stages runs no Observable pipeline at all
   * (docs/architecture.md, "How a request runs").
   */
  override reply(response: ServerResponse & { req?: IncomingMessage }, body: unknown, statusCode?: number): unknown {
    // A streamed export (list-export.ts) has written and ended the response itself.
    if (body === STREAMED) return undefined;
    const answer = this.writer ? this.writer.answer(response.req as never, response, body) : body;
    // Bytes (a page of kept records) go out as they are: Nest's reply would write a Buffer as JSON.
    if (Buffer.isBuffer(answer)) {
      if (statusCode !== undefined) response.statusCode = statusCode;
      return (response as unknown as { send(body: Buffer): unknown }).send(answer);
    }
    return super.reply(response, answer, statusCode);
  }

  /**
   * The HTTP server, its requests and responses born with Express's prototypes (the
   * `IncomingMessage` and `ServerResponse` classes of createServer): Express gives every request
   * those prototypes by `Object.setPrototypeOf` when it arrives, which makes every later access to
   * the objects slower. The front door's requests need no change of prototype at all; Express's own
   * still gets one, to the same prototype's parent, which changes nothing it reads.
   */
  override initHttpServer(options: Parameters<ExpressAdapter['initHttpServer']>[0]): void {
    if (options?.httpsOptions) return super.initHttpServer(options);
    const app = this.getInstance<Express>();
    class ExpressRequest extends IncomingMessage {}
    class ExpressResponse<R extends IncomingMessage = IncomingMessage> extends ServerResponse<R> {}
    Object.setPrototypeOf(ExpressRequest.prototype, app.request);
    Object.setPrototypeOf(ExpressResponse.prototype, app.response);
    this.httpServer = createServer({ IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse }, app);
  }

  /** Keeps a controller route's handler, then registers it with Express as the adapter would. */
  private through(method: string, args: unknown[], register: Function): unknown {
    const [path, handler] = args;
    if (typeof path === 'string' && typeof handler === 'function' && Reflect.getMetadata(METHOD_METADATA, handler) !== undefined)
      this.recorded.push({ method, path, handler: handler as NestRouteHandler });
    return (register as (...a: unknown[]) => unknown).apply(this, args);
  }

  override get(...args: unknown[]): unknown {
    return this.through('GET', args, super.get);
  }
  override post(...args: unknown[]): unknown {
    return this.through('POST', args, super.post);
  }
  override put(...args: unknown[]): unknown {
    return this.through('PUT', args, super.put);
  }
  override patch(...args: unknown[]): unknown {
    return this.through('PATCH', args, super.patch);
  }
  override delete(...args: unknown[]): unknown {
    return this.through('DELETE', args, super.delete);
  }
}

export interface RouteHit {
  handler: NestRouteHandler;
  /** The path parameters, decoded, in the request's own letter case. */
  params: Record<string, string | undefined>;
}

/**
 * Every controller route in a radix tree (find-my-way), matched as Express matches them: letter
 * case ignored in the path (never in the parameters), one trailing slash ignored. A path it does
 * not find — another method, a malformed or over-long parameter, a double slash, anything outside
 * the controllers — is Express's to answer, exactly as without the table (front-door.ts).
 */
export class RouteTable {
  private readonly router: Router<HTTPVersion.V1>;
  readonly size: number;
  /** Requests the front door dispatched through this table (tests check that it really serves). */
  routed = 0;

  constructor(routes: readonly RecordedRoute[]) {
    this.router = FindMyWay({ caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 200 });
    for (const r of routes) this.router.on(r.method as 'GET', r.path, r.handler as never);
    this.size = routes.length;
  }

  /** The route of this method and URL (query string allowed), or null. */
  find(method: string | undefined, url: string | undefined): RouteHit | null {
    if (!method || !url) return null;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    // Express answers these itself: percent-encoded paths (its own decoding and its errors), and
    // double slashes (the path fallback).
    if (path.includes('//') || path.includes('%')) return null;
    let found: ReturnType<Router<HTTPVersion.V1>['find']>;
    try {
      found = this.router.find(method as 'GET', path);
    } catch {
      return null;
    }
    if (!found) return null;
    return { handler: found.handler as unknown as NestRouteHandler, params: { ...found.params } };
  }
}
