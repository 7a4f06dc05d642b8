import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EgressError, egressRequest, egressUrlProblem, refusedRange } from './egress-guard.js';

/** A local HTTP server that counts the connections it accepts and answers as `handler` says. */
async function server(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const s: Server = createServer(handler);
  s.on('connection', () => connections++);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => s.close(() => resolve())),
  };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as EgressError,
  );

describe('the egress guard', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.1.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    // The documentation, benchmarking and other reserved ranges (issue 46, row 11)
    ['192.0.2.10', 'reserved'],
    ['198.51.100.10', 'reserved'],
    ['203.0.113.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['100::1', 'discard'],
    ['2002::1', '6to4'],
    ['2001::1', 'teredo'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['::ffff:0:10.0.0.1', 'rfc6145'],
    // IPv4-mapped: judged as the IPv4 address it carries
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
  ])('refuses %s (%s)', (address, range) => {
    expect(refusedRange(address, false)).toBe(range);
  });

  it('lets public unicast addresses through', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(refusedRange(a, false)).toBeNull();
  });

  it('with EGRESS_ALLOW_PRIVATE lets private and loopback targets through, never metadata, multicast, broadcast or the unspecified address', () => {
    for (const a of ['127.0.0.1', '10.0.0.1', '::1', 'fc00::1', '192.0.2.1']) expect(refusedRange(a, true)).toBeNull();
    for (const a of ['169.254.169.254', 'fd00:ec2::254', '224.0.0.1', '255.255.255.255', '0.0.0.0', '::']) expect(refusedRange(a, true)).not.toBeNull();
  });

  it('judges a URL as written: scheme, credentials, a literal refused address, localhost', () => {
    expect(egressUrlProblem('https://hooks.example.com/x', false)).toBeNull();
    expect(egressUrlProblem('ftp://example.com/', false)).toMatch(/http or https/);
    expect(egressUrlProblem('https://user:pw@example.com/', false)).toMatch(/credentials/);
    expect(egressUrlProblem('http://[::ffff:7f00:1]/', false)).toMatch(/loopback/);
    expect(egressUrlProblem('http://0x7f.1/', false)).toMatch(/loopback/);
    expect(egressUrlProblem('http://203.0.113.5/', false)).toMatch(/reserved/);
    expect(egressUrlProblem('http://app.localhost/', false)).toMatch(/loopback/);
    expect(egressUrlProblem('http://127.0.0.1:9/', true)).toBeNull();
  });

  it('never connects to a refused address, literal or resolved, and says so in its own words', async () => {
    const inside = await server((_req, res) => res.end('internal secret page'));
    try {
      const literal = await failure(egressRequest(`${inside.url}/metrics#`, { method: 'GET', timeoutMs: 2000, maxBytes: 1000 }, false));
      expect(literal).toBeInstanceOf(EgressError);
      expect(literal!.reason).toBe('refused-address');
      const port = new URL(inside.url).port;
      const resolved = await failure(egressRequest(`http://localhost:${port}/`, { method: 'GET', timeoutMs: 2000, maxBytes: 1000 }, false));
      expect(resolved!.reason).toBe('refused-address');
      expect(`${literal!.message} ${resolved!.message}`).not.toContain('secret');
      expect(inside.connections()).toBe(0);
    } finally {
      await inside.close();
    }
  });

  it('follows no redirect, and bounds the answer in size and the exchange in time', async () => {
    const target = await server((_req, res) => res.end('moved here'));
    const redirecting = await server((_req, res) => res.writeHead(302, { location: `${target.url}/` }).end());
    const large = await server((_req, res) => res.end('x'.repeat(100_000)));
    const silent = await server(() => undefined);
    try {
      const moved = await egressRequest(redirecting.url, { method: 'GET', timeoutMs: 2000, maxBytes: 1000 }, true);
      expect(moved.status).toBe(302);
      expect(target.connections()).toBe(0);
      expect((await failure(egressRequest(large.url, { method: 'GET', timeoutMs: 2000, maxBytes: 1000 }, true)))!.reason).toBe('too-large');
      const cut = await egressRequest(large.url, { method: 'GET', timeoutMs: 2000, maxBytes: 1000, truncate: true }, true);
      expect(cut.body.length).toBe(1000);
      const started = Date.now();
      expect((await failure(egressRequest(silent.url, { method: 'GET', timeoutMs: 300, maxBytes: 1000 }, true)))!.reason).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await Promise.all([target.close(), redirecting.close(), large.close(), silent.close()]);
    }
  });
});
