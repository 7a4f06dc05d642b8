import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The database the service talks to, parsed from `DATABASE_URL`. */
export type DatabaseConfig =
  | { kind: 'sqlite'; file: string /* ':memory:' for an in-memory database */ }
  | {
      kind: 'mysql';
      host: string;
      port: number;
      username: string;
      password: string;
      database: string;
    };

export interface AppConfig {
  port: number;
  nodeEnv: string;
  database: DatabaseConfig;
  databaseUrl: string;
  jwtSecret: string;
  /** Where the secret came from, for the start-up log (never the secret itself). */
  jwtSecretSource: 'env' | 'file' | 'generated';
  adminUserName: string;
  /** Null when the operator did not set one: bootstrap generates and prints one. */
  adminPassword: string | null;
  xmlNamespace: string;
  tokenTtlSeconds: number;
  redisUrl: string | null;
  /** Prefix of every Redis key, so deployments can share a Redis. */
  redisPrefix: string;
  /** Milliseconds a MySQL query may run before it is abandoned. */
  dbQueryTimeoutMs: number;
  /** Milliseconds a resolved caller (account, individual, site) is reused for the same token claims; 0 = never. */
  callerCacheMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
}

/** A bad configuration value: the message names the variable and what is wrong with it. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function intVar(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** Parses `sqlite:<file>`, `sqlite::memory:` or `mysql://user:pass@host:port/db`. */
export function parseDatabaseUrl(url: string, name = 'DATABASE_URL'): DatabaseConfig {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!file) throw new ConfigError(name, 'sqlite: needs a file name, e.g. sqlite:./data/pms.sqlite');
    return { kind: 'sqlite', file: file === ':memory:' ? ':memory:' : file };
  }
  if (/^(mysql|mariadb):\/\//.test(url)) {
    let u: URL;
    try {
      u = new URL(url.replace(/^mariadb:/, 'mysql:'));
    } catch {
      throw new ConfigError(name, 'is not a valid URL (mysql://user:pass@host:3306/db)');
    }
    const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
    if (!u.hostname) throw new ConfigError(name, 'has no host (mysql://user:pass@host:3306/db)');
    if (!database) throw new ConfigError(name, 'has no database name (mysql://user:pass@host:3306/db)');
    if (!/^[A-Za-z0-9_$-]+$/.test(database)) throw new ConfigError(name, `database name "${database}" has characters MySQL names do not allow`);
    const port = u.port ? Number(u.port) : 3306;
    return {
      kind: 'mysql',
      host: u.hostname,
      port,
      username: decodeURIComponent(u.username || 'root'),
      password: decodeURIComponent(u.password),
      database,
    };
  }
  throw new ConfigError(name, `must start with sqlite: or mysql:// (got "${url.split(':')[0]}:...")`);
}

/** Reads the dev JWT secret kept beside the SQLite file, creating it on first use. */
function devSecret(database: DatabaseConfig): { secret: string; source: 'file' | 'generated' } {
  if (database.kind === 'sqlite' && database.file !== ':memory:') {
    const file = join(dirname(resolve(database.file)), 'jwt-secret');
    if (existsSync(file)) return { secret: readFileSync(file, 'utf8').trim(), source: 'file' };
    mkdirSync(dirname(file), { recursive: true });
    const secret = randomBytes(48).toString('base64url');
    writeFileSync(file, secret + '\n', { mode: 0o600 });
    return { secret, source: 'file' };
  }
  return { secret: randomBytes(48).toString('base64url'), source: 'generated' };
}

/**
 * Builds the configuration from the environment (DESIGN §1). Throws ConfigError on the first bad
 * value, so the process can stop with one line naming the variable.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = env.NODE_ENV || 'development';
  const port = intVar(env, 'PORT', 3000, 0, 65535);
  const databaseUrl = env.DATABASE_URL || 'sqlite:./data/pms.sqlite';
  const database = parseDatabaseUrl(databaseUrl);

  let jwtSecret = env.JWT_SECRET ?? '';
  let jwtSecretSource: AppConfig['jwtSecretSource'] = 'env';
  if (jwtSecret) {
    if (jwtSecret.length < 32) throw new ConfigError('JWT_SECRET', 'must be at least 32 characters long');
  } else if (nodeEnv === 'production') {
    throw new ConfigError('JWT_SECRET', 'is required when NODE_ENV=production (at least 32 random characters)');
  } else {
    const dev = devSecret(database);
    jwtSecret = dev.secret;
    jwtSecretSource = dev.source;
  }

  const adminUserName = (env.ADMIN_USERNAME || 'admin').trim();
  if (adminUserName.length > 255) throw new ConfigError('ADMIN_USERNAME', 'must be at most 255 characters');
  const adminPassword = env.ADMIN_PASSWORD ? env.ADMIN_PASSWORD : null;
  if (adminPassword !== null && adminPassword.length < 8) throw new ConfigError('ADMIN_PASSWORD', 'must be at least 8 characters long');

  const xmlNamespace = env.XML_NAMESPACE || 'urn:pms:v4';
  if (/[\s"'<>&]/.test(xmlNamespace)) throw new ConfigError('XML_NAMESPACE', 'must be a URI without spaces, quotes or markup');

  const redisUrl = env.REDIS_URL || null;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('REDIS_URL', 'must start with redis:// or rediss://');

  const logLevel = (env.LOG_LEVEL || (nodeEnv === 'test' ? 'warn' : 'info')) as AppConfig['logLevel'];
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', 'must be one of debug, info, warn, error, silent');
  }

  return {
    port,
    nodeEnv,
    database,
    databaseUrl,
    jwtSecret,
    jwtSecretSource,
    adminUserName,
    adminPassword,
    xmlNamespace,
    tokenTtlSeconds: intVar(env, 'TOKEN_TTL_SECONDS', 3600, 60, 7 * 24 * 3600),
    redisUrl,
    redisPrefix: env.REDIS_PREFIX || 'pms:',
    dbQueryTimeoutMs: intVar(env, 'DB_QUERY_TIMEOUT_MS', 15000, 100, 600000),
    callerCacheMs: intVar(env, 'CALLER_CACHE_MS', 5000, 0, 60000),
    logLevel,
  };
}

/** The DI token under which the validated configuration is provided. */
export const APP_CONFIG = Symbol('APP_CONFIG');
