import { Agent, request, type Server } from 'node:http';
import type { Express } from 'express';
import { StartGate, STARTING_DETAIL } from './start-gate.js';

/**
 * The start gate (docs/operations.md, "Probes"): the server listens before the application is
 * built; until then liveness is 200 and every other request 503 + Retry-After with a problem
 * document, in JSON or XML; once released, the application's listener answers on the same server.
 */
const CONFIG = { port: 0, host: '127.0.0.1', xmlNamespace: 'urn:pms:v4', requestTimeoutMs: 15_000 };

describe('StartGate', () => {
  let gate: StartGate;
  let base: string;
  let server: Server;

  beforeEach(async () => {
    gate = await StartGate.listen(CONFIG);
    server = gate.adapter.getHttpServer() as Server;
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('listens on the server of the adapter the application is built with, which keeps it, with the request timeouts already set', () => {
    expect(server.listening).toBe(true);
    // Nest asks the adapter for a server when it builds the application: it gets this one.
    gate.adapter.initHttpServer({});
    expect(gate.adapter.getHttpServer()).toBe(server);
    expect({ requestTimeout: server.requestTimeout, headersTimeout: server.headersTimeout }).toEqual({ requestTimeout: 15_000, headersTimeout: 15_000 });
    expect((server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval).toBe(1000);
  });

  it('answers liveness 200 in JSON or XML (HEAD too), as the running service does', async () => {
    const json = await fetch(`${base}/health/live`);
    expect({ status: json.status, type: json.headers.get('content-type'), body: await json.text() }).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: '{"status":"ok"}',
    });
    expect(json.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const xml = await fetch(`${base}/health/live`, { headers: { Accept: 'application/xml' } });
    expect(xml.status).toBe(200);
    expect(await xml.text()).toMatch(/<Object xmlns="urn:pms:v4"[^>]*><status>ok<\/status><\/Object>$/);
    const head = await fetch(`${base}/health/live`, { method: 'HEAD' });
    expect({ status: head.status, body: await head.text() }).toEqual({ status: 200, body: '' });
  });

  it('answers readiness and every other request 503 with Retry-After and a problem document, never a 500', async () => {
    for (const [method, path] of [
      ['GET', '/health/ready'],
      ['GET', '/v4/me'],
      ['POST', '/v4/auth/token'],
      ['GET', '/docs/openapi.json'],
      ['DELETE', '/nowhere'],
      ['POST', '/health/live'],
    ]) {
      const res = await fetch(`${base}${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: method === 'POST' ? '{"a":1}' : undefined });
      const body = (await res.json()) as Record<string, unknown>;
      expect({ method, path, status: res.status, retryAfter: res.headers.get('retry-after'), type: res.headers.get('content-type'), body }).toEqual({
        method,
        path,
        status: 503,
        retryAfter: '5',
        type: 'application/problem+json; charset=utf-8',
        body: {
          type: 'urn:pms:problem:service-unavailable',
          title: 'The service is temporarily unavailable',
          status: 503,
          detail: STARTING_DETAIL,
          instance: path,
          requestId: res.headers.get('x-request-id'),
        },
      });
    }
    const xml = await fetch(`${base}/v4/individuals`, { headers: { Accept: 'application/xml' } });
    expect({ status: xml.status, type: xml.headers.get('content-type') }).toEqual({ status: 503, type: 'application/problem+xml; charset=utf-8' });
    expect(await xml.text()).toContain('<type>urn:pms:problem:service-unavailable</type>');
  });

  it('gives the requests to the application once released, on the same server and the same keep-alive connection', async () => {
    const express = gate.adapter.getInstance<Express>();
    express.get('/health/ready', (_req, res) => void res.json({ status: 'ok', database: 'up' }));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<{ status: number; body: string; socket: number }>((resolve, reject) => {
        request(`${base}${path}`, { agent }, (res) => {
          const socket = res.socket.localPort!;
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body, socket }));
        })
          .on('error', reject)
          .end();
      });
    const before = await get('/health/ready');
    expect(before.status).toBe(503);
    gate.release();
    const after = await get('/health/ready');
    expect(after).toEqual({ status: 200, body: '{"status":"ok","database":"up"}', socket: before.socket });
    // The application's listener alone: what the front door expects to replace.
    expect(server.listeners('request')).toEqual([express]);
    agent.destroy();
  });
});
