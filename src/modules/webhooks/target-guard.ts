import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * The SSRF guard (docs/events.md, "Where deliveries may go"): a webhook may not point the service
 * at its own network. Addresses refused unless WEBHOOK_ALLOW_PRIVATE=true: loopback, private
 * (RFC 1918, unique-local), link-local (which holds the cloud metadata address 169.254.169.254),
 * carrier-grade NAT, "this network", multicast and reserved ranges, and the IPv4-mapped forms of
 * all of them. The check runs on every address the name resolves to, at connect time, so a name
 * that changes its answer after the check (DNS rebinding) is caught too.
 */
const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv6');

/** Whether deliveries to this address are refused. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) return BLOCKED.check(address, 'ipv6');
  return true;
}

/** What is wrong with a webhook URL as written (scheme, credentials, a literal private address), or null. */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'URL must be an absolute http or https URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'URL must use http or https';
  if (url.username || url.password) return 'URL must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) && isPrivateAddress(host))))
    return 'URL points to a loopback, private, link-local or metadata address (set WEBHOOK_ALLOW_PRIVATE=true to allow)';
  return null;
}

export class RefusedAddressError extends Error {}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for http.request that refuses private addresses (unless allowed). */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, []);
      const refused = addresses.find((a) => isPrivateAddress(a.address));
      if (!allowPrivate && refused) {
        return callback(
          Object.assign(new RefusedAddressError(`${hostname} resolves to ${refused.address}, a private address`), { code: 'EREFUSEDADDRESS' }),
          [],
        );
      }
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
