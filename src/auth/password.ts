import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../config/config.js';

/**
 * scrypt password hashes (docs/identity-and-tenancy.md): `scrypt$N$r$p$salt$hash`, salted, compared
 * in constant time. A hash keeps its own cost, so a stored hash verifies whatever the cost of new
 * ones (PASSWORD_SCRYPT_COST) is now.
 */
export const DEFAULT_SCRYPT_COST = 16384;
const R = 8;
const P = 1;
const KEYLEN = 64;
export const MIN_PASSWORD_LENGTH = 8;

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password.normalize('NFKC'), salt, KEYLEN, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** A new hash of `password` at scrypt cost `cost` (N; a power of two). */
export async function hashPassword(password: string, cost = DEFAULT_SCRYPT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, cost, R, P);
  return `scrypt$${cost}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** A hash of nothing per cost, verified against when the user does not exist so timing does not tell. */
const dummyHashes = new Map<number, Promise<string>>();

/** Whether `password` is the one `stored` was made of; with no stored hash, as slow as a real check at `cost`. */
export async function verifyPassword(password: string, stored: string | null, cost = DEFAULT_SCRYPT_COST): Promise<boolean> {
  if (!stored) {
    let dummy = dummyHashes.get(cost);
    if (!dummy) dummyHashes.set(cost, (dummy = hashPassword(randomBytes(12).toString('hex'), cost)));
    await verifyPassword(password, await dummy, cost);
    return false;
  }
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}

/** Passwords hashed at the configured cost (PASSWORD_SCRYPT_COST) and verified. */
@Injectable()
export class Passwords {
  private readonly cost: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.cost = config.passwordScryptCost;
  }

  hash(password: string): Promise<string> {
    return hashPassword(password, this.cost);
  }

  verify(password: string, stored: string | null): Promise<boolean> {
    return verifyPassword(password, stored, this.cost);
  }
}
