import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API token secrets (docs/identity.md, "Token formats"): `pms_` + 40 base62 characters of 238
 * random bits + 6 base62 characters of their CRC-32. The prefix lets secret scanners find a leaked
 * token; the checksum lets them (and the service, before any database read) tell a real-looking
 * token from a typo. Only the SHA-256 of the secret is stored: with this much randomness a slow
 * hash adds nothing.
 */
export const API_TOKEN_PREFIX = 'pms_';
const BODY = 40;
const CHECK = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHAPE = new RegExp(`^${API_TOKEN_PREFIX}[0-9A-Za-z]{${BODY + CHECK}}$`);

function base62(n: bigint, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

const checksum = (body: string) => base62(BigInt(crc32(body)), CHECK);

/** A new secret. */
export function newApiTokenSecret(): string {
  const body = base62(BigInt('0x' + randomBytes(32).toString('hex')), BODY);
  return `${API_TOKEN_PREFIX}${body}${checksum(body)}`;
}

/** Whether a bearer value is shaped like an API token (prefix, length, alphabet, checksum). */
export function isApiTokenSecret(value: string): boolean {
  if (!SHAPE.test(value)) return false;
  const body = value.slice(API_TOKEN_PREFIX.length, API_TOKEN_PREFIX.length + BODY);
  return value.slice(-CHECK) === checksum(body);
}

/** What is stored of a secret. */
export const apiTokenHash = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** The part shown in lists to recognise a token: the prefix and 8 more characters. */
export const apiTokenHint = (secret: string): string => secret.slice(0, API_TOKEN_PREFIX.length + 8);

// ------------------------------------------------------------------ scopes

/** Route kinds no API token may call, whatever its scopes: credentials are managed by people. */
export const CREDENTIAL_KINDS: ReadonlySet<string> = new Set(['apitokens', 'identityproviders', 'auth']);

/**
 * The one scope of SCIM provisioning (`/scim/v2`, docs/identity.md): reading and writing people's
 * accounts, their deactivation included. Only a token that names it exactly holds it: `*:write`
 * covers the /v4 resources, not provisioning.
 */
export const SCIM_SCOPE = 'scim';

/**
 * The scope a request needs (docs/identity.md, "Scopes"): `<kind>:read` for GET and HEAD,
 * `<kind>:write` for every other method, where the kind is the first path segment after /v4
 * (`/v4/goals/7` → `goals`); `scim` for every request under /scim/v2. Null for paths no token may use.
 */
export function scopeFor(method: string, path: string): string | null {
  const clean = path.split('?')[0].toLowerCase();
  if (clean === '/scim/v2' || clean.startsWith('/scim/v2/')) return SCIM_SCOPE;
  const m = /^\/v4\/([a-z0-9-]+)/.exec(clean);
  if (!m || CREDENTIAL_KINDS.has(m[1])) return null;
  const verb = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
  return `${m[1]}:${verb}`;
}

/** Whether granted scopes cover a needed one: `kind:write` covers `kind:read`; `*:read` / `*:write` cover every kind; `scim` only itself. */
export function scopeGranted(granted: readonly string[], needed: string): boolean {
  if (needed === SCIM_SCOPE) return granted.includes(SCIM_SCOPE);
  const [kind, verb] = needed.split(':');
  const ok = (k: string) => granted.includes(`${k}:${verb}`) || (verb === 'read' && granted.includes(`${k}:write`));
  return ok(kind) || ok('*');
}

/** Parses a scope list (space-separated, as OAuth writes scopes); duplicates removed, order kept. */
export function parseScopes(raw: string): string[] {
  return [...new Set(raw.split(/\s+/).filter(Boolean))];
}
