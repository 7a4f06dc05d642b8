#!/usr/bin/env node
/* global setTimeout, fetch, AbortSignal */
// A whole cluster on one machine (docs/scaling.md, "A cluster on one machine"): three MariaDB Galera
// nodes, HAProxy in front of them (health-checked on the Galera state), Redis, and N replicas of the
// service behind a second HAProxy frontend. Every server runs on its own port (CLUSTER_PORT_BASE,
// 24100 by default; the layout is in `ports` below) with its data in a temp directory, never the
// machine's shared MariaDB or Redis.
//
//   npm run cluster:up      builds, installs missing Debian packages, starts it all, prints the URLs
//   npm run cluster:down    stops what cluster:up started (by the process ids it recorded) and removes its data
//   node scripts/cluster.mjs status
//
// `npm run test:cluster` uses the same class with its own port base and state directory.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, cpSync, chmodSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const GALERA_PROVIDERS = ['/usr/lib/galera/libgalera_smm.so', '/usr/lib/galera-4/libgalera_smm.so', '/usr/lib64/galera-4/libgalera_smm.so'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The words of an npm script of package.json. */
function npmScript(name) {
  return JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts[name].split(/\s+/);
}

/** The node options `npm start` runs the service with: replicas run as they are deployed. */
function startNodeFlags() {
  return npmScript('start').filter((word) => word.startsWith('--'));
}

/**
 * The environment the service is deployed with besides its settings: the `NAME=value` words in
 * front of `npm run start:prod`'s command (glibc's MALLOC_MMAP_THRESHOLD_, docs/operations.md).
 */
function deployedEnv() {
  const env = {};
  for (const word of npmScript('start:prod')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(word);
    if (!m) break;
    env[m[1]] = m[2];
  }
  return env;
}

/**
 * The port layout from a base: node i uses base+10i … base+10i+3; proxies, Redis and replicas
 * follow; instance i pinned to node i (not behind any proxy) listens on base+75+i.
 */
export function ports(base, replicas) {
  return {
    nodes: [0, 1, 2].map((i) => ({ sql: base + 10 * i, wsrep: base + 10 * i + 1, ist: base + 10 * i + 2, sst: base + 10 * i + 3 })),
    dbProxy: base + 50,
    apiProxy: base + 51,
    stats: base + 52,
    redis: base + 60,
    replicas: Array.from({ length: replicas }, (_, j) => base + 70 + j),
    /** Each replica's Prometheus scrape (METRICS_PORT). */
    metrics: Array.from({ length: replicas }, (_, j) => base + 80 + j),
    /** The instances pinned to one node each (see Cluster.startPinned), and their scrapes. */
    pinned: [0, 1, 2].map((i) => base + 75 + i),
    pinnedMetrics: [0, 1, 2].map((i) => base + 85 + i),
  };
}

function log(msg) {
  process.stderr.write(`[cluster] ${msg}\n`);
}

function which(names) {
  for (const name of names) {
    if (name.startsWith('/') && existsSync(name)) return name;
    try {
      return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
    } catch {
      // next
    }
  }
  return null;
}

/** Where the MariaDB server may be: the nodes, and the recovery of a killed node's position, run it. */
const MARIADBD = ['/usr/sbin/mariadbd', 'mariadbd'];

/** Installs the Debian packages the cluster needs when one is missing (apt-get, as root). */
export function ensurePackages() {
  const missing = [];
  if (!which(MARIADBD)) missing.push('mariadb-server');
  if (!GALERA_PROVIDERS.some((p) => existsSync(p))) missing.push('galera-4');
  if (!which(['/usr/sbin/haproxy', 'haproxy'])) missing.push('haproxy');
  if (!which(['redis-server'])) missing.push('redis-server');
  if (!which(['rsync'])) missing.push('rsync');
  if (!which(['mariadb', 'mysql'])) missing.push('mariadb-client');
  if (!missing.length) return;
  log(`installing ${missing.join(' ')} (apt-get)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { stdio: 'inherit', env });
}

async function waitFor(what, check, timeoutMs, onTimeout = () => '') {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms ${onTimeout()}`);
    await sleep(100);
  }
}

