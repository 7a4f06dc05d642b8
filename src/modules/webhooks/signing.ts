import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signatures (docs/events.md, "Signatures"): the signed content is
 * `{webhook-id}.{webhook-timestamp}.{body}`, the key the base64 bytes after `whsec_`, the
 * signature `v1,` + base64 HMAC-SHA256; several space-separated while a rotated secret overlaps.
 */
export const SECRET_PREFIX = 'whsec_';
export const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/;

/** A new signing secret: 32 random bytes. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function signature(secret: string, msgId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${msgId}.${timestamp}.${body}`).digest('base64');
}

/** The three headers of one message, signed with every secret in force. */
export function signedHeaders(secrets: readonly string[], msgId: string, body: string, now = new Date()): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signature(s, msgId, timestamp, body)).join(' '),
  };
}
