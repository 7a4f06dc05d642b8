import { Injectable } from '@nestjs/common';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ServiceUnavailableError } from '../../common/errors/errors.js';
import { writeProblem } from './problem.filter.js';
import { WireCodec } from '../wire/codec.js';

/** Seconds a client whose unfinished request was refused at shutdown is told to wait. */
const SHUTDOWN_RETRY_AFTER_SECONDS = 1;

/**
 * At shutdown, how long a request whose body is still arriving may take to finish sending it:
 * a client in the middle of an upload is served, one that has stopped sending is answered 503.
 */
export const SHUTDOWN_BODY_WAIT_MS = 2000;

/**
 * How long Node's server gives a client to send a whole request (docs/operations.md, "Bounds"):
 * headers and body within REQUEST_TIMEOUT_MS of its first byte, else Node answers 408 and closes
 * the connection. Without it a client that sends headers and part of a body, then nothing, held
 * its connection for Node's default of 300 s. The deadline of REQUEST_TIMEOUT_MS for the answer
 * (request-deadline.ts) starts once the body is read, so the two together bound a request.
 * Node checks its timeouts every `connectionsCheckingInterval` (30 s by default; read when the
 * server starts listening): once a second here, so the bound holds to the second.
 */
export function applyServerTimeouts(server: Server, requestTimeoutMs: number): void {
  server.requestTimeout = requestTimeoutMs;
  server.headersTimeout = requestTimeoutMs;
  // Keep-alive a little longer than typical load balancers so they close first.
  server.keepAliveTimeout = 65_000;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(1000, requestTimeoutMs);
}

/** One request in flight (ServerLifecycle); its fields are cleared once it is answered. */
interface InFlight {
  req: IncomingMessage | null;
  res: ServerResponse | null;
  newer: InFlight | null;
  older: InFlight | null;
}

/**
 * The shutdown sequence a load balancer can rely on (docs/operations.md, "Shutdown"). On
 * `drain()` (SIGTERM): readiness answers 503 at once, the listening socket closes so new
 * connections are refused, idle keep-alive connections close, a request whose body is still
 * arriving gets SHUTDOWN_BODY_WAIT_MS to finish sending it and is then answered 503 with
 * `Retry-After` and its connection closed (it has not started, so nothing of it is lost), every
 * other request already received completes and its response
 * carries `Connection: close` so its connection closes after it, connections still sending
 * headers are closed once no request is in flight, and the returned promise settles when the
 * last connection has closed.
 */
@Injectable()
export class ServerLifecycle {
  constructor(private readonly codec: WireCodec) {}

  private server: Server | null = null;
  /**
   * The requests in flight, newest first, linked through one small entry per request (unlinked,
   * its pointers cleared, when the response finishes or closes). Not a long-lived Map, whose
   * per-request churn kept every request alive until a full collection (docs/performance.md,
   * "Nothing per request in a long-lived map").
   */
  private newest: InFlight | null = null;
  private count = 0;
  private drainingSince: number | null = null;

  /** True from the moment shutdown begins: readiness answers 503. */
  get draining(): boolean {
    return this.drainingSince !== null;
  }

  /** Requests received and not yet answered. */
  get inFlightCount(): number {
    return this.count;
  }

  /** The first middleware of the chain: tracks each request and marks it when draining. */
  readonly middleware = (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const entry: InFlight = { req, res, newer: null, older: this.newest };
    if (this.newest) this.newest.newer = entry;
    this.newest = entry;
    this.count++;
    if (this.draining) res.setHeader('Connection', 'close');
    const done = () => {
      if (!this.unlink(entry)) return;
      // A connection whose response was already under way when draining began stays open as
      // keep-alive: close it as soon as it is idle; once nothing is in flight, close the
      // connections that are still sending the headers of a request too.
      if (this.draining) setImmediate(() => this.closeQuietConnections());
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };

  /** Starts the shutdown sequence; settles when every connection has closed. */
  drain(server: Server): Promise<void> {
    this.server = server;
    this.drainingSince ??= Date.now();
    for (let entry = this.newest; entry;) {
      // The next entry is read first: an entry unlinked meanwhile has lost its pointers.
      const { req, res, older } = entry;
      entry = older;
      if (!req || !res || res.headersSent) continue;
      res.setHeader('Connection', 'close');
      if (!req.complete) {
        setTimeout(() => {
          if (!req.complete && !res.headersSent) this.refuseUnfinished(req, res);
        }, SHUTDOWN_BODY_WAIT_MS).unref();
      }
    }
    return new Promise((resolve) => {
      if (!server.listening) return resolve();
      // Stops accepting; Node also closes the connections idle right now.
      server.close(() => resolve());
      this.closeQuietConnections();
    });
  }

  /** A request still sending its body at shutdown: 503 + Retry-After, then its connection closes. */
  private refuseUnfinished(req: IncomingMessage, res: ServerResponse): void {
    res.setHeader('Connection', 'close');
    res.once('finish', () => req.socket.destroy());
    const error = new ServiceUnavailableError(
      'The service is shutting down and the request body had not arrived; send the request again',
      SHUTDOWN_RETRY_AFTER_SECONDS,
    );
    writeProblem(req as IncomingMessage & Record<string, unknown>, res, error, this.codec);
  }

  private closeQuietConnections(): void {
    this.server?.closeIdleConnections();
    if (this.count === 0) this.server?.closeAllConnections();
  }

  /** Takes a request out of the in-flight list (false when it was out already). */
  private unlink(entry: InFlight): boolean {
    if (entry.req === null) return false;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older;
    if (entry.older) entry.older.newer = entry.newer;
    entry.newer = entry.older = null;
    entry.req = entry.res = null;
    this.count--;
    return true;
  }
}