/** As root, the servers run as `mysql` (mariadb-server's account); otherwise as the caller. */
function serverUser() {
  return process.getuid?.() === 0 ? ['--user=mysql'] : [];
}

function portOpen(port) {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function killPid(pid, signal = 'SIGTERM', waitMs = 30_000) {
  if (!pid || !alive(pid)) return;
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + waitMs;
  while (alive(pid) && Date.now() < deadline) await sleep(50);
  if (alive(pid)) {
    process.kill(pid, 'SIGKILL');
    while (alive(pid)) await sleep(50);
  }
}

/**
 * One cluster: start(), the fault operations the test uses (killNode, freezeNode, isolateNode,
 * restartNode, killReplica, startReplica, restartReplica, startPinned, killPinned), stop(). Its
 * process ids live in `<dir>/state.json`, so another process (cluster:down) can stop exactly what
 * it started. `pinned: true` also starts, besides the replicas behind the API proxy, one instance
 * of the service per Galera node that talks to that node alone (no database proxy): writes through
 * two of them meet only at certification.
 */
export class Cluster {
  constructor({ base = 24100, replicas = 3, pinned = false, dir, env = {} } = {}) {
    this.base = base;
    this.replicaCount = replicas;
    this.pinned = pinned;
    this.dir = dir ?? mkdtempSync(join(tmpdir(), 'pms-cluster-'));
    this.p = ports(base, replicas);
    this.env = env;
    this.state = { base, dir: this.dir, replicas, pinned, pids: {}, jwtSecret: randomBytes(32).toString('hex'), adminPassword: 'cluster-admin-1' };
    this.database = 'pms';
  }

  static load(stateFile) {
    const state = JSON.parse(readFileSync(stateFile, 'utf8'));
    const c = new Cluster({ base: state.base, replicas: state.replicas, pinned: state.pinned, dir: state.dir });
    c.state = state;
    return c;
  }

  save() {
    writeFileSync(join(this.dir, 'state.json'), JSON.stringify(this.state, null, 2));
  }

  get dbUrl() {
    return `mysql://root@127.0.0.1:${this.p.dbProxy}/${this.database}`;
  }
  get apiUrl() {
    return `http://127.0.0.1:${this.p.apiProxy}`;
  }
  get redisUrl() {
    return `redis://127.0.0.1:${this.p.redis}`;
  }
  replicaUrl(j) {
    return `http://127.0.0.1:${this.p.replicas[j]}`;
  }
  /** The instance pinned to node i (started with `pinned: true`). */
  pinnedUrl(i) {
    return `http://127.0.0.1:${this.p.pinned[i]}`;
  }
  nodeLog(i) {
    return join(this.dir, `node${i}`, 'error.log');
  }

  /** The whole cluster: Galera nodes one after the other, the database proxy, Redis, the replicas at once, the API proxy. */
  async start() {
    ensurePackages();
    if (!existsSync(join(ROOT, 'dist/src/main.js'))) throw new Error('dist/src/main.js is missing: run npm run build first');
    for (const port of [
      ...this.p.nodes.flatMap((n) => [n.sql, n.wsrep, n.ist, n.sst]),
      this.p.dbProxy,
      this.p.apiProxy,
      this.p.stats,
      this.p.redis,
      ...this.p.replicas,
      ...(this.pinned ? this.p.pinned : []),
    ]) {
      if (await portOpen(port)) throw new Error(`port ${port} is taken: is a cluster already up? (npm run cluster:down, or set CLUSTER_PORT_BASE)`);
    }
    this.save();
    if (process.env.CLUSTER_POINTER && !existsSync(process.env.CLUSTER_POINTER)) writeFileSync(process.env.CLUSTER_POINTER, join(this.dir, 'state.json'));
    await this.startRedis();
    await this.initNodes();
    for (const i of [0, 1, 2]) await this.startNode(i, { bootstrap: i === 0 });
    await this.startDbProxy();
    await this.sql(0, `CREATE DATABASE IF NOT EXISTS ${this.database} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    // All replicas at once: their migration lock makes one run the migrations while the others wait.
    await Promise.all(this.p.replicas.map((_, j) => this.startReplica(j)));
    if (this.pinned) await Promise.all([0, 1, 2].map((i) => this.startPinned(i)));
    await this.startApiProxy();
    await waitFor('every replica healthy behind the API proxy', async () => (await this.proxyStates('api')).every((s) => s === 'UP'), 30_000);
    log(
      `up: API ${this.apiUrl} (replicas ${this.p.replicas.join(', ')}), database ${this.dbUrl}, Redis ${this.redisUrl}, HAProxy stats http://127.0.0.1:${this.p.stats}/`,
    );
    log(`admin: user admin, password ${this.state.adminPassword}; state in ${this.dir}`);
  }

  spawnLogged(name, cmd, args, env) {
    const out = openSync(join(this.dir, `${name}.log`), 'a');
    const child = spawn(cmd, args, { detached: true, stdio: ['ignore', out, out], env: env ?? process.env });
    closeSync(out);
    child.unref();
    this.state.pids[name] = child.pid;
    this.save();
    return child.pid;
  }

  async startRedis() {
    this.spawnLogged('redis', which(['redis-server']), [
      '--bind',
      '127.0.0.1',
      '--port',
      String(this.p.redis),
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      this.dir,
    ]);
    await waitFor('Redis answering', () => portOpen(this.p.redis), 10_000);
  }

  async initNodes() {
    const install = which(['mariadb-install-db', 'mysql_install_db']);
    const first = join(this.dir, 'node0', 'data');
    mkdirSync(dirname(first), { recursive: true });
    // As root, the servers run as the `mysql` account (rsync's SST daemon would drop root for
    // `nobody`, which may not write the joiner's data directory): it owns the node directories.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chmodSync(this.dir, 0o755);
    // Temporary tables in each node's own folder, never the shared /tmp (two bootstraps there at
    // once have collided on a temporary table's file).
    for (const i of [0, 1, 2]) mkdirSync(join(this.dir, `node${i}`, 'tmp'), { recursive: true });
    if (asRoot) execFileSync('chown', ['-R', 'mysql:mysql', dirname(first)]);
    execFileSync(
      install,
      [
        '--no-defaults',
        `--datadir=${first}`,
        `--tmpdir=${join(dirname(first), 'tmp')}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        ...serverUser(),
      ],
      {
        stdio: 'pipe',
        timeout: 120_000,
      },
    );
    // The joiners receive node 0's data by state transfer (rsync) anyway; a copy lets them start.
    for (const i of [1, 2]) cpSync(first, join(this.dir, `node${i}`, 'data'), { recursive: true });
    if (asRoot) for (const i of [0, 1, 2]) execFileSync('chown', ['-R', 'mysql:mysql', join(this.dir, `node${i}`)]);
  }

  nodeConfig(i) {
    const n = this.p.nodes[i];
    const dir = join(this.dir, `node${i}`);
    const provider = GALERA_PROVIDERS.find((p) => existsSync(p));
    const members = this.p.nodes.map((m) => `127.0.0.1:${m.wsrep}`).join(',');
    const file = join(dir, 'my.cnf');
    writeFileSync(
      file,
      `[mysqld]
${serverUser()
  .map((u) => u.slice(2))
  .join('\n')}
datadir=${join(dir, 'data')}
tmpdir=${join(dir, 'tmp')}
port=${n.sql}
bind-address=127.0.0.1
socket=${join(dir, 'mysqld.sock')}
pid-file=${join(dir, 'mysqld.pid')}
log-error=${join(dir, 'error.log')}
# Small: three nodes, replicas and the tests share a 2-core machine.
innodb_buffer_pool_size=64M
innodb_log_file_size=32M
innodb_flush_log_at_trx_commit=2
max_connections=300
performance_schema=OFF
# What Galera requires.
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
wsrep_on=ON
wsrep_provider=${provider}
wsrep_cluster_name=pms-${this.base}
wsrep_cluster_address=gcomm://${members}
wsrep_node_name=node${i}
wsrep_node_address=127.0.0.1:${n.wsrep}
# Own ports for group communication, IST and SST; failure detection tuned for one machine / a LAN
# (a node that stops answering is evicted after ~2 s instead of ~5 s).
wsrep_provider_options="base_port=${n.wsrep};gmcast.listen_addr=tcp://127.0.0.1:${n.wsrep};ist.recv_addr=127.0.0.1:${n.ist};gcache.size=128M;evs.keepalive_period=PT0.3S;evs.suspect_timeout=PT1.5S;evs.inactive_check_period=PT0.3S;evs.inactive_timeout=PT3S;evs.install_timeout=PT3S;pc.wait_prim_timeout=PT30S"
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:${n.sst}
wsrep_slave_threads=2
`,
    );
    return file;
  }

  async startNode(i, { bootstrap = false, startPosition } = {}) {
    const file = this.nodeConfig(i);
    const args = [
      `--defaults-file=${file}`,
      ...(bootstrap ? ['--wsrep-new-cluster'] : []),
      ...(startPosition ? [`--wsrep-start-position=${startPosition}`] : []),
    ];
    this.spawnLogged(`node${i}`, which(MARIADBD), args);
    await waitFor(
      `Galera node ${i} synced`,
      async () => (await this.nodeState(i)) === 'Synced',
      120_000,
      () => `(the nodes: ${this.states()})\n${this.tail(this.nodeLog(i))}`,
    );
    log(`node${i} synced (port ${this.p.nodes[i].sql})`);
  }

  /** SIGKILL one Galera node: no clean shutdown, its connections drop. */
  async killNode(i) {
    await killPid(this.state.pids[`node${i}`], 'SIGKILL');
  }

  /**
   * SIGKILLs several nodes `gapMs` apart (the signals at those instants; a killed server takes a
   * second or two to be gone), then waits until all are gone. Answers when each signal went.
   */
  async killNodes(nodes, gapMs) {
    const sent = [];
    for (const [n, i] of nodes.entries()) {
      if (n > 0) await sleep(gapMs);
      process.kill(this.state.pids[`node${i}`], 'SIGKILL');
      sent.push(Date.now());
    }
    await Promise.all(nodes.map((i) => killPid(this.state.pids[`node${i}`], 'SIGKILL')));
    return sent;
  }

  /** Freezes a node (SIGSTOP): it answers nothing, so the others hold every commit until they evict it. */
  freezeNode(i) {
    process.kill(this.state.pids[`node${i}`], 'SIGSTOP');
  }

  /** Lets a frozen node run again (SIGCONT): it finds itself evicted and rejoins (IST). */
  thawNode(i) {
    process.kill(this.state.pids[`node${i}`], 'SIGCONT');
  }

  /**
   * Cuts node i off from the group (Galera's `gmcast.isolate`): it keeps running and answering its
   * clients, but leaves the primary component (error 1047 for every statement) until rejoinNode(i).
   */
  isolateNode(i) {
    this.sql(i, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=1'");
  }

  /** Ends isolateNode(i): the node reconnects to the group and catches up (IST). */
  rejoinNode(i) {
    this.sql(i, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=0'");
  }

  /**
   * Starts a killed node again on its data directory, as a deployment's unit does (MariaDB's
   * `galera_recovery` before `mariadbd`): the position its storage committed last is recovered
   * first (`--wsrep-recover`), so it rejoins by IST from a donor's gcache. A killed node's
   * grastate.dat says seqno -1, and started without that position it would take a full state
   * transfer (rsync of its whole data directory, one joiner per donor at a time): two such
   * transfers in a row took 27–35 s here, and a CI run's restart of two nodes outlasted its 120 s.
   */
  async restartNode(i) {
    await this.startNode(i, { startPosition: await this.recoverPosition(i) });
  }

  /** `uuid:seqno` the node's storage recovers to (`mariadbd --wsrep-recover`), or undefined if it names none. */
  recoverPosition(i) {
    // --disable-log-error: the recovery's log goes to stderr, where its position is read. Not
    // synchronous: the test's workloads keep running in this process meanwhile.
    const child = spawn(which(MARIADBD), [`--defaults-file=${this.nodeConfig(i)}`, '--wsrep-recover', '--disable-log-error'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => {
        if (code !== 0) reject(new Error(`mariadbd --wsrep-recover of node ${i} failed (${code ?? signal}):\n${text.slice(-2000)}`));
        else resolve(/WSREP: Recovered position: *([0-9a-f-]{36}:-?\d+)/.exec(text)?.[1]);
      });
    });
  }

  /** mysql client against one node directly (not through the proxy): answers stdout. */
  sql(i, statement, database) {
    const client = which(['mariadb', 'mysql']);
    return execFileSync(
      client,
      ['--protocol=tcp', '-h127.0.0.1', `-P${this.p.nodes[i].sql}`, '-uroot', '-N', '-B', ...(database ? [database] : []), '-e', statement],
      {
        encoding: 'utf8',
        timeout: 30_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
  }

  /** Each node's Galera state and component, or why it did not answer: for a failure's message. */
  states() {
    return [0, 1, 2]
      .map((n) => {
        try {
          const out = this.sql(n, "SHOW STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_cluster_status', 'wsrep_cluster_size')");
          return `node${n} ${out
            .trim()
            .replace(/wsrep_/g, '')
            .replace(/\t/g, '=')
            .split('\n')
            .join(' ')}`;
        } catch (e) {
          return `node${n} unreachable (${String(e.message).split('\n')[0].slice(0, 120)})`;
        }
      })
      .join(', ');
  }

  async nodeState(i) {
    const out = this.sql(i, "SHOW STATUS LIKE 'wsrep_local_state_comment'");
    return out.trim().split('\t')[1];
  }

  async startDbProxy() {
    const check = join(this.dir, 'galera-check.sh');
    const client = which(['mariadb', 'mysql']);
    // HAProxy's external check: a node is up only when Galera says it is Synced (a joiner, a donor
    // busy with a transfer, or a node outside the primary component is down).
    writeFileSync(
      check,
      `#!/bin/sh\n# args: proxy address, proxy port, server address, server port\nstate=$(${client} --protocol=tcp -h"$3" -P"$4" -uroot -N -B --connect-timeout=1 -e "SHOW STATUS LIKE 'wsrep_local_state'" 2>/dev/null | cut -f2)\n[ "$state" = "4" ]\n`,
    );
    chmodSync(check, 0o755);
    // HAProxy kills an external check that has not finished within `inter` (its `timeout check`
    // does not apply to them), so `inter` is the check's whole budget: at 500 ms a live node's
    // check (a shell and a client) timed out three times in a row on a loaded CI machine, the node
    // was taken out and every session it carried closed. 1.5 s each, two failures in a row (3 s)
    // take a node out. A node that died refuses new connections at once, and those go to another
    // node (redispatch, below), so the slower check only delays the stats page, not the clients.
    const servers = this.p.nodes
      .map((n, i) => `  server node${i} 127.0.0.1:${n.sql} check inter 1500 fall 2 rise 2 on-marked-down shutdown-sessions`)
      .join('\n');
    const cfg = join(this.dir, 'haproxy-db.cfg');
    writeFileSync(
      cfg,
      `global
  maxconn 2000
  external-check
  insecure-fork-wanted
defaults
  mode tcp
  timeout connect 2s
  timeout client 1h
  timeout server 1h
  timeout check 2s
frontend galera
  bind 127.0.0.1:${this.p.dbProxy}
  default_backend galera
backend galera
  # Every node takes reads and writes (multi-primary): the service retries certification
  # conflicts and reads with wsrep_sync_wait (docs/scaling.md).
  balance leastconn
  # A new connection refused by a node that died since its last check (leastconn prefers it: its
  # sessions are gone) is tried again on another node at once instead of failing the client's
  # connect after the retries' turn-around delays.
  retries 3
  option redispatch 1
  option external-check
  external-check path "/usr/bin:/bin:/usr/sbin:/sbin"
  external-check command ${check}
${servers}
listen stats
  mode http
  bind 127.0.0.1:${this.p.stats}
  stats enable
  stats uri /
  stats show-legends
`,
    );
    this.spawnLogged('haproxy-db', which(['/usr/sbin/haproxy', 'haproxy']), ['-db', '-f', cfg]);
    await waitFor('the database proxy', () => portOpen(this.p.dbProxy), 10_000);
    await waitFor('every Galera node up behind the proxy', async () => (await this.proxyStates('galera')).every((s) => s === 'UP'), 20_000);
  }

  async startApiProxy() {
    const servers = this.p.replicas
      .map((port, j) => `  server replica${j} 127.0.0.1:${port} check inter 500 fall 4 rise 2 observe layer4 error-limit 1 on-error mark-down`)
      .join('\n');
    const cfg = join(this.dir, 'haproxy-api.cfg');
    writeFileSync(
      cfg,
      `global
  maxconn 4000
  # Every request with the replica that served it and how it ended (haproxy-api.log): what the
  # cluster test prints when a request of a rolling restart fails.
  log stdout format raw local0
defaults
  mode http
  log global
  option httplog
  timeout connect 2s
  timeout client 65s
  timeout server 30s
  timeout http-keep-alive 60s
  # Readiness waits up to 1 s for the database before it answers 503: the check waits for that
  # answer (without this, a check times out at inter, 500 ms, and a replica that is slow but
  # ready counted as down; on a slow machine all three could go at once).
  timeout check 2s
  option http-keep-alive
frontend api
  bind 127.0.0.1:${this.p.apiProxy}
  default_backend replicas
backend replicas
  balance roundrobin
  option httpchk GET /health/ready
  http-check expect status 200
  # A replica that is shutting down refuses new connections and closes idle ones: such a request
  # never reached it, so it goes to another (no request that reached a replica is sent twice).
  retries 3
  retry-on conn-failure empty-response
  option redispatch 1
  # A refused connection takes that replica out at once (observe layer4 … on-error mark-down,
  # below) instead of after four failed checks: without it about one request in eight of a rolling
  # restart went to a replica that had exited and was resent; the checks bring it back (rise 2).
  # Readiness follows the database: during a database failover every replica may be unready for a
  # moment (fall 4: 2 s before a replica is taken out, and requests in flight are not cut). When
  # no replica is ready the proxy's own 503 says when to come back, like the service's.
  http-after-response set-header Retry-After 1 if { status 503 } !{ res.hdr(Retry-After) -m found }
${servers}
`,
    );
    this.spawnLogged('haproxy-api', which(['/usr/sbin/haproxy', 'haproxy']), ['-db', '-f', cfg]);
    // The stats socket is not needed: states come from the stats page (CSV) of the db proxy for
    // the database, and from the replicas' own readiness for the API (below).
    await waitFor('the API proxy', () => portOpen(this.p.apiProxy), 10_000);
  }

  /** UP/DOWN per server of a backend: Galera from HAProxy's stats page, replicas from their readiness. */
  async proxyStates(which) {
    if (which === 'api') {
      return Promise.all(
        this.p.replicas.map(async (_, j) => {
          try {
            const r = await fetch(`${this.replicaUrl(j)}/health/ready`, { signal: AbortSignal.timeout(2000) });
            return r.status === 200 ? 'UP' : 'DOWN';
          } catch {
            return 'DOWN';
          }
        }),
      );
    }
    const csv = await (await fetch(`http://127.0.0.1:${this.p.stats}/;csv`)).text();
    return csv
      .split('\n')
      .filter((l) => l.startsWith('galera,node'))
      .map((l) => l.split(',')[17]);
  }

  replicaEnv(j, databaseUrl = this.dbUrl) {
    return {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: process.env.CLUSTER_LOG_LEVEL ?? 'info',
      HOST: '127.0.0.1',
      PORT: String(this.p.replicas[j]),
      METRICS_PORT: String(this.p.metrics[j]),
      DATABASE_URL: databaseUrl,
      REDIS_URL: this.redisUrl,
      REDIS_PREFIX: `pms${this.base}:`,
      JWT_SECRET: this.state.jwtSecret,
      // The workloads are over the default request budgets (docs/limits.md), which are not under test here.
      RATE_LIMIT_PER_CALLER: '1000000000',
      RATE_LIMIT_PER_SITE: '1000000000',
      ADMIN_PASSWORD: this.state.adminPassword,
      SHUTDOWN_GRACE_MS: '10000',
      ...this.env,
    };
  }

  async startReplica(j) {
    await this.startInstance(`replica${j}`, this.replicaUrl(j), this.replicaEnv(j));
  }

  /** Starts the instance pinned to node i: DATABASE_URL names that node's own port, not the proxy. */
  async startPinned(i) {
    const env = { ...this.replicaEnv(0, `mysql://root@127.0.0.1:${this.p.nodes[i].sql}/${this.database}`) };
    Object.assign(env, { PORT: String(this.p.pinned[i]), METRICS_PORT: String(this.p.pinnedMetrics[i]) });
    await this.startInstance(`pinned${i}`, this.pinnedUrl(i), env);
  }

  async killPinned(i) {
    await killPid(this.state.pids[`pinned${i}`], 'SIGKILL');
  }

  async startInstance(name, url, env) {
    this.spawnLogged(name, process.execPath, [...startNodeFlags(), join(ROOT, 'dist/src/main.js')], { ...deployedEnv(), ...(env ?? process.env) });
    await waitFor(
      `${name} ready`,
      async () => (await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2000) })).status === 200,
      120_000,
      () => `\n${this.tail(join(this.dir, `${name}.log`))}`,
    );
  }

  async killReplica(j) {
    await killPid(this.state.pids[`replica${j}`], 'SIGKILL');
  }

  /** SIGTERM (the graceful drain a Kubernetes rollout sends), wait for the exit, start again, wait until ready. */
  async restartReplica(j) {
    await killPid(this.state.pids[`replica${j}`], 'SIGTERM', 30_000);
    await this.startReplica(j);
  }

  tail(file, lines = 30) {
    try {
      return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return `(no ${file})`;
    }
  }

  /** Stops everything this cluster started, replicas first, by the recorded process ids; removes its data. */
  async stop({ keepData = false } = {}) {
    const order = [...Object.keys(this.state.pids).filter((n) => /^(replica|pinned)/.test(n)), 'haproxy-api', 'haproxy-db', 'node2', 'node1', 'node0', 'redis'];
    for (const name of order) {
      const pid = this.state.pids[name];
      if (pid) await killPid(pid, 'SIGTERM', 20_000);
      delete this.state.pids[name];
    }
    if (!keepData) rmSync(this.dir, { recursive: true, force: true });
  }
}

