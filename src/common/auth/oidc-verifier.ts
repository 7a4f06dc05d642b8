import { Inject, Injectable } from '@nestjs/common';
import { createRemoteJWKSet, decodeJwt, errors, jwtVerify, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { UnauthorizedError } from '../errors/errors.js';

/** The signature algorithms accepted from an identity provider (asymmetric only: no shared secret). */
export const OIDC_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];
/** Providers whose keys are kept at once. */
const MAX_ISSUERS = 1000;

type KeySet = ReturnType<typeof createRemoteJWKSet>;

/**
 * Verifies an identity provider's ID or access token (docs/identity.md, "Single sign-on") with
 * `jose`: the provider's JWKS, found through its `/.well-known/openid-configuration`, is fetched
 * with a bounded timeout (OIDC_FETCH_TIMEOUT_MS), kept for OIDC_JWKS_CACHE_MS and fetched again
 * sooner when a token names a key id it does not hold (a rotation). `iss`, `aud`, `exp` and `nbf`
 * are checked with OIDC_CLOCK_SKEW_SECONDS of tolerance; `exp` is required.
 */
@Injectable()
export class OidcVerifier {
  private readonly keySets: LRUCache<string, Promise<KeySet>>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.keySets = new LRUCache({ max: MAX_ISSUERS, ttl: config.oidcJwksCacheMs });
  }

  /** The issuer a JWT names, unverified (to pick the configuration that verifies it); null when it is no JWT. */
  static issuerOf(token: string): string | null {
    try {
      const iss = decodeJwt(token).iss;
      return typeof iss === 'string' ? iss : null;
    } catch {
      return null;
    }
  }

  /** The audiences a JWT names, unverified (to pick the configuration that verifies it). */
  static audiencesOf(token: string): string[] {
    try {
      const aud = decodeJwt(token).aud;
      return typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
    } catch {
      return [];
    }
  }

  /** The verified claims, or 401 saying what is wrong (expired, audience, signature, provider unreachable). */
  async verify(token: string, issuer: string, audiences: readonly string[]): Promise<JWTPayload> {
    const keys = await this.keySetOf(issuer);
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer,
        audience: [...audiences],
        algorithms: OIDC_ALGORITHMS,
        clockTolerance: this.config.oidcClockSkewSeconds,
        requiredClaims: ['exp'],
      });
      return payload;
    } catch (e) {
      throw new UnauthorizedError(reason(e));
    }
  }

  private keySetOf(issuer: string): Promise<KeySet> {
    let found = this.keySets.get(issuer);
    if (!found) {
      found = this.discover(issuer);
      this.keySets.set(issuer, found);
      // A failed discovery is not kept: the next token tries again.
      found.catch(() => this.keySets.get(issuer) === found && this.keySets.delete(issuer));
    }
    return found;
  }

  private async discover(issuer: string): Promise<KeySet> {
    const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    let doc: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(this.config.oidcFetchTimeoutMs), headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      doc = (await res.json()) as typeof doc;
    } catch (e) {
      throw new UnauthorizedError(`The identity provider ${issuer} could not be reached to verify the token (${(e as Error).message})`);
    }
    // OpenID Connect Discovery §4.3: the document must name the issuer it was fetched for.
    if (doc.issuer !== issuer || typeof doc.jwks_uri !== 'string') {
      throw new UnauthorizedError(`The identity provider ${issuer} publishes no usable discovery document`);
    }
    return createRemoteJWKSet(new URL(doc.jwks_uri), {
      timeoutDuration: this.config.oidcFetchTimeoutMs,
      cacheMaxAge: this.config.oidcJwksCacheMs,
      cooldownDuration: Math.min(30_000, this.config.oidcJwksCacheMs),
    });
  }
}

function reason(e: unknown): string {
  if (e instanceof errors.JWTExpired) return 'The identity provider token has expired';
  if (e instanceof errors.JWTClaimValidationFailed) return `The identity provider token is not valid here (${e.claim} check failed)`;
  if (e instanceof errors.JWKSNoMatchingKey) return 'The identity provider token is signed by a key the provider does not publish';
  if (e instanceof errors.JWKSTimeout) return 'The identity provider did not answer in time to verify the token';
  return 'The identity provider token is not valid';
}
