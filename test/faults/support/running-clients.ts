/**
 * The client loops of a test (Load, HistoryWorkload) still running. Each registers itself when it
 * starts and leaves when stopped; `stopRunningClients()` in a spec's afterEach stops what a failed
 * test left running — its loops would otherwise keep sending requests after the test ended, and a
 * suite run in band (the cluster's) would not exit until CI's timeout ended the step (a cluster
 * run on 2026-11-30 waited 460 s after its last test).
 */
export interface RunningClient {
  stop(): Promise<void>;
}

const running = new Set<RunningClient>();

export function startedClient(client: RunningClient): void {
  running.add(client);
}

export function stoppedClient(client: RunningClient): void {
  running.delete(client);
}

/** Stops every client still running (each stop is idempotent). */
export async function stopRunningClients(): Promise<void> {
  const left = [...running];
  running.clear();
  await Promise.all(left.map((c) => c.stop()));
}
