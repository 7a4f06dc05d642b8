import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A MariaDB server of the test's own: a fresh data directory in a temp folder, on a free port of
 * its own, so it can be killed and stopped without touching the machine's shared instance. The
 * same data directory and port survive a kill, so a restart is the database "coming back".
 */
export class PrivateMariaDb {
  /** `serverArgs`: more options for mariadbd, e.g. `--character-set-server=latin1`. */
  constructor(private readonly serverArgs: string[] = []) {}

  readonly dir = mkdtempSync(join(tmpdir(), 'pms-faults-db-'));
  private readonly tmp = join(this.dir, 'tmp');
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private stopped = false;
  port = 0;

  private static binary(names: string[]): string {
    for (const name of names) {
      if (name.startsWith('/') && existsSync(name)) return name;
      try {
        return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      } catch {
        // try the next name
      }
    }
    throw new Error(`none of ${names.join(', ')} is installed: the fault tests need a MariaDB server (apt-get install mariadb-server)`);
  }

  /** Creates the data directory and starts the server; resolves when it answers. */
  async start(): Promise<void> {
    const install = PrivateMariaDb.binary(['mariadb-install-db', 'mysql_install_db']);
    const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
    // Temporary tables in a folder of this server's own: two servers bootstrapping at once in the
    // shared /tmp (the fault suite runs two files side by side) made one of them fail with
    // "Could not remove temporary table '/tmp/#sql-temptable-…'" and "Unknown table 'mysql.tmp_proxies_priv'".
    mkdirSync(this.tmp, { recursive: true });
    execFileSync(
      install,
      ['--no-defaults', `--datadir=${join(this.dir, 'data')}`, `--tmpdir=${this.tmp}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...asRoot],
      {
        stdio: 'pipe',
        timeout: 60_000,
      },
    );
    this.port = await freePort();
    await this.launch();
  }

  private async launch(): Promise<void> {
    const server = PrivateMariaDb.binary(['/usr/sbin/mariadbd', 'mariadbd', '/usr/sbin/mysqld', 'mysqld']);
    const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
    this.child = spawn(
      server,
      [
        '--no-defaults',
        `--datadir=${join(this.dir, 'data')}`,
        `--tmpdir=${this.tmp}`,
        `--port=${this.port}`,
        '--bind-address=127.0.0.1',
        `--socket=${join(this.dir, 'mysqld.sock')}`,
        `--pid-file=${join(this.dir, 'mysqld.pid')}`,
        `--log-error=${join(this.dir, 'error.log')}`,
        '--innodb-buffer-pool-size=64M',
        '--max-connections=300',
        ...this.serverArgs,
        ...asRoot,
      ],
      { stdio: 'ignore' },
    );
    const child = this.child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.stopped = false;
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        const c = await mysql.createConnection({ host: '127.0.0.1', port: this.port, user: 'root', connectTimeout: 1000 });
        await c.end();
        return;
      } catch (e) {
        if (child.exitCode !== null || Date.now() > deadline) {
          throw new Error(`MariaDB did not start on port ${this.port}: ${(e as Error).message}\n${this.errorLog()}`, { cause: e });
        }
        await sleep(100);
      }
    }
  }

  get url(): string {
    return `mysql://root@127.0.0.1:${this.port}`;
  }

  /** Creates empty databases of the service's character set on this server; answers the URL of the first. */
  async createDatabase(...names: string[]): Promise<string> {
    const admin = await this.connect();
    try {
      for (const name of names) await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    } finally {
      await admin.end();
    }
    return `${this.url}/${names[0]}`;
  }

  /** A connection of the test's own (not the service's pool), for setup and checks. */
  connect(database?: string) {
    return mysql.createConnection({ host: '127.0.0.1', port: this.port, user: 'root', database });
  }

  /** SIGKILL: the server is gone at once, connections drop, nothing is flushed politely. */
  async kill(): Promise<void> {
    this.child?.kill('SIGKILL');
    await this.exited;
  }

  /** Starts the server again on the same data directory and port (after kill()). */
  restart(): Promise<void> {
    return this.launch();
  }

  /** SIGSTOP: the server freezes; connections stay open and nothing answers. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
    this.stopped = true;
  }

  /** SIGCONT after freeze(). */
  thaw(): void {
    this.child?.kill('SIGCONT');
    this.stopped = false;
  }

  errorLog(): string {
    try {
      return readFileSync(join(this.dir, 'error.log'), 'utf8').split('\n').slice(-15).join('\n');
    } catch {
      return '(no error log)';
    }
  }

  /** Kills the server (even a frozen one) and removes its data directory. */
  async destroy(): Promise<void> {
    if (this.child && this.child.exitCode === null) {
      if (this.stopped) this.child.kill('SIGCONT');
      this.child.kill('SIGKILL');
      await this.exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
