import { hashPassword, verifyPassword } from './password.js';

describe('password hashing', () => {
  it('verifies the right password and refuses a wrong one; salts make equal passwords differ', async () => {
    const sut = await hashPassword('correct horse');
    expect(sut).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await verifyPassword('correct horse', sut)).toBe(true);
    expect(await verifyPassword('correct horsE', sut)).toBe(false);
    expect(await hashPassword('correct horse')).not.toBe(sut);
  });

  it('hashes at the cost asked for, and a stored hash verifies with its own cost whatever the current one', async () => {
    const cheap = await hashPassword('correct horse', 1024);
    expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword('correct horse', cheap)).toBe(true);
    expect(await verifyPassword('correct horse', await hashPassword('correct horse'), 1024)).toBe(true);
    expect(await verifyPassword('correct horsE', cheap, 1024)).toBe(false);
  });

  it('refuses when there is no stored hash or it is not a scrypt hash', async () => {
    expect(await verifyPassword('x', null)).toBe(false);
    expect(await verifyPassword('x', 'plaintext')).toBe(false);
  });
});
