import { TooManyRequestsError } from '../errors/errors.js';
import { IP_FAILURE_LIMIT, LoginThrottle, USER_FAILURE_LIMIT, WINDOW_MS } from './login-throttle.js';

describe('LoginThrottle', () => {
  let sut: LoginThrottle;
  let now: number;
  beforeEach(() => {
    sut = new LoginThrottle();
    now = 1_000_000;
    sut.now = () => now;
  });

  const fail = (user: string, ip = '10.0.0.1') => {
    try {
      sut.recordFailure(user, ip);
      return null;
    } catch (e) {
      return e as TooManyRequestsError;
    }
  };

  it('locks a user name at its 10th failure within 15 minutes, case-insensitively', () => {
    for (let i = 1; i < USER_FAILURE_LIMIT; i++) expect(fail(i % 2 ? 'Alice' : 'alice')).toBeNull();
    const locked = fail('ALICE');
    expect(locked).toBeInstanceOf(TooManyRequestsError);
    expect(Number(locked!.headers['Retry-After'])).toBe(WINDOW_MS / 1000);
    expect(() => sut.assertAllowed('alice', '10.0.0.9')).toThrow(TooManyRequestsError);
    expect(() => sut.assertAllowed('bob', '10.0.0.1')).not.toThrow();
  });

  it('unlocks when the window has passed, with Retry-After counting down meanwhile', () => {
    for (let i = 0; i < USER_FAILURE_LIMIT - 1; i++) fail('carol');
    fail('carol');
    now += WINDOW_MS - 60_000;
    let e: TooManyRequestsError | null = null;
    try {
      sut.assertAllowed('carol', 'x');
    } catch (err) {
      e = err as TooManyRequestsError;
    }
    expect(e?.headers['Retry-After']).toBe('60');
    now += 60_000;
    expect(() => sut.assertAllowed('carol', 'x')).not.toThrow();
  });

  it('forgets the failures of a user name after a successful login', () => {
    for (let i = 0; i < USER_FAILURE_LIMIT - 1; i++) fail('dave');
    sut.recordSuccess('dave');
    expect(fail('dave')).toBeNull();
  });

  it('locks one address spraying many user names at the address limit', () => {
    for (let i = 1; i < IP_FAILURE_LIMIT; i++) expect(fail(`user${i}`, '192.0.2.7')).toBeNull();
    expect(fail('user-last', '192.0.2.7')).toBeInstanceOf(TooManyRequestsError);
    expect(() => sut.assertAllowed('fresh-user', '192.0.2.7')).toThrow(TooManyRequestsError);
    expect(() => sut.assertAllowed('fresh-user', '192.0.2.8')).not.toThrow();
  });
});
