import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The service as its own process (`node dist/src/main.js`, built by `npm run test:faults` before
 * the tests run), so faults hit exactly what runs in production and the test's own load
 * generator does not share an event loop with it.
 */
export interface AppProcess {
  child: ChildProcess;
  port: number;
  base: string;
  /** Resolves with the exit code and when it came. */
  exited: Promise<{ code: number | null; at: number }>;
  /** The last 256 KB the process wrote. */
  output: () => string;
  /** Every warn and error line it logged. */
  problems: () => string[];
  stop: () => Promise<void>;
}

export const ADMIN_PASSWORD = 'fault-admin-pass-1';

/** How long a start may take to print the line waited for. */
const START_WAIT_MS = 90_000;

/** The line a start prints once it serves; its group is the port. */
const LISTENING = /listening on http:\/\/[^:/\s]+:(\d+)/;

/**
 * Starts the service and resolves once it printed `until` (by default the line it prints once it
 * serves, which names the port; for an earlier line, give PORT in `env`).
 */
export function startAppProcess(env: Record<string, string>, until: RegExp = LISTENING): Promise<AppProcess> {
  const main = join(process.cwd(), 'dist/src/main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run the fault tests with npm run test:faults (it builds first)`);
  const child = spawn(process.execPath, [main], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      JWT_SECRET: 'f'.repeat(40),
      // The load here is over the default request budgets (docs/limits.md), which are not under test.
      RATE_LIMIT_PER_CALLER: '1000000000',
      RATE_LIMIT_PER_SITE: '1000000000',
      ADMIN_PASSWORD,
      PORT: '0',
      METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let partial = '';
  const problems: string[] = [];
  const take = (d: Buffer) => {
    out = (out + d).slice(-256 * 1024);
    const lines = (partial + d).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (!line.startsWith('{') || /"level":"(warn|error)"/.test(line)) problems.push(line);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: Date.now() })));
  return new Promise((resolve, reject) => {
    // A generous wait: a first start migrates a new database (15 s on a busy 2-core machine), and how
    // long a start takes is not what these tests hold. One that never gets there is killed, so that
    // no process outlives the test that started it.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no line matching ${until} within ${START_WAIT_MS / 1000} s:\n${out}`));
    }, START_WAIT_MS);
    const check = () => {
      const m = until.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      const port = Number(until === LISTENING ? m[1] : env.PORT);
      resolve({
        child,
        port,
        base: `http://127.0.0.1:${port}`,
        exited,
        output: () => out,
        problems: () => problems,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          await exited;
        },
      });
    };
    child.stdout!.on('data', check);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ${until === LISTENING ? 'listening' : `printing ${until}`}:\n${out}`));
    });
  });
}

/** Logs in as the bootstrap administrator and returns the bearer token. */
export async function adminToken(base: string): Promise<string> {
  const res = await fetch(`${base}/v4/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ UserName: 'admin', Password: ADMIN_PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`admin login failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