// Where `up` records the state file of the cluster it started, for `down`; CLUSTER_POINTER moves it
// (CI points it at the test's cluster so that a timed-out test's servers are stopped too).
const STATE_POINTER = process.env.CLUSTER_POINTER ?? join(ROOT, '.cluster', 'current');

async function main(cmd) {
  if (cmd === 'up') {
    if (existsSync(STATE_POINTER)) throw new Error(`a cluster is already up (${readFileSync(STATE_POINTER, 'utf8').trim()}): npm run cluster:down first`);
    const cluster = new Cluster({ base: Number(process.env.CLUSTER_PORT_BASE ?? 24100), replicas: Number(process.env.CLUSTER_REPLICAS ?? 3) });
    mkdirSync(dirname(STATE_POINTER), { recursive: true });
    writeFileSync(STATE_POINTER, join(cluster.dir, 'state.json'));
    try {
      await cluster.start();
    } catch (e) {
      log(`start failed, stopping what started: ${e.message}`);
      await cluster.stop({ keepData: process.env.CLUSTER_KEEP_DATA === '1' });
      rmSync(STATE_POINTER, { force: true });
      throw e;
    }
    return;
  }
  if (cmd === 'down') {
    if (!existsSync(STATE_POINTER)) return log('no cluster is up');
    const file = readFileSync(STATE_POINTER, 'utf8').trim();
    if (existsSync(file)) await Cluster.load(file).stop();
    rmSync(STATE_POINTER, { force: true });
    return log('down');
  }
  if (cmd === 'status') {
    if (!existsSync(STATE_POINTER)) return log('no cluster is up');
    const cluster = Cluster.load(readFileSync(STATE_POINTER, 'utf8').trim());
    for (const i of [0, 1, 2]) log(`node${i}: ${await cluster.nodeState(i).catch(() => 'down')}`);
    log(`galera behind the proxy: ${(await cluster.proxyStates('galera').catch(() => [])).join(' ')}`);
    log(`replicas: ${(await cluster.proxyStates('api')).join(' ')}; API ${cluster.apiUrl}`);
    return;
  }
  throw new Error('usage: node scripts/cluster.mjs up|down|status');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv[2]).catch((e) => {
    log(e.message);
    process.exit(1);
  });
}
