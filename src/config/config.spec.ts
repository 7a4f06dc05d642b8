import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, parseDatabaseUrl } from './config.js';

const SECRET = 'x'.repeat(40);

describe('loadConfig', () => {
  it('defaults to port 3000, the SQLite file database and the urn:pms:v4 namespace', () => {
    const sut = loadConfig({ JWT_SECRET: SECRET });
    expect(sut).toMatchObject({
      port: 3000,
      database: { kind: 'sqlite', file: './data/pms.sqlite' },
      xmlNamespace: 'urn:pms:v4',
      tokenTtlSeconds: 3600,
      adminUserName: 'admin',
      adminPassword: null,
      jwtSecretSource: 'env',
      demoPassword: 'demo-password',
    });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'postgres://x/y' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'mysql://root@host' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'sqlite:' }, 'DATABASE_URL'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ ADMIN_PASSWORD: 'short' }, 'ADMIN_PASSWORD'],
    [{ TOKEN_TTL_SECONDS: '5' }, 'TOKEN_TTL_SECONDS'],
    [{ XML_NAMESPACE: 'has space' }, 'XML_NAMESPACE'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ DEMO_PASSWORD: 'short' }, 'DEMO_PASSWORD'],
  ])('refuses %j with a ConfigError naming %s', (env, variable) => {
    let error: unknown;
    try {
      loadConfig({ JWT_SECRET: SECRET, ...env });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as ConfigError).message.startsWith(`${variable}: `)).toBe(true);
  });

  it('requires JWT_SECRET in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET: is required when NODE_ENV=production/);
  });

  it('keeps a generated development secret beside the SQLite file, the same on every start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-config-'));
    try {
      const env = { DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}` };
      const first = loadConfig(env);
      const second = loadConfig(env);
      expect(first.jwtSecretSource).toBe('file');
      expect(second.jwtSecret).toBe(first.jwtSecret);
      expect(readFileSync(join(dir, 'jwt-secret'), 'utf8').trim()).toBe(first.jwtSecret);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('parseDatabaseUrl', () => {
  it('reads mysql and mariadb URLs with credentials, port and database', () => {
    expect(parseDatabaseUrl('mysql://app:p%40ss@db.internal:3307/pms')).toEqual({
      kind: 'mysql',
      host: 'db.internal',
      port: 3307,
      username: 'app',
      password: 'p@ss',
      database: 'pms',
    });
    expect(parseDatabaseUrl('mariadb://root@127.0.0.1/test')).toMatchObject({ kind: 'mysql', port: 3306, username: 'root', password: '' });
  });

  it('reads sqlite files and the in-memory database', () => {
    expect(parseDatabaseUrl('sqlite::memory:')).toEqual({ kind: 'sqlite', file: ':memory:' });
    expect(parseDatabaseUrl('sqlite:/var/lib/pms/pms.sqlite')).toEqual({ kind: 'sqlite', file: '/var/lib/pms/pms.sqlite' });
  });
});
