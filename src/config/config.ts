import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
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
  /** The address to listen on (HOST): 127.0.0.1 unless set; the container image sets 0.0.0.0. */
  host: string;
  /**
   * METRICS_PORT (9464): the port of the Prometheus scrape (`GET /metrics`), apart from the API so
   * it is never public by accident and `/v4/metrics` stays the Metric resource; `off` serves none,
   * 0 an ephemeral port (docs/operations.md, "Metrics"). Listens on HOST.
   */
  metricsPort: number | null;
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
  /** Milliseconds a MySQL statement may run: the server stops it, the request answers 503. */
  dbQueryTimeoutMs: number;
  /**
   * DB_SYNC_WAIT (1): MariaDB's `wsrep_sync_wait` set on every connection, so on a Galera cluster
   * a read sees every transaction committed on any node before it (docs/scaling.md); 0 leaves the
   * server's default. No effect without Galera.
   */
  dbSyncWait: number;
  /**
   * MIGRATION_LOCK_TIMEOUT_MS (300000): how long a start waits for migrations another process is
   * running (the migration Job, another replica) before it stops with a clear line (docs/scaling.md).
   */
  migrationLockTimeoutMs: number;
  /** Milliseconds a request may wait for a MySQL pool connection before it answers 503. */
  dbAcquireTimeoutMs: number;
  /** Milliseconds after which a request still unanswered is answered 503 (docs/operations.md). */
  requestTimeoutMs: number;
  /** Milliseconds in-flight requests get to finish after SIGTERM before the process exits anyway. */
  shutdownGraceMs: number;
  /** Express `trust proxy`: false (socket address), true (any proxy), a hop count, or trusted addresses/CIDRs. */
  trustProxy: TrustProxy;
  /** How long an Idempotency-Key and its answer are kept, in seconds (docs/idempotency.md). */
  idempotencyTtlSeconds: number;
  /** How often expired Idempotency-Keys are deleted, in seconds. */
  idempotencySweepSeconds: number;
  /**
   * IDEMPOTENCY_MAX_KEYS_PER_CALLER (10000): the most keys one caller (account or API token, per
   * site) keeps; the sweep deletes a caller's oldest beyond it (docs/idempotency.md, "Limits").
   */
  idempotencyMaxKeysPerCaller: number;
  /** AUDIT_RETENTION_DAYS (365): audit entries older than this are pruned (docs/audit.md, "Retention"). */
  auditRetentionDays: number;
  /** AUDIT_PRUNE_SECONDS (3600): how often the retention sweep runs. */
  auditPruneSeconds: number;
  /** The webhook delivery settings (docs/events.md). */
  webhooks: WebhookConfig;
  /** File imports (docs/imports.md). */
  imports: ImportConfig;
  /**
   * EGRESS_ALLOW_PRIVATE (false; WEBHOOK_ALLOW_PRIVATE is its older name): let the egress guard reach
   * loopback, private, link-local and reserved addresses — for tests and closed networks
   * (docs/security.md, "The network egress"). Metadata, multicast and broadcast stay refused.
   */
  egressAllowPrivate: boolean;
  /** DASHBOARD_SUMMARIES (on): off stops this replica from building dashboard summaries (docs/dashboards.md, "Summaries"); another replica still may, and dashboards are computed from the records while none does. */
  dashboardSummaries: boolean;
  /** Milliseconds a resolved caller (account, individual, site) is reused for the same token claims; 0 = never. */
  callerCacheMs: number;
  /**
   * PASSWORD_SCRYPT_COST (16384): scrypt's cost N for new password hashes, a power of two from 1024
   * to 1048576; below 16384 only outside production (the test suites' 1024 spends a sixteenth of the
   * CPU on each login). Stored hashes keep their own cost (docs/identity-and-tenancy.md).
   */
  passwordScryptCost: number;
  /** Bound on one fetch of an identity provider's discovery document or JWKS (docs/identity.md). */
  oidcFetchTimeoutMs: number;
  /** How long a fetched JWKS is used before it is fetched again (an unknown `kid` refetches sooner). */
  oidcJwksCacheMs: number;
  /** Clock skew tolerated on an identity provider's `exp`, `nbf` and `iat`. */
  oidcClockSkewSeconds: number;
  /** An API token's last use is written at most this often per token (docs/identity.md). */
  apiTokenLastUseSeconds: number;
  /**
   * ROUTE_TABLE (on by default): the front door finds each request's route in a radix tree of the
   * controllers' routes and runs the handler Nest built for it (docs/architecture.md, "How a
   * request runs"); `off` leaves the finding to Express's router, which walks every route. The
   * answers are the same either way.
   */
  routeTable: boolean;
  /**
   * COMPRESSION (on by default): answers of 1 KB or more in a compressible media type are sent
   * with `br` or `gzip` when the request's Accept-Encoding takes one (docs/http-and-xml.md,
   * "Compression"); `off` leaves compression to a proxy in front.
   */
  compression: boolean;
  /**
   * Request budgets (docs/limits.md): per caller (a person's account or an API token) and per site,
   * fixed windows of RATE_LIMIT_WINDOW_SECONDS (60); RATE_LIMIT_PER_CALLER (12000) and
   * RATE_LIMIT_PER_SITE (60000) requests a window, 0 for no budget of that kind. Counted in Redis
   * when REDIS_URL is set (every replica shares them), else per process.
   */
  rateLimits: { windowSeconds: number; perCaller: number; perSite: number };
  /**
   * RECORD_MEMO (20000): how many records, of all memoized kinds together, keep their built
   * answer and its rendered texts, reused while a read brings back the very same row
   * (docs/performance.md, "Record memo"); 0 keeps none.
   */
  recordMemo: number;
  /**
   * LIST_TOTAL_CACHE_MS (2000): how long the total of a list (X-Total-Count), and the site's
   * periods a default period is picked from, are reused while no write of the site committed
   * through this process (docs/performance.md, "List totals", "The site's periods"); 0 reads them
   * on every request.
   */
  listTotalCacheMs: number;
  /** EXPORT_BATCH_ROWS (1000): rows a streamed export of a list reads per statement (docs/exports.md). */
  exportBatchRows: number;
  /** EXPORT_PROGRESS_ROWS (100000): a streamed export logs its progress every this many rows (docs/exports.md). */
  exportProgressRows: number;
  /**
   * EXPORT_MAX_PER_CALLER (2) and EXPORT_MAX_PER_SITE (4): the streamed exports one caller (a user
   * or an API token), and one site, may have running at once on a replica; one more is 429
   * (docs/limits.md, "Exports at once").
   */
  exportMaxPerCaller: number;
  exportMaxPerSite: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Password of every demo user `npm run seed:demo` creates (DEMO_PASSWORD). */
  demoPassword: string;
}

