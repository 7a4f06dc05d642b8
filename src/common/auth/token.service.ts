import { Inject, Injectable } from '@nestjs/common';
import jwt from 'jsonwebtoken';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { UnauthorizedError } from '../errors/errors.js';

/** What an access token carries (DESIGN §3): no server-side session. */
export interface TokenClaims {
  /** Login account id. */
  sub: string;
  /** Site the token acts in. */
  sid: string;
}

const ISSUER = 'pms-api';
const AUDIENCE = 'pms-api:v4';

@Injectable()
export class TokenService {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  issue(claims: TokenClaims): { access_token: string; expires_in: number } {
    const access_token = jwt.sign({ sid: claims.sid }, this.config.jwtSecret, {
      algorithm: 'HS256',
      subject: claims.sub,
      expiresIn: this.config.tokenTtlSeconds,
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    return { access_token, expires_in: this.config.tokenTtlSeconds };
  }

  verify(token: string): TokenClaims {
    try {
      const payload = jwt.verify(token, this.config.jwtSecret, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE }) as jwt.JwtPayload;
      if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') throw new Error('claims');
      return { sub: payload.sub, sid: payload.sid };
    } catch (e) {
      if ((e as Error).name === 'TokenExpiredError') throw new UnauthorizedError('The bearer token has expired; request a new one at POST /v4/auth/token');
      throw new UnauthorizedError('The bearer token is not valid');
    }
  }
}
