import { Injectable } from '@nestjs/common';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * The shutdown sequence a load balancer can rely on (docs/operations.md, "Shutdown"). On
 * `drain()` (SIGTERM): readiness answers 503 at once, the listening socket closes so new
 * connections are refused, idle keep-alive connections close, every request already received
 * completes and its response carries `Connection: close` so its connection closes after it,
 * and the returned promise settles when the last connection has closed.
 */
@Injectable()
export class ServerLifecycle {
  private server: Server | null = null;
  private readonly inFlight = new Set<ServerResponse>();
  private drainingSince: number | null = null;

  /** True from the moment shutdown begins: readiness answers 503. */
  get draining(): boolean {
    return this.drainingSince !== null;
  }

  /** Requests received and not yet answered. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** The first middleware of the chain: tracks each request and marks it when draining. */
  readonly middleware = (_req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    this.inFlight.add(res);
    if (this.draining) res.setHeader('Connection', 'close');
    const done = () => {
      if (!this.inFlight.delete(res)) return;
      // A connection whose response was already under way when draining began stays open as
      // keep-alive: close it as soon as it is idle.
      if (this.draining) setImmediate(() => this.server?.closeIdleConnections());
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };

  /** Starts the shutdown sequence; settles when every connection has closed. */
  drain(server: Server): Promise<void> {
    this.server = server;
    this.drainingSince ??= Date.now();
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    return new Promise((resolve) => {
      if (!server.listening) return resolve();
      // Stops accepting; Node also closes the connections idle right now.
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }
}
