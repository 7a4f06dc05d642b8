import { jest } from '@jest/globals';
import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { loadConfig } from '../config/config.js';
import { UnauthorizedError } from '../common/errors/errors.js';
import { TOKEN_AUDIENCE, TOKEN_ISSUER, TokenService } from './token.service.js';

const SECRET = 's'.repeat(40);
const service = new TokenService(loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'sqlite::memory:', JWT_SECRET: SECRET, TOKEN_TTL_SECONDS: '600' }));
const now = () => Math.floor(Date.now() / 1000);

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** A token signed with the real secret, with exactly the claims given (no library adds or checks any). */
function signed(payload: Record<string, unknown>, secret = SECRET, alg: 'HS256' | 'HS512' = 'HS256'): string {
  const head = `${b64({ alg, typ: 'JWT' })}.${b64(payload)}`;
  return `${head}.${createHmac(alg === 'HS256' ? 'sha256' : 'sha512', secret)
    .update(head)
    .digest('base64url')}`;
}

function refusal(token: string): string {
  try {
    service.verify(token);
  } catch (e) {
    expect(e).toBeInstanceOf(UnauthorizedError);
    return (e as UnauthorizedError).detail ?? '';
  }
  throw new Error('the token was accepted');
}

const good = () => ({ sub: 'user-1', sid: 'site-1', iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE, iat: now(), exp: now() + 600 });

describe('TokenService', () => {
  it('issues tokens with sub, sid, gen, iss, aud, iat and exp that it then accepts', () => {
    const { access_token, expires_in } = service.issue({ sub: 'user-1', sid: 'site-1', gen: 3 });
    expect(expires_in).toBe(600);
    const claims = jwt.decode(access_token) as Record<string, unknown>;
    expect(claims).toMatchObject({ sub: 'user-1', sid: 'site-1', gen: 3, iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE });
    expect(claims.exp).toBe((claims.iat as number) + 600);
    expect(service.verify(access_token)).toEqual({ sub: 'user-1', sid: 'site-1', exp: claims.exp, gen: 3 });
    // A token from before generations existed is of generation 0.
    expect(service.verify(signed(good()))).toMatchObject({ sub: 'user-1', sid: 'site-1', gen: 0 });
  });

  it('refuses a generation that is not a whole number from 0', () => {
    expect(refusal(signed({ ...good(), gen: -1 }))).toMatch(/not valid/);
    expect(refusal(signed({ ...good(), gen: '1' }))).toMatch(/not valid/);
    expect(refusal(signed({ ...good(), gen: 1.5 }))).toMatch(/not valid/);
  });

  it('refuses a token signed with the real secret but without exp or iat', () => {
    const { exp: _exp, ...noExp } = good();
    const { iat: _iat, ...noIat } = good();
    expect(refusal(signed(noExp))).toMatch(/not valid/);
    expect(refusal(signed(noIat))).toMatch(/not valid/);
    expect(refusal(signed({ ...good(), exp: String(now() + 600) }))).toMatch(/not valid/);
  });

  it('refuses a missing or another issuer or audience', () => {
    const { iss: _iss, ...noIss } = good();
    const { aud: _aud, ...noAud } = good();
    expect(refusal(signed(noIss))).toMatch(/not valid/);
    expect(refusal(signed({ ...good(), iss: 'someone-else' }))).toMatch(/not valid/);
    expect(refusal(signed(noAud))).toMatch(/not valid/);
    expect(refusal(signed({ ...good(), aud: 'other' }))).toMatch(/not valid/);
  });

  it('refuses an expired token (saying so), one issued in the future, and one without sub or sid', () => {
    expect(refusal(signed({ ...good(), iat: now() - 700, exp: now() - 100 }))).toMatch(/expired/);
    expect(refusal(signed({ ...good(), iat: now() + 3600, exp: now() + 7200 }))).toMatch(/not valid/);
    const { sub: _sub, ...noSub } = good();
    const { sid: _sid, ...noSid } = good();
    expect(refusal(signed(noSub))).toMatch(/not valid/);
    expect(refusal(signed(noSid))).toMatch(/not valid/);
  });

  it('refuses another secret, another algorithm and garbage', () => {
    expect(refusal(signed(good(), 'x'.repeat(40)))).toMatch(/not valid/);
    expect(refusal(signed(good(), SECRET, 'HS512'))).toMatch(/not valid/);
    const [h, p] = signed(good()).split('.');
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`;
    expect(refusal(none)).toMatch(/not valid/);
    expect(refusal(`${h}.${p}.AAAA`)).toMatch(/not valid/);
    expect(refusal('not.a.jwt')).toMatch(/not valid/);
  });

  describe('remembering verified tokens', () => {
    afterEach(() => jest.useRealTimers());

    it('checks a token once, then answers the same claims without verifying it again', () => {
      const sut = new TokenService(loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'sqlite::memory:', JWT_SECRET: SECRET }));
      const token = signed(good());
      const spy = jest.spyOn(jwt, 'verify');
      try {
        const first = sut.verify(token);
        expect(sut.verify(token)).toEqual(first);
        expect(spy).toHaveBeenCalledTimes(1);
      } finally {
        spy.mockRestore();
      }
    });

    it('answers a remembered token without decoding it, and null for any text it has not verified', () => {
      const sut = new TokenService(loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'sqlite::memory:', JWT_SECRET: SECRET }));
      const token = signed(good());
      expect(sut.remembered(token)).toBeNull();
      const claims = sut.verify(token);
      const spy = jest.spyOn(jwt, 'verify');
      const decode = jest.spyOn(jwt, 'decode');
      try {
        expect(sut.remembered(token)).toBe(claims);
        expect(spy).not.toHaveBeenCalled();
        expect(decode).not.toHaveBeenCalled();
      } finally {
        spy.mockRestore();
        decode.mockRestore();
      }
      expect(sut.remembered(`${token}x`)).toBeNull();
      expect(sut.remembered(signed({ ...good(), sub: 'someone-else' }))).toBeNull();
    });

    it('still refuses a remembered token once it has expired', () => {
      const sut = new TokenService(loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'sqlite::memory:', JWT_SECRET: SECRET }));
      const token = signed({ ...good(), exp: now() + 2 });
      expect(sut.verify(token)).toMatchObject({ sub: 'user-1' });
      jest.useFakeTimers({ now: Date.now() + 3000 });
      expect(() => sut.verify(token)).toThrow(/expired/);
      expect(() => sut.remembered(token)).toThrow(/expired/);
    });

    it('never takes a tampered token for a remembered one', () => {
      const sut = new TokenService(loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'sqlite::memory:', JWT_SECRET: SECRET }));
      const token = signed(good());
      sut.verify(token);
      const [h, p, sig] = token.split('.');
      const forged = `${h}.${b64({ ...good(), sub: 'someone-else' })}.${sig}`;
      expect(() => sut.verify(forged)).toThrow(/not valid/);
      expect(() => sut.verify(`${h}.${p}.${sig}x`)).toThrow(/not valid/);
    });
  });
});
