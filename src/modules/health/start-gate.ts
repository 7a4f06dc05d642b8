import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { AppConfig } from '../../config/config.js';
import { ServiceUnavailableError } from '../../common/errors/errors.js';
import { writeProblem } from '../../http/pipeline/problem.filter.js';
import { WireCodec } from '../../http/wire/codec.js';
import { negotiate } from '../../http/pipeline/negotiation.js';
import { RecordingExpressAdapter } from '../../http/pipeline/route-table.js';
import { applyServerTimeouts } from '../../http/pipeline/server-lifecycle.js';

/** Seconds a caller turned away while the service starts is told to wait (Retry-After). */
export const STARTING_RETRY_AFTER_SECONDS = 5;

/** The start's problem detail: the same for the readiness probe and every other path. */
export const STARTING_DETAIL = 'The service is starting (database migrations, then the application); retry shortly';

/**
 * The adapter of a server that exists before the application: Nest asks its adapter for a new
 * server when it builds the application, and gets the one already listening.
 */
class ListeningAdapter extends RecordingExpressAdapter {
  override initHttpServer(options: Parameters<RecordingExpressAdapter['initHttpServer']>[0]): void {
    if (this.getHttpServer() === undefined) super.initHttpServer(options);
  }
}

/**
 * The service listens as soon as the process runs, before its database is migrated and its
 * application built (docs/operations.md, "Probes"), so an orchestrator can tell a process that is
 * starting — possibly waiting minutes for the cluster-wide migration lock another replica or the
 * migration Job holds — from one that is dead. Until `release()`:
 *
 * - `GET /health/live` answers 200 `{ "status": "ok" }` (JSON or XML, as the running service does);
 * - `GET /health/ready` and every other request answer 503 with `Retry-After` and a problem
 *   document (`urn:pms:problem:service-unavailable`, JSON or XML by `Accept`): never a refused
 *   connection, never a 500.
 *
 * The server is the application's own (its adapter is `adapter`, handed to createApp), with the
 * request timeouts set before it listens; `release()` gives its requests to the application, at
 * the moment the application is built, in one synchronous step: a request is answered by the gate
 * or by the application, never by neither.
 */
export class StartGate {
  readonly adapter: RecordingExpressAdapter = new ListeningAdapter();
  private readonly server: Server;
  private readonly codec: WireCodec;
  private readonly held: RequestListener[];
  private open = true;

  private constructor(config: Pick<AppConfig, 'xmlNamespace' | 'requestTimeoutMs'>) {
    this.adapter.initHttpServer({});
    this.server = this.adapter.getHttpServer() as Server;
    this.codec = new WireCodec(config.xmlNamespace);
    this.held = this.server.listeners('request') as RequestListener[];
    this.server.removeAllListeners('request');
    this.server.on('request', this.answer);
    // Node reads its timeout-checking interval when the server starts listening: set them first.
    applyServerTimeouts(this.server, config.requestTimeoutMs);
  }

  /** Listens on the configured address behind the gate; rejects as `listen` does (a port in use). */
  static async listen(config: Pick<AppConfig, 'port' | 'host' | 'xmlNamespace' | 'requestTimeoutMs'>): Promise<StartGate> {
    const gate = new StartGate(config);
    await new Promise<void>((resolve, reject) => {
      gate.server.once('error', reject);
      gate.server.listen(config.port, config.host, () => {
        gate.server.off('error', reject);
        resolve();
      });
    });
    return gate;
  }

  /** The application takes the server's requests from now on. */
  release(): void {
    if (!this.open) return;
    this.open = false;
    this.server.off('request', this.answer);
    for (const listener of this.held) this.server.on('request', listener);
  }

  private readonly answer = (req: IncomingMessage & Record<string, unknown>, res: ServerResponse): void => {
    const requestId = randomUUID();
    req.__pmsRequestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const path = (req.url ?? '').split('?')[0].replace(/\/$/, '').toLowerCase();
    if (path === '/health/live' && (req.method === 'GET' || req.method === 'HEAD')) {
      const negotiated = negotiate(req.headers.accept);
      const body = this.codec.encode({ status: 'ok' }, negotiated.format);
      res.statusCode = 200;
      res.setHeader('Content-Type', `${negotiated.contentType}; charset=utf-8`);
      res.setHeader('Vary', 'Accept');
      res.setHeader('Content-Length', Buffer.byteLength(body));
      res.end(body);
      return;
    }
    writeProblem(req, res, new ServiceUnavailableError(STARTING_DETAIL, STARTING_RETRY_AFTER_SECONDS), this.codec);
  };
}
