import { TooManyRequestsError } from '../errors/errors.js';
import { MemoryCounterStore } from './counter-store.js';
import { IP_FAILURE_LIMIT, LoginThrottle, USER_FAILURE_LIMIT, WINDOW_MS } from './login-throttle.js';

describe('LoginThrottle', () => {
  let store: MemoryCounterStore;
  let sut: LoginThrottle;
  let now: number;
  beforeEach(() => {
    store = new MemoryCounterStore();
    now = 1_000_000;
    store.now = () => now;
    sut = new LoginThrottle(store);
  });

  const fail = async (user: string, ip = '10.0.0.1') => {
    try {
      await sut.recordFailure(user, ip);
      return null;
    } catch (e) {
      return e as TooManyRequestsError;
    }
  };

  it('locks a user name at its 10th failure within 15 minutes, case-insensitively', async () => {
    for (let i = 1; i < USER_FAILURE_LIMIT; i++) expect(await fail(i % 2 ? 'Alice' : 'alice')).toBeNull();
    const locked = await fail('ALICE');
    expect(locked).toBeInstanceOf(TooManyRequestsError);
    expect(Number(locked!.headers['Retry-After'])).toBe(WINDOW_MS / 1000);
    await expect(sut.assertAllowed('alice', '10.0.0.9')).rejects.toThrow(TooManyRequestsError);
    await expect(sut.assertAllowed('bob', '10.0.0.1')).resolves.toBeUndefined();
  });

  it('unlocks when the window has passed, with Retry-After counting down meanwhile', async () => {
    for (let i = 0; i < USER_FAILURE_LIMIT; i++) await fail('carol');
    now += WINDOW_MS - 60_000;
    const e = await sut.assertAllowed('carol', 'x').catch((err: TooManyRequestsError) => err);
    expect((e as TooManyRequestsError).headers['Retry-After']).toBe('60');
    now += 60_000;
    await expect(sut.assertAllowed('carol', 'x')).resolves.toBeUndefined();
  });

  it('forgets the failures of a user name after a successful login', async () => {
    for (let i = 0; i < USER_FAILURE_LIMIT - 1; i++) await fail('dave');
    await sut.recordSuccess('dave');
    expect(await fail('dave')).toBeNull();
  });

  it('locks one address spraying many user names at the address limit', async () => {
    for (let i = 1; i < IP_FAILURE_LIMIT; i++) expect(await fail(`user${i}`, '192.0.2.7')).toBeNull();
    expect(await fail('user-last', '192.0.2.7')).toBeInstanceOf(TooManyRequestsError);
    await expect(sut.assertAllowed('fresh-user', '192.0.2.7')).rejects.toThrow(TooManyRequestsError);
    await expect(sut.assertAllowed('fresh-user', '192.0.2.8')).resolves.toBeUndefined();
  });
});
