import { Inject, Injectable } from '@nestjs/common';
import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { UnauthorizedError } from '../common/errors/errors.js';

/** What an access token carries (docs/decisions.md, "Tokens"): no server-side session. */
export interface TokenClaims {
  /** Login account id. */
  sub: string;
  /** Site the token acts in. */
  sid: string;
  /**
   * The account's token generation when the token was issued (claim `gen`; absent in tokens issued
   * before generations existed, read as 0). A token of an earlier generation than the account's
   * is refused by the caller resolver.
   */
  gen: number;
}

export const TOKEN_ISSUER = 'pms-api';
export const TOKEN_AUDIENCE = 'pms-api:v4';
/** Clock skew tolerated between the instances that sign and verify (iat slightly in the future). */
const CLOCK_TOLERANCE_S = 30;
/** Verified tokens remembered (docs/performance.md): enough for every client of a busy instance. */
const VERIFIED_MAX = 10_000;
const VERIFIED_TTL_MS = 60_000;

type VerifiedClaims = TokenClaims & { exp: number };

/**
 * Issues and verifies the HS256 bearer tokens. The HMAC key is a KeyObject made once: given a
 * string, jsonwebtoken first tries to read it as a public key on every call, which costs more
 * than the HMAC itself. A token is only accepted with the expected issuer and audience and with
 * numeric `iat` and `exp` claims: a token without `exp` would be valid forever.
 */
@Injectable()
export class TokenService {
  private readonly key: KeyObject;
  /**
   * Tokens whose signature and claims were checked, by their exact text: the HMAC, base64 and
   * JSON parsing of a token are done once per token and process, not once per request. A
   * remembered token is still refused from its `exp` on; nothing a token says can change while
   * its text stays the same, and who it names is resolved anew by the caller cache.
   */
  private readonly verified = new LRUCache<string, VerifiedClaims>({ max: VERIFIED_MAX, ttl: VERIFIED_TTL_MS });

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.key = createSecretKey(Buffer.from(config.jwtSecret, 'utf8'));
  }

  issue(claims: TokenClaims): { access_token: string; expires_in: number } {
    const access_token = jwt.sign({ sid: claims.sid, gen: claims.gen }, this.key, {
      algorithm: 'HS256',
      subject: claims.sub,
      expiresIn: this.config.tokenTtlSeconds,
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
    });
    return { access_token, expires_in: this.config.tokenTtlSeconds };
  }

  /**
   * The claims of a token this service verified before (by its exact text), or null when it did
   * not: what a request with a known token needs, without decoding the token to learn its issuer
   * first (AuthGuard). A remembered token past its `exp` is a 401 saying so.
   */
  remembered(token: string): VerifiedClaims | null {
    const known = this.verified.get(token);
    if (!known) return null;
    if (Math.floor(Date.now() / 1000) >= known.exp) throw expired();
    return known;
  }

  /** The claims of a valid token, or a 401 (an expired token says so, to prompt a new login). */
  verify(token: string): VerifiedClaims {
    const known = this.remembered(token);
    if (known) return known;
    const claims = this.check(token);
    this.verified.set(token, claims);
    return claims;
  }

  private check(token: string): VerifiedClaims {
    let payload: jwt.JwtPayload;
    try {
      payload = jwt.verify(token, this.key, {
        algorithms: ['HS256'],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        clockTolerance: 0,
      }) as jwt.JwtPayload;
    } catch (e) {
      if ((e as Error).name === 'TokenExpiredError') throw expired();
      throw new UnauthorizedError('The bearer token is not valid');
    }
    const { sub, sid, exp, iat, gen = 0 } = payload as { sub?: unknown; sid?: unknown; exp?: unknown; iat?: unknown; gen?: unknown };
    const now = Math.floor(Date.now() / 1000);
    if (
      typeof sub !== 'string' ||
      typeof sid !== 'string' ||
      typeof exp !== 'number' ||
      typeof iat !== 'number' ||
      !Number.isFinite(exp) ||
      !Number.isFinite(iat) ||
      iat > now + CLOCK_TOLERANCE_S ||
      exp <= iat ||
      !Number.isSafeInteger(gen) ||
      (gen as number) < 0
    ) {
      throw new UnauthorizedError('The bearer token is not valid');
    }
    return Object.freeze({ sub, sid, exp, gen: gen as number });
  }
}

const expired = () => new UnauthorizedError('The bearer token has expired; request a new one at POST /v4/auth/token');
