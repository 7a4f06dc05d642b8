import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The one egress guard (docs/security.md, "The network egress"): every request the service sends
 * out on behalf of a site — webhook deliveries, an identity provider's discovery document and key
 * set — goes through `egressRequest`, so a site administrator cannot point the service at its own
 * network, at a cloud metadata endpoint, or at the rest of the world's reserved address space.
 *
 * - **Which addresses.** Only what ipaddr.js (a maintained table of the IANA special-purpose
 *   registries) names `unicast` is reached: loopback, private (RFC 1918, unique-local), link-local
 *   (with the metadata address 169.254.169.254), carrier-grade NAT, "this network", broadcast,
 *   multicast, documentation and benchmarking ranges, 6to4, Teredo, NAT64, IPv4-translated and every
 *   other reserved range are refused. An IPv4-mapped IPv6 address is judged as the IPv4 address it
 *   carries. `EGRESS_ALLOW_PRIVATE=true` (tests, closed networks) lets loopback, private, link-local
 *   and reserved targets through, but never the unspecified address, broadcast, multicast or a
 *   cloud metadata address.
 * - **Checked on the address connected to.** A name is resolved by the guard's own `lookup`, which
 *   refuses the connection when any address it resolves to is refused: a name that answers a public
 *   address to a check and a private one at connect time (DNS rebinding) gains nothing, since the
 *   check is the connect. A literal address in the URL is checked before the connect.
 * - **No redirects** (a 3xx is an answer, never followed), **bounded time** (one deadline for the
 *   whole exchange, connect to last byte) and **bounded size** (the answer is cut off, and the
 *   request fails, past `maxBytes`).
 * - **Nothing echoed.** An EgressError's message says what failed in the service's own words (the
 *   status, "timed out", "refused address"); what the remote answered is never part of it, so a
 *   caller cannot use the service to read an internal page through an error.
 */

/** What `EgressGuard.request` sends. */
export interface EgressRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The whole exchange, from connect to the last byte of the answer. */
  timeoutMs: number;
  /** The most bytes of answer body read; more fails the request (`too-large`), or with `truncate` ends the reading there. */
  maxBytes: number;
  /** Past `maxBytes`, answer what was read instead of failing (a webhook receiver's answer, of which only the status counts). */
  truncate?: boolean;
}

/** A remote answer: its status, headers and body (at most `maxBytes`). */
export interface EgressAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type EgressFailure = 'invalid-url' | 'refused-address' | 'timeout' | 'too-large' | 'network';

/** A request the guard refused or that failed; `message` quotes nothing the remote sent. */
export class EgressError extends Error {
  constructor(
    readonly reason: EgressFailure,
    message: string,
  ) {
    super(message);
    this.name = 'EgressError';
  }
}

/** Cloud metadata endpoints (AWS/GCP/Azure/OpenStack, AWS IPv6, Alibaba): refused even with EGRESS_ALLOW_PRIVATE. */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);
/** Ranges refused whatever the setting: they never name one reachable host. */
const NEVER = new Set(['unspecified', 'broadcast', 'multicast']);

/**
 * Why a connection to `address` is refused (the range's name, e.g. `private`, `reserved`,
 * `metadata`), or null when it is allowed.
 */
export function refusedRange(address: string, allowPrivate: boolean): string | null {
  if (!ipaddr.isValid(address)) return 'not an address';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const normal = parsed.toString();
  if (METADATA.has(normal)) return 'metadata';
  const range = parsed.range();
  if (range === 'unicast') return null;
  if (allowPrivate && !NEVER.has(range)) return null;
  return range;
}

/** The host of a URL as `net` sees it: brackets of an IPv6 literal removed. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * What is wrong with a URL the service is asked to call later (a webhook URL, an issuer), as
 * written: not absolute http(s), credentials in it, a literal address the guard refuses, or a
 * `localhost` name. Null when nothing is. Where a name resolves to is checked at every connect.
 */
export function egressUrlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use http or https';
  if (url.username || url.password) return 'must not carry credentials';
  const host = hostOf(url);
  const refused = isIP(host) ? refusedRange(host, allowPrivate) : !allowPrivate && (host === 'localhost' || host.endsWith('.localhost')) ? 'loopback' : null;
  if (refused)
    return `points to a ${refused} address, which the service does not call (loopback, private, link-local, metadata and reserved ranges are refused; EGRESS_ALLOW_PRIVATE=true allows private targets)`;
  return null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for http.request that refuses the connection when the name resolves to a refused address. */
function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, []);
      const refused = addresses.map((a) => refusedRange(a.address, allowPrivate)).find((r) => r !== null);
      if (refused)
        return callback(Object.assign(new EgressError('refused-address', `the host resolves to a ${refused} address`), { code: 'EREFUSEDADDRESS' }), []);
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** Sends one request through the guard; answers the remote's status, headers and (bounded) body, or throws an EgressError. */
export function egressRequest(rawUrl: string, r: EgressRequest, allowPrivate: boolean): Promise<EgressAnswer> {
  return new Promise((resolve, reject) => {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return reject(new EgressError('invalid-url', 'the URL is not valid'));
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return reject(new EgressError('invalid-url', 'the URL is not http or https'));
    if (url.username || url.password) return reject(new EgressError('invalid-url', 'the URL carries credentials'));
    const host = hostOf(url);
    const literal = isIP(host) ? refusedRange(host, allowPrivate) : null;
    if (literal) return reject(new EgressError('refused-address', `the URL names a ${literal} address`));
    let settled = false;
    const fail = (e: EgressError) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy();
      reject(e);
    };
    const deadline = setTimeout(() => fail(new EgressError('timeout', `no complete answer within ${r.timeoutMs} ms`)), r.timeoutMs);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers: Record<string, string | number> = { 'user-agent': 'pms-api', ...(r.headers ?? {}) };
    if (r.body !== undefined) headers['content-length'] = Buffer.byteLength(r.body);
    const req = send(url, { method: r.method, headers, lookup: guardedLookup(allowPrivate) as never }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = () => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      };
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > r.maxBytes) {
          if (!r.truncate) return fail(new EgressError('too-large', `the answer is larger than ${r.maxBytes} bytes`));
          chunks.push(chunk.subarray(0, Math.max(0, chunk.length - (size - r.maxBytes))));
          answer();
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', answer);
      res.on('error', () => fail(new EgressError('network', 'the connection broke while reading the answer')));
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e instanceof EgressError) return fail(e);
      fail(new EgressError('network', `the connection failed (${safeCode(e)})`));
    });
    req.end(r.body);
  });
}

/** A system error's code (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED…): the service's words, not the remote's. */
function safeCode(e: NodeJS.ErrnoException): string {
  return typeof e.code === 'string' && /^[A-Z0-9_]{2,40}$/.test(e.code) ? e.code : 'network error';
}
