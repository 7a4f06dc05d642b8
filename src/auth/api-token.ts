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
 * The one scope of provisioning routes (access rule `scim`; SCIM at /scim/v2, docs/identity.md):
 * reading and writing people's accounts, their deactivation included. Only a token that names it
 * exactly holds it: `*:write` covers the /v4 resources, not provisioning.
 */
export const SCIM_SCOPE = 'scim';

/**
 * The scope that lets an API token write privilege-bearing fields (docs/security.md,
 * "Privileges"): IsAdmin, a Password, and an administrator's UserName or UserEmail. It grants no
 * route by itself and `*:write` does not include it: a token holding it can make anyone an
 * administrator of the site, or sign in as them.
 */
export const ADMIN_SCOPE = 'admin';

/**
 * The scope a /v4 request needs (docs/identity.md, "Scopes"): `<kind>:read` for GET and HEAD,
 * `<kind>:write` for every other method, where the kind is the first path segment after /v4
 * (`/v4/goals/7` → `goals`) — except delta sync, `/v4/sync/<kind>`, which needs the read scope of
 * the collection it serves (docs/security.md: sync follows each collection's own scopes). Null for
 * paths no token may use. (A provisioning route needs SCIM_SCOPE, by its access rule: auth.guard.ts.)
 */
export function scopeFor(method: string, path: string): string | null {
  const clean = path.split('?')[0].toLowerCase();
  const m = /^\/v4\/([a-z0-9-]+)(?:\/([a-z0-9-]+))?/.exec(clean);
  if (!m) return null;
  const kind = m[1] === 'sync' ? m[2] : m[1];
  if (kind === undefined || CREDENTIAL_KINDS.has(kind)) return null;
  const verb = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
  return `${kind}:${verb}`;
}

/** Whether granted scopes cover a needed one: `kind:write` covers `kind:read`; `*:read` / `*:write` cover every kind; `scim` only itself. */
export function scopeGranted(granted: readonly string[], needed: string): boolean {
  if (needed === SCIM_SCOPE) return granted.includes(SCIM_SCOPE);
  const [kind, verb] = needed.split(':');
  const ok = (k: string) => granted.includes(`${k}:${verb}`) || (verb === 'read' && granted.includes(`${k}:write`));
  return ok(kind) || ok('*');
}

/** The shape of one scope: `<kind>:read`, `<kind>:write` (kind `*` for every kind), `scim` or `admin`; the kind must also be one the service has. */
export const SCOPE_PATTERN = /^(?:scim|admin|(?:[a-z0-9-]+|\*):(?:read|write))$/;

/**
 * What the OpenAPI document says `Scopes` is: one or more scopes of SCOPE_PATTERN's shape separated
 * by blanks, as parseScopes reads them (the service also checks each kind exists).
 */
export const SCOPES_PATTERN = ((s: string) => `^\\s*${s}(?:\\s+${s})*\\s*$`)(`(?:${SCOPE_PATTERN.source.slice(1, -1)})`);

/** Parses a scope list (space-separated, as OAuth writes scopes); duplicates removed, order kept. */
export function parseScopes(raw: string): string[] {
  return [...new Set(raw.split(/\s+/).filter(Boolean))];
}
