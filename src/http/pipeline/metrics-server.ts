import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpMetrics } from './http-metrics.js';

/**
 * The Prometheus scrape on a port of its own (METRICS_PORT, docs/operations.md "Metrics"): `GET
 * /metrics` answers the text exposition format, anything else 404 (405 for another method on
 * /metrics). Kept off the API's port so that the scrape is exposed to the cluster only (the pod's
 * metrics port is not routed by the ingress) and `/v4/metrics` is the Metric resource.
 *
 * Answers once it listens; a port in use is an error naming METRICS_PORT.
 */
export async function startMetricsServer(metrics: HttpMetrics, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: the scrape is GET /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('Method not allowed\n');
      return;
    }
    metrics.text().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': metrics.contentType, 'Content-Length': Buffer.byteLength(text) });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`metrics could not be collected: ${String(err)}\n`);
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    const failed = (e: NodeJS.ErrnoException) =>
      reject(
        new Error(`METRICS_PORT ${port} on ${host}: ${e.code === 'EADDRINUSE' ? 'the port is in use (set METRICS_PORT to a free port, or off)' : e.message}`),
      );
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  return server;
}

/** The port a started metrics server listens on (for METRICS_PORT=0). */
export function metricsPortOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}
