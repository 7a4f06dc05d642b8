import { Inject, Injectable, Logger } from '@nestjs/common';
import { createRemoteJWKSet, customFetch, decodeJwt, errors, jwtVerify, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EgressError, egressRequest } from '../common/egress/egress-guard.js';
import { UnauthorizedError } from '../common/errors/errors.js';

/** The signature algorithms accepted from an identity provider (asymmetric only: no shared secret). */
export const OIDC_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];
/** Providers whose keys are kept at once. */
const MAX_ISSUERS = 1000;
/** The most bytes of a discovery document or key set read (real ones are a few KB). */
const MAX_DOCUMENT_BYTES = 256 * 1024;

type KeySet = ReturnType<typeof createRemoteJWKSet>;

/**
 * Verifies an identity provider's ID or access token (docs/identity.md, "Single sign-on") with
 * `jose`: the provider's JWKS, found through its `/.well-known/openid-configuration`, is fetched
 * through the egress guard (docs/security.md: no private or reserved address, no redirect, at most
 * OIDC_FETCH_TIMEOUT_MS and 256 KiB), kept for OIDC_JWKS_CACHE_MS and fetched again sooner when a
 * token names a key id it does not hold (a rotation). Only a registered issuer is ever fetched (the
 * caller resolver finds its configuration first). `iss`, `aud`, `exp`, `nbf` and `iat` are checked
 * with OIDC_CLOCK_SKEW_SECONDS of tolerance: `exp` and `iat` are required, and an `iat` in the
 * future beyond the tolerance is refused. A failure's 401 says what failed in the service's words;
 * nothing the provider's address answered is quoted (it is logged at debug).
 */
@Injectable()
export class OidcVerifier {
  private readonly logger = new Logger('OidcVerifier');
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
        requiredClaims: ['exp', 'iat'],
      });
      if (typeof payload.iat !== 'number' || payload.iat > Date.now() / 1000 + this.config.oidcClockSkewSeconds)
        throw new UnauthorizedError('The identity provider token is not valid here (iat check failed: issued in the future)');
      return payload;
    } catch (e) {
      if (e instanceof UnauthorizedError) throw e;
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
      const answer = await this.fetchGuarded(url);
      if (answer.status !== 200) throw new EgressError('network', `it answered ${answer.status}`);
      doc = JSON.parse(answer.body.toString('utf8')) as typeof doc;
    } catch (e) {
      this.logger.debug(`discovery of ${issuer} failed: ${(e as Error).message}`);
      const why = e instanceof EgressError ? e.message : 'its answer is not a JSON discovery document';
      throw new UnauthorizedError(`The identity provider could not be used to verify the token (discovery document: ${why})`);
    }
    // OpenID Connect Discovery §4.3: the document must name the issuer it was fetched for.
    if (doc === null || typeof doc !== 'object' || doc.issuer !== issuer || typeof doc.jwks_uri !== 'string') {
      throw new UnauthorizedError('The identity provider publishes no usable discovery document (its issuer or jwks_uri is missing or different)');
    }
    let jwksUri: URL;
    try {
      jwksUri = new URL(doc.jwks_uri);
    } catch {
      throw new UnauthorizedError('The identity provider publishes no usable discovery document (jwks_uri is not a URL)');
    }
    return createRemoteJWKSet(jwksUri, {
      timeoutDuration: this.config.oidcFetchTimeoutMs,
      cacheMaxAge: this.config.oidcJwksCacheMs,
      cooldownDuration: Math.min(30_000, this.config.oidcJwksCacheMs),
      // The key set through the same guard; jose reads the Response it is given.
      [customFetch]: async (href: string) => {
        const answer = await this.fetchGuarded(href).catch((e: unknown) => {
          this.logger.debug(`key set of ${issuer} failed: ${(e as Error).message}`);
          throw new errors.JOSEError(`the key set could not be fetched (${e instanceof EgressError ? e.message : 'request failed'})`);
        });
        return new Response(new Uint8Array(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
      },
    });
  }

  /** A GET of a provider's document through the egress guard. */
  private fetchGuarded(url: string) {
    return egressRequest(
      url,
      { method: 'GET', headers: { accept: 'application/json' }, timeoutMs: this.config.oidcFetchTimeoutMs, maxBytes: MAX_DOCUMENT_BYTES },
      this.config.egressAllowPrivate,
    );
  }
}

function reason(e: unknown): string {
  if (e instanceof errors.JWTExpired) return 'The identity provider token has expired';
  if (e instanceof errors.JWTClaimValidationFailed) return `The identity provider token is not valid here (${e.claim} check failed)`;
  if (e instanceof errors.JWKSNoMatchingKey) return 'The identity provider token is signed by a key the provider does not publish';
  if (e instanceof errors.JWKSTimeout) return 'The identity provider did not answer in time to verify the token';
  return 'The identity provider token is not valid';
}
