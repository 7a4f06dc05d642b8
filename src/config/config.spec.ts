import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, loadConfigWithoutCredentials, parseDatabaseUrl, parseTrustProxy } from './config.js';

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
      idempotencyTtlSeconds: 86400,
      idempotencySweepSeconds: 600,
      routeTable: true,
      recordMemo: 20000,
      demoPassword: 'demo-password',
      passwordScryptCost: 16384,
    });
  });

  it('takes a lower scrypt cost for new password hashes outside production only, and powers of two only', () => {
    expect(loadConfig({ JWT_SECRET: SECRET, PASSWORD_SCRYPT_COST: '1024' }).passwordScryptCost).toBe(1024);
    expect(loadConfig({ JWT_SECRET: SECRET, NODE_ENV: 'production', PASSWORD_SCRYPT_COST: '65536' }).passwordScryptCost).toBe(65536);
    expect(() => loadConfig({ JWT_SECRET: SECRET, NODE_ENV: 'production', PASSWORD_SCRYPT_COST: '8192' })).toThrow(/PASSWORD_SCRYPT_COST.*at least 16384/);
    expect(() => loadConfig({ JWT_SECRET: SECRET, PASSWORD_SCRYPT_COST: '3000' })).toThrow(/PASSWORD_SCRYPT_COST.*power of two/);
    expect(() => loadConfig({ JWT_SECRET: SECRET, PASSWORD_SCRYPT_COST: '512' })).toThrow(/PASSWORD_SCRYPT_COST.*between 1024/);
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
    [{ REQUEST_TIMEOUT_MS: '50' }, 'REQUEST_TIMEOUT_MS'],
    [{ DB_ACQUIRE_TIMEOUT_MS: 'soon' }, 'DB_ACQUIRE_TIMEOUT_MS'],
    [{ REQUEST_TIMEOUT_MS: '3000', DB_ACQUIRE_TIMEOUT_MS: '4000' }, 'DB_ACQUIRE_TIMEOUT_MS'],
    [{ REQUEST_TIMEOUT_MS: '3000', DB_ACQUIRE_TIMEOUT_MS: '1000', DB_QUERY_TIMEOUT_MS: '5000' }, 'DB_QUERY_TIMEOUT_MS'],
    [{ SHUTDOWN_GRACE_MS: '10' }, 'SHUTDOWN_GRACE_MS'],
    [{ TRUST_PROXY: 'loopback, 10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'proxy.internal' }, 'TRUST_PROXY'],
    [{ IDEMPOTENCY_TTL_SECONDS: '0' }, 'IDEMPOTENCY_TTL_SECONDS'],
    [{ IDEMPOTENCY_TTL_SECONDS: '1h' }, 'IDEMPOTENCY_TTL_SECONDS'],
    [{ IDEMPOTENCY_SWEEP_SECONDS: '0' }, 'IDEMPOTENCY_SWEEP_SECONDS'],
    [{ DEMO_PASSWORD: 'short' }, 'DEMO_PASSWORD'],
    [{ RECORD_MEMO: '-1' }, 'RECORD_MEMO'],
    [{ RECORD_MEMO: 'lots' }, 'RECORD_MEMO'],
    [{ ROUTE_TABLE: 'maybe' }, 'ROUTE_TABLE'],
    [{ COMPRESSION: 'gzip' }, 'COMPRESSION'],
    [{ RATE_LIMIT_PER_CALLER: '100/min' }, 'RATE_LIMIT_PER_CALLER'],
    [{ RATE_LIMIT_PER_SITE: '-1' }, 'RATE_LIMIT_PER_SITE'],
    [{ RATE_LIMIT_WINDOW_SECONDS: '0' }, 'RATE_LIMIT_WINDOW_SECONDS'],
    [{ LIST_TOTAL_CACHE_MS: '-5' }, 'LIST_TOTAL_CACHE_MS'],
    [{ LIST_TOTAL_CACHE_MS: '60001' }, 'LIST_TOTAL_CACHE_MS'],
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

  it("bounds waits on the database below a load balancer's usual 30 s, and trusts no proxy, by default", () => {
    const sut = loadConfig({ JWT_SECRET: SECRET });
    expect(sut).toMatchObject({ dbQueryTimeoutMs: 10000, dbAcquireTimeoutMs: 5000, requestTimeoutMs: 15000, shutdownGraceMs: 20000, trustProxy: false });
    expect(sut.requestTimeoutMs).toBeLessThan(30000);
  });

  it('refuses private egress targets unless EGRESS_ALLOW_PRIVATE (or its older name WEBHOOK_ALLOW_PRIVATE) allows them, and refuses the two disagreeing', () => {
    expect(loadConfig({ JWT_SECRET: SECRET }).egressAllowPrivate).toBe(false);
    expect(loadConfig({ JWT_SECRET: SECRET, EGRESS_ALLOW_PRIVATE: 'true' }).egressAllowPrivate).toBe(true);
    expect(loadConfig({ JWT_SECRET: SECRET, WEBHOOK_ALLOW_PRIVATE: 'true' }).egressAllowPrivate).toBe(true);
    expect(loadConfig({ JWT_SECRET: SECRET, EGRESS_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' }).egressAllowPrivate).toBe(true);
    expect(() => loadConfig({ JWT_SECRET: SECRET, EGRESS_ALLOW_PRIVATE: 'false', WEBHOOK_ALLOW_PRIVATE: 'true' })).toThrow(/WEBHOOK_ALLOW_PRIVATE/);
    expect(loadConfig({ JWT_SECRET: SECRET }).webhooks.deliveryRetentionDays).toBe(30);
  });

  it('gives every caller and site a request budget by default (docs/limits.md), 0 meaning none', () => {
    expect(loadConfig({ JWT_SECRET: SECRET }).rateLimits).toEqual({ windowSeconds: 60, perCaller: 12_000, perSite: 60_000 });
    expect(loadConfig({ JWT_SECRET: SECRET, RATE_LIMIT_PER_SITE: '0', RATE_LIMIT_WINDOW_SECONDS: '1' }).rateLimits).toEqual({
      windowSeconds: 1,
      perCaller: 12_000,
      perSite: 0,
    });
  });

  it('keeps ended imports 30 days unless IMPORT_RETENTION_DAYS says otherwise, at least one day', () => {
    expect(loadConfig({ JWT_SECRET: SECRET }).imports.retentionDays).toBe(30);
    expect(loadConfig({ JWT_SECRET: SECRET, IMPORT_RETENTION_DAYS: '7' }).imports.retentionDays).toBe(7);
    expect(() => loadConfig({ JWT_SECRET: SECRET, IMPORT_RETENTION_DAYS: '0' })).toThrow(/IMPORT_RETENTION_DAYS/);
    expect(() => loadConfig({ JWT_SECRET: SECRET, IMPORT_RETENTION_DAYS: '30d' })).toThrow(/IMPORT_RETENTION_DAYS/);
  });

  it('compresses by default, and not with COMPRESSION=off', () => {
    expect(loadConfig({ JWT_SECRET: SECRET }).compression).toBe(true);
    expect(loadConfig({ JWT_SECRET: SECRET, COMPRESSION: 'off' }).compression).toBe(false);
  });

  it('reads RECORD_MEMO=0 as keeping no answers, and ROUTE_TABLE=off', () => {
    expect(loadConfig({ JWT_SECRET: SECRET, RECORD_MEMO: '0', ROUTE_TABLE: 'off' })).toMatchObject({ recordMemo: 0, routeTable: false });
  });

  it('reuses list totals for 2 s unless LIST_TOTAL_CACHE_MS says otherwise (0: count every page)', () => {
    expect(loadConfig({ JWT_SECRET: SECRET })).toMatchObject({ listTotalCacheMs: 2000 });
    expect(loadConfig({ JWT_SECRET: SECRET, LIST_TOTAL_CACHE_MS: '0' })).toMatchObject({ listTotalCacheMs: 0 });
  });

  it('serves the Prometheus scrape on METRICS_PORT 9464 unless set; off serves none; never the API port', () => {
    expect(loadConfig({ JWT_SECRET: SECRET }).metricsPort).toBe(9464);
    expect(loadConfig({ JWT_SECRET: SECRET, METRICS_PORT: '9100' }).metricsPort).toBe(9100);
    expect(loadConfig({ JWT_SECRET: SECRET, METRICS_PORT: '0' }).metricsPort).toBe(0);
    expect(loadConfig({ JWT_SECRET: SECRET, METRICS_PORT: 'Off' }).metricsPort).toBeNull();
    expect(() => loadConfig({ JWT_SECRET: SECRET, METRICS_PORT: 'nine' })).toThrow('METRICS_PORT: must be a whole number');
    expect(() => loadConfig({ JWT_SECRET: SECRET, METRICS_PORT: '70000' })).toThrow('METRICS_PORT: must be between 0 and 65535');
    expect(() => loadConfig({ JWT_SECRET: SECRET, PORT: '8080', METRICS_PORT: '8080' })).toThrow('METRICS_PORT: must differ from PORT (8080)');
  });

  it('listens on 127.0.0.1 unless HOST names an address, and refuses a host name', () => {
    expect(loadConfig({ JWT_SECRET: SECRET }).host).toBe('127.0.0.1');
    expect(loadConfig({ JWT_SECRET: SECRET, HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ JWT_SECRET: SECRET, HOST: '::' }).host).toBe('::');
    expect(() => loadConfig({ JWT_SECRET: SECRET, HOST: 'example.org' })).toThrow('HOST: must be an IP address');
  });

  it('requires JWT_SECRET in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET: is required when NODE_ENV=production/);
  });

  it('reads no credential for a command that needs none (the migration Job): no JWT_SECRET in production, no secret file, ADMIN_* ignored', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-config-'));
    try {
      const env = { NODE_ENV: 'production', DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, MIGRATION_LOCK_TIMEOUT_MS: '60000', ADMIN_PASSWORD: 'short' };
      const sut = loadConfigWithoutCredentials(env);
      expect(sut).toMatchObject({ nodeEnv: 'production', database: { kind: 'sqlite' }, migrationLockTimeoutMs: 60000 });
      expect(Object.keys(sut).filter((k) => /secret|admin/i.test(k))).toEqual([]);
      expect(existsSync(join(dir, 'jwt-secret'))).toBe(false);
      // Every other variable is still checked.
      expect(() => loadConfigWithoutCredentials({ ...env, DB_QUERY_TIMEOUT_MS: 'ten' })).toThrow('DB_QUERY_TIMEOUT_MS: must be a whole number');
      // The service itself still requires them.
      expect(() => loadConfig(env)).toThrow(/JWT_SECRET: is required/);
      expect(() => loadConfig({ ...env, JWT_SECRET: SECRET })).toThrow('ADMIN_PASSWORD: must be at least 8 characters long');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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

describe('parseTrustProxy', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['off', false],
    ['0', false],
    ['true', true],
    ['2', 2],
    ['10.0.0.0/8', ['10.0.0.0/8']],
    ['10.1.2.3, 192.168.0.0/16,fd00::/8, loopback', ['10.1.2.3', '192.168.0.0/16', 'fd00::/8', 'loopback']],
  ])('reads %j as %j', (raw, expected) => {
    expect(parseTrustProxy(raw)).toEqual(expected);
  });

  it.each(['10.0.0.0/33', '::1/129', '10.0.0.1/8/8', 'proxy.internal', '10.0.0', '101'])('refuses %j', (raw) => {
    expect(() => parseTrustProxy(raw)).toThrow(ConfigError);
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
