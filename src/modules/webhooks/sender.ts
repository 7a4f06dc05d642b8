import { EgressError, egressRequest } from '../../common/egress/egress-guard.js';

export interface SendResult {
  /** The receiver's status code, null when none came (network error, timeout, refused address). */
  status: number | null;
  ok: boolean;
  durationMs: number;
  error: string | null;
}

/** What is read of a receiver's answer: only its status counts (docs/events.md). */
const ANSWER_READ_BYTES = 4096;

/**
 * POSTs one signed message (docs/events.md) through the egress guard (docs/security.md): only to
 * addresses the guard allows, checked at connect time; redirects are not followed (a 3xx is a
 * failed attempt); the receiver has `timeoutMs` for its whole answer, of which only the status is
 * kept. The attempt's error names what failed in the service's words, never the receiver's.
 */
export async function send(url: string, headers: Record<string, string>, body: string, timeoutMs: number, allowPrivate: boolean): Promise<SendResult> {
  const started = performance.now();
  const done = (status: number | null, error: string | null): SendResult => ({
    status,
    ok: status !== null && status >= 200 && status < 300,
    durationMs: Math.round(performance.now() - started),
    error: error ?? (status !== null && (status < 200 || status >= 300) ? `the receiver answered ${status}` : null),
  });
  try {
    const answer = await egressRequest(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'pms-api-webhooks', ...headers },
        body,
        timeoutMs,
        maxBytes: ANSWER_READ_BYTES,
        truncate: true,
      },
      allowPrivate,
    );
    return done(answer.status, null);
  } catch (e) {
    return done(null, e instanceof EgressError ? e.message : 'the request failed');
  }
}
