import { TooManyRequestsError } from '../common/errors/errors.js';
import { MemoryCounterStore } from './counter-store.js';
import { ADDRESS_PAUSE_MS, IP_FAILURE_LIMIT, LoginThrottle, USER_FAILURE_LIMIT, WINDOW_MS } from './login-throttle.js';
import { userNameKey } from './user-name.js';

describe('LoginThrottle', () => {
  let store: MemoryCounterStore;
  let sut: LoginThrottle;
  let now: number;
  beforeEach(() => {
    store = new MemoryCounterStore();
    now = 1_000_000;
    store.now = () => now;
    sut = new LoginThrottle(store);
    pauses = [];
    sut.pause = async (ms) => {
      pauses.push(ms);
    };
  });
  let pauses: number[];

  // As the login does: the name's key, and the account it matched when it matched one.
  const fail = async (user: string, ip = '10.0.0.1', accountId?: string) => {
    try {
      await sut.recordFailure(userNameKey(user), ip, accountId);
      return null;
    } catch (e) {
      return e as TooManyRequestsError;
    }
  };

  it('locks a user name at its 10th failure within 15 minutes, under every spelling of its key', async () => {
    for (let i = 1; i < USER_FAILURE_LIMIT; i++) expect(await fail(['Alice', 'alice', 'ａｌｉｃｅ'][i % 3])).toBeNull();
    const locked = await fail('ALICE');
    expect(locked).toBeInstanceOf(TooManyRequestsError);
    expect(Number(locked!.headers['Retry-After'])).toBe(WINDOW_MS / 1000);
    await expect(sut.assertAllowed('alice')).rejects.toThrow(TooManyRequestsError);
    await expect(sut.assertAllowed('bob')).resolves.toBeUndefined();
  });

  it('unlocks when the window has passed, with Retry-After counting down meanwhile', async () => {
    for (let i = 0; i < USER_FAILURE_LIMIT; i++) await fail('carol');
    now += WINDOW_MS - 60_000;
    const e = await sut.assertAllowed('carol').catch((err: TooManyRequestsError) => err);
    expect((e as TooManyRequestsError).headers['Retry-After']).toBe('60');
    now += 60_000;
    await expect(sut.assertAllowed('carol')).resolves.toBeUndefined();
  });

  it('forgets the failures of a user name after a successful login', async () => {
    for (let i = 0; i < USER_FAILURE_LIMIT - 1; i++) await fail('dave');
    await sut.recordSuccess('dave', 'account-of-dave');
    expect(await fail('dave')).toBeNull();
  });

  it('slows an address spraying many user names past the address limit, and never refuses one before the password is checked', async () => {
    for (let i = 1; i <= IP_FAILURE_LIMIT; i++) expect(await fail(`user${i}`, '192.0.2.7')).toBeNull();
    expect(pauses).toEqual([]);
    const slowed = await fail('user-next', '192.0.2.7');
    expect(slowed).toBeInstanceOf(TooManyRequestsError);
    expect(Number(slowed!.headers['Retry-After'])).toBeLessThanOrEqual(2);
    expect(pauses).toEqual([ADDRESS_PAUSE_MS]);
    // The address is not a lock: a name that is not locked is let through to its password check.
    await expect(sut.assertAllowed('fresh-user')).resolves.toBeUndefined();
    expect(await fail('another', '192.0.2.8')).toBeNull();
  });

  it('locks the matched account whatever name reached it, and checks it apart from the name', async () => {
    // A key renamed meanwhile, or any other name that matched this one account, adds to its count.
    for (let i = 1; i < USER_FAILURE_LIMIT; i++) expect(await fail(`name-${i}`, '10.0.0.1', 'account-1')).toBeNull();
    expect(await fail('yet-another-name', '10.0.0.1', 'account-1')).toBeInstanceOf(TooManyRequestsError);
    await expect(sut.assertAccountAllowed('account-1')).rejects.toThrow(TooManyRequestsError);
    await expect(sut.assertAccountAllowed('account-2')).resolves.toBeUndefined();
    await sut.recordSuccess('name-1', 'account-1');
    await expect(sut.assertAccountAllowed('account-1')).resolves.toBeUndefined();
  });
});
