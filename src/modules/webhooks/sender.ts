import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isPrivateAddress } from './target-guard.js';

export interface SendResult {
  /** The receiver's status code, null when none came (network error, timeout, refused address). */
  status: number | null;
  ok: boolean;
  durationMs: number;
  error: string | null;
}

/**
 * POSTs one signed message (docs/events.md). Redirects are not followed: a 3xx is a failed
 * attempt. The connection goes only to addresses the guard allows; the receiver has `timeoutMs`
 * to answer; its body is read and dropped.
 */
export function send(url: string, headers: Record<string, string>, body: string, timeoutMs: number, allowPrivate: boolean): Promise<SendResult> {
  const started = performance.now();
  const done = (status: number | null, error: string | null): SendResult => ({
    status,
    ok: status !== null && status >= 200 && status < 300,
    durationMs: Math.round(performance.now() - started),
    error: error ?? (status !== null && (status < 200 || status >= 300) ? `the receiver answered ${status}` : null),
  });
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve(done(null, 'invalid URL'));
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!allowPrivate && isIP(host) && isPrivateAddress(host)) return resolve(done(null, `${host} is a private address`));
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'pms-api-webhooks', ...headers, 'content-length': Buffer.byteLength(body) },
        lookup: guardedLookup(allowPrivate) as never,
        timeout: timeoutMs,
      },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve(done(res.statusCode ?? null, null)));
        res.on('error', (e) => resolve(done(res.statusCode ?? null, e.message)));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e) => resolve(done(null, e.message)));
    req.end(body);
  });
}