/** Which proxies may set X-Forwarded-For: none, all, the nearest n hops, or these addresses/CIDRs. */
export type TrustProxy = false | true | number | string[];

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

/** PASSWORD_SCRYPT_COST: a power of two; production keeps at least the default cost. */
function scryptCost(env: Env, nodeEnv: string): number {
  const cost = intVar(env, 'PASSWORD_SCRYPT_COST', 16384, 1024, 1048576);
  if ((cost & (cost - 1)) !== 0) throw new ConfigError('PASSWORD_SCRYPT_COST', `must be a power of two, got ${cost}`);
  if (nodeEnv === 'production' && cost < 16384) throw new ConfigError('PASSWORD_SCRYPT_COST', `must be at least 16384 when NODE_ENV=production, got ${cost}`);
  return cost;
}

function intVar(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** Express's names for address ranges, accepted in a TRUST_PROXY list. */
const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Reads TRUST_PROXY: unset, `false`, `off` or `0` trust no proxy (client addresses come from the
 * socket); `true` trusts every hop; a whole number n trusts the nearest n proxies; otherwise a
 * comma-separated list of addresses or CIDRs (IPv4 or IPv6) of the trusted proxies.
 */
export function parseTrustProxy(raw: string | undefined, name = 'TRUST_PROXY'): TrustProxy {
  const value = (raw ?? '').trim();
  if (value === '' || /^(false|off|no|0)$/i.test(value)) return false;
  if (/^(true|on|yes)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 100) throw new ConfigError(name, `a hop count must be at most 100, got ${hops}`);
    return hops;
  }
  const entries = value.split(',').map((e) => e.trim());
  for (const entry of entries) {
    if (TRUST_PROXY_NAMES.has(entry)) continue;
    const [address, prefix, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const bits = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (!family || !prefixOk || extra !== undefined) {
      throw new ConfigError(name, `must be false, true, a hop count, or a comma-separated list of addresses/CIDRs; "${entry}" is none of these`);
    }
  }
  return entries;
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
 * Builds the configuration from the environment (every variable is listed in README.md). Throws ConfigError on the first bad
 * value, so the process can stop with one line naming the variable.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const rest = loadConfigWithoutCredentials(env);
  let jwtSecret = env.JWT_SECRET ?? '';
  let jwtSecretSource: AppConfig['jwtSecretSource'] = 'env';
  if (jwtSecret) {
    if (jwtSecret.length < 32) throw new ConfigError('JWT_SECRET', 'must be at least 32 characters long');
  } else if (rest.nodeEnv === 'production') {
    throw new ConfigError('JWT_SECRET', 'is required when NODE_ENV=production (at least 32 random characters)');
  } else {
    const dev = devSecret(rest.database);
    jwtSecret = dev.secret;
    jwtSecretSource = dev.source;
  }

  const adminUserName = (env.ADMIN_USERNAME || 'admin').trim();
  if (adminUserName.length > 255) throw new ConfigError('ADMIN_USERNAME', 'must be at most 255 characters');
  const adminPassword = env.ADMIN_PASSWORD ? env.ADMIN_PASSWORD : null;
  if (adminPassword !== null && adminPassword.length < 8) throw new ConfigError('ADMIN_PASSWORD', 'must be at least 8 characters long');
  return { ...rest, jwtSecret, jwtSecretSource, adminUserName, adminPassword };
}

/** The configuration without what signs tokens and creates the first administrator. */
export type ConfigWithoutCredentials = Omit<AppConfig, 'jwtSecret' | 'jwtSecretSource' | 'adminUserName' | 'adminPassword'>;

/**
 * The configuration of a command that signs no token and creates no administrator (`pms-api
 * migrate`, the Kubernetes migration Job): JWT_SECRET, ADMIN_USERNAME and ADMIN_PASSWORD are
 * neither read nor required, in production too, so the Job is given the database's settings only
 * (docs/operations.md, "The migration Job").
 */
export function loadConfigWithoutCredentials(env: Env = process.env): ConfigWithoutCredentials {
  const nodeEnv = env.NODE_ENV || 'development';
  const port = intVar(env, 'PORT', 3000, 0, 65535);
  const host = (env.HOST ?? '').trim() || '127.0.0.1';
  if (host !== 'localhost' && !isIP(host))
    throw new ConfigError('HOST', `must be an IP address (0.0.0.0 or :: for every interface) or localhost, got "${host}"`);
  const metricsRaw = (env.METRICS_PORT ?? '').trim().toLowerCase();
  const metricsPort = metricsRaw === 'off' ? null : intVar(env, 'METRICS_PORT', 9464, 0, 65535);
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === port) throw new ConfigError('METRICS_PORT', `must differ from PORT (${port})`);
  const databaseUrl = env.DATABASE_URL || 'sqlite:./data/pms.sqlite';
  const database = parseDatabaseUrl(databaseUrl);

  const xmlNamespace = env.XML_NAMESPACE || 'urn:pms:v4';
  if (/[\s"'<>&]/.test(xmlNamespace)) throw new ConfigError('XML_NAMESPACE', 'must be a URI without spaces, quotes or markup');

  const redisUrl = env.REDIS_URL || null;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError('REDIS_URL', 'must start with redis:// or rediss://');

  const logLevel = (env.LOG_LEVEL || (nodeEnv === 'test' ? 'warn' : 'info')) as AppConfig['logLevel'];
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', 'must be one of debug, info, warn, error, silent');
  }

  const dbQueryTimeoutMs = intVar(env, 'DB_QUERY_TIMEOUT_MS', 10000, 100, 600000);
  const dbAcquireTimeoutMs = intVar(env, 'DB_ACQUIRE_TIMEOUT_MS', 5000, 100, 600000);
  const requestTimeoutMs = intVar(env, 'REQUEST_TIMEOUT_MS', 15000, 200, 600000);
  if (dbAcquireTimeoutMs > requestTimeoutMs) {
    throw new ConfigError('DB_ACQUIRE_TIMEOUT_MS', `must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs}), got ${dbAcquireTimeoutMs}`);
  }
  if (dbQueryTimeoutMs > requestTimeoutMs) {
    throw new ConfigError('DB_QUERY_TIMEOUT_MS', `must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs}), got ${dbQueryTimeoutMs}`);
  }
  const routeTableRaw = (env.ROUTE_TABLE ?? '').trim().toLowerCase();
  if (!['', 'on', 'off'].includes(routeTableRaw)) throw new ConfigError('ROUTE_TABLE', `must be on or off, got "${env.ROUTE_TABLE}"`);
  const demoPassword = env.DEMO_PASSWORD || 'demo-password';
  if (demoPassword.length < 8) throw new ConfigError('DEMO_PASSWORD', 'must be at least 8 characters long');

  return {
    port,
    host,
    metricsPort,
    nodeEnv,
    database,
    databaseUrl,
    xmlNamespace,
    tokenTtlSeconds: intVar(env, 'TOKEN_TTL_SECONDS', 3600, 60, 7 * 24 * 3600),
    redisUrl,
    redisPrefix: env.REDIS_PREFIX || 'pms:',
    dbQueryTimeoutMs,
    dbAcquireTimeoutMs,
    migrationLockTimeoutMs: intVar(env, 'MIGRATION_LOCK_TIMEOUT_MS', 300_000, 1000, 3_600_000),
    dbSyncWait: intVar(env, 'DB_SYNC_WAIT', DEFAULT_DB_SYNC_WAIT, 0, 15),
    requestTimeoutMs,
    shutdownGraceMs: intVar(env, 'SHUTDOWN_GRACE_MS', 20000, 1000, 600000),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    idempotencyTtlSeconds: intVar(env, 'IDEMPOTENCY_TTL_SECONDS', 24 * 3600, 1, 30 * 24 * 3600),
    idempotencySweepSeconds: intVar(env, 'IDEMPOTENCY_SWEEP_SECONDS', 600, 1, 24 * 3600),
    idempotencyMaxKeysPerCaller: intVar(env, 'IDEMPOTENCY_MAX_KEYS_PER_CALLER', 10_000, 1, 10_000_000),
    callerCacheMs: intVar(env, 'CALLER_CACHE_MS', 5000, 0, 60000),
    passwordScryptCost: scryptCost(env, nodeEnv),
    routeTable: routeTableRaw !== 'off',
    compression: boolVar(env, 'COMPRESSION', true),
    rateLimits: {
      windowSeconds: intVar(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 3600),
      perCaller: intVar(env, 'RATE_LIMIT_PER_CALLER', 12_000, 0, 1_000_000_000),
      perSite: intVar(env, 'RATE_LIMIT_PER_SITE', 60_000, 0, 1_000_000_000),
    },
    auditRetentionDays: intVar(env, 'AUDIT_RETENTION_DAYS', 365, 1, 100 * 365),
    auditPruneSeconds: intVar(env, 'AUDIT_PRUNE_SECONDS', 3600, 1, 7 * 24 * 3600),
    webhooks: webhookConfig(env),
    imports: {
      process: boolVar(env, 'IMPORTS', true),
      pollMs: intVar(env, 'IMPORT_POLL_MS', 1000, 10, 60_000),
      leaseMs: intVar(env, 'IMPORT_LEASE_MS', 60_000, 1000, 3600_000),
      chunkRows: intVar(env, 'IMPORT_CHUNK_ROWS', 500, 1, 1000),
      maxBytes: intVar(env, 'IMPORT_MAX_BYTES', 256 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      retentionDays: intVar(env, 'IMPORT_RETENTION_DAYS', 30, 1, 3650),
    },
    egressAllowPrivate: egressAllowPrivate(env),
    dashboardSummaries: boolVar(env, 'DASHBOARD_SUMMARIES', true),
    oidcFetchTimeoutMs: intVar(env, 'OIDC_FETCH_TIMEOUT_MS', 3000, 100, 30_000),
    oidcJwksCacheMs: intVar(env, 'OIDC_JWKS_CACHE_MS', 600_000, 1000, 24 * 3600_000),
    oidcClockSkewSeconds: intVar(env, 'OIDC_CLOCK_SKEW_SECONDS', 60, 0, 300),
    apiTokenLastUseSeconds: intVar(env, 'API_TOKEN_LAST_USE_SECONDS', 60, 1, 3600),
    recordMemo: intVar(env, 'RECORD_MEMO', DEFAULT_RECORD_MEMO, 0, 1_000_000),
    listTotalCacheMs: intVar(env, 'LIST_TOTAL_CACHE_MS', DEFAULT_LIST_TOTAL_CACHE_MS, 0, 60_000),
    exportBatchRows: intVar(env, 'EXPORT_BATCH_ROWS', 1000, 10, 5000),
    exportProgressRows: intVar(env, 'EXPORT_PROGRESS_ROWS', 100_000, 1, 1_000_000_000),
    exportMaxPerCaller: intVar(env, 'EXPORT_MAX_PER_CALLER', 2, 1, 1000),
    exportMaxPerSite: intVar(env, 'EXPORT_MAX_PER_SITE', 4, 1, 10_000),
    logLevel,
    demoPassword,
  };
}

/**
 * The configuration of a command (`pms-api`, `pms-api migrate`, `pms-api seed:demo`): a bad value
 * stops it with one line on stderr naming the command and the variable, and exit code 2. `load`
 * is loadConfig unless the command needs less (loadConfigWithoutCredentials).
 */
export function loadConfigOrExit(command: string, env?: Env): AppConfig;
export function loadConfigOrExit<T>(command: string, env: Env, load: (env: Env) => T): T;
export function loadConfigOrExit(command: string, env: Env = process.env, load: (env: Env) => unknown = loadConfig): unknown {
  try {
    return load(env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`${command}: configuration error: ${e.message}\n`);
    process.exit(2);
  }
}

/** MariaDB `wsrep_sync_wait` when DB_SYNC_WAIT is not set: reads wait for the cluster's earlier commits. */
export const DEFAULT_DB_SYNC_WAIT = 1;

/** How file imports are taken and processed (docs/imports.md). */
export interface ImportConfig {
  /** IMPORTS (on): off stops this replica from processing imports (another replica still may; it still takes files). */
  process: boolean;
  /** IMPORT_POLL_MS (1000): how often a replica looks for an import to process. */
  pollMs: number;
  /** IMPORT_LEASE_MS (60000): how long a claim on an import holds without progress; each chunk renews it. */
  leaseMs: number;
  /** IMPORT_CHUNK_ROWS (500): rows written per transaction (at most 1,000, a bulk request's items). */
  chunkRows: number;
  /** IMPORT_MAX_BYTES (268435456, 256 MiB): the largest file an import takes (413 beyond it). */
  maxBytes: number;
  /** IMPORT_RETENTION_DAYS (30): jobs that ended longer ago are deleted with their failed rows (every AUDIT_PRUNE_SECONDS). */
  retentionDays: number;
}

/** How webhooks are delivered (docs/events.md, "Retries" and "Where deliveries may go"). */
export interface WebhookConfig {
  /** WEBHOOK_RETRY_BASE_MS (30000): the delay after the first failure; each further failure doubles it (with ±25 % jitter). */
  retryBaseMs: number;
  /** WEBHOOK_RETRY_MAX_MS (3600000): the longest delay between two attempts. */
  retryMaxMs: number;
  /** WEBHOOK_RETRY_WINDOW_MS (86400000, 24 h): an event still failing this long after its first failure disables the endpoint. */
  retryWindowMs: number;
  /** WEBHOOK_TIMEOUT_MS (10000): how long a receiver has to answer. */
  timeoutMs: number;
  /** WEBHOOK_POLL_MS (1000): how often a replica looks for events written by other replicas (its own, and with REDIS_URL the others', wake it at once). */
  pollMs: number;
  /** WEBHOOK_CONCURRENCY (8): how many records' events one endpoint is sent at once (each record's events stay in order). */
  concurrency: number;
  /** WEBHOOK_SECRET_OVERLAP_HOURS (24): after a rotation, the old secret signs too for this long. */
  secretOverlapHours: number;
  /** WEBHOOKS (on): off stops this replica from delivering (another replica still may). */
  deliver: boolean;
  /** WEBHOOK_DELIVERY_RETENTION_DAYS (30): delivery attempts older than this are pruned (every AUDIT_PRUNE_SECONDS). */
  deliveryRetentionDays: number;
}

function boolVar(env: Env, name: string, def: boolean): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return def;
  if (['true', '1', 'on', 'yes'].includes(raw)) return true;
  if (['false', '0', 'off', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${env[name]}"`);
}

/** EGRESS_ALLOW_PRIVATE, or its older name WEBHOOK_ALLOW_PRIVATE; both set and different is a configuration error. */
function egressAllowPrivate(env: Env): boolean {
  const current = boolVar(env, 'EGRESS_ALLOW_PRIVATE', false);
  if ((env.WEBHOOK_ALLOW_PRIVATE ?? '').trim() === '') return current;
  const alias = boolVar(env, 'WEBHOOK_ALLOW_PRIVATE', false);
  if ((env.EGRESS_ALLOW_PRIVATE ?? '').trim() !== '' && alias !== current)
    throw new ConfigError('WEBHOOK_ALLOW_PRIVATE', 'is the older name of EGRESS_ALLOW_PRIVATE and says otherwise; set only EGRESS_ALLOW_PRIVATE');
  return alias;
}

function webhookConfig(env: Env): WebhookConfig {
  return {
    retryBaseMs: intVar(env, 'WEBHOOK_RETRY_BASE_MS', 30_000, 1, 24 * 3600_000),
    retryMaxMs: intVar(env, 'WEBHOOK_RETRY_MAX_MS', 3600_000, 1, 24 * 3600_000),
    retryWindowMs: intVar(env, 'WEBHOOK_RETRY_WINDOW_MS', 24 * 3600_000, 1, 30 * 24 * 3600_000),
    timeoutMs: intVar(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    pollMs: intVar(env, 'WEBHOOK_POLL_MS', 1000, 10, 60_000),
    concurrency: intVar(env, 'WEBHOOK_CONCURRENCY', 8, 1, 64),
    secretOverlapHours: intVar(env, 'WEBHOOK_SECRET_OVERLAP_HOURS', 24, 0, 30 * 24),
    deliver: boolVar(env, 'WEBHOOKS', true),
    deliveryRetentionDays: intVar(env, 'WEBHOOK_DELIVERY_RETENTION_DAYS', 30, 1, 3650),
  };
}

/** Records kept, of all memoized kinds together, when RECORD_MEMO is not set (docs/performance.md, "Record memo"). */
export const DEFAULT_RECORD_MEMO = 20000;

/** Milliseconds a list total is reused when LIST_TOTAL_CACHE_MS is not set (docs/performance.md, "List totals"). */
export const DEFAULT_LIST_TOTAL_CACHE_MS = 2000;

/** The DI token under which the validated configuration is provided. */
export const APP_CONFIG = Symbol('APP_CONFIG');
