/**
 * A history checker in Jepsen's manner (docs/scaling.md, "Histories under faults"): the workloads
 * (history-workloads.ts) record every request as its client saw it — invoked, then ok, failed for
 * certain, or unknown — while faults are injected; afterwards the database's final state is read,
 * and `checkHistory` says what, if anything, contradicts the history. A pure module: history and
 * final state in, verdicts out (its own unit tests, test/unit/history.spec.ts, prove each verdict
 * can fail).
 */

/** How a request ended for its client: done, certainly not done, or either (Jepsen's ok / fail / info). */
export type Outcome = 'ok' | 'fail' | 'unknown';

/**
 * What a client did:
 * - `append`: a comment with a unique body (`value`) on the record `key`, sent with an
 *   Idempotency-Key (`idemKey`, shared by every retry of the same comment);
 * - `write`: a field of the record `key` set to `value` (each record has one writer, whose writes
 *   are sequential, so their order is known);
 * - `cas`: the same field set to `value` with `If-Match: <ifMatch>` (several clients race);
 * - `read`: the field of `key` read (`read` is what was seen).
 */
export interface Op {
  process: string;
  f: 'append' | 'write' | 'cas' | 'read';
  key: string;
  value?: string;
  idemKey?: string;
  ifMatch?: string;
  /** What a read saw; what an ok append answered as the comment's ID is in `id`. */
  read?: string | null;
  id?: string;
  invokedAt: number;
  completedAt: number;
  outcome: Outcome;
  /** HTTP status, 0 when no answer came. */
  status: number;
  /** Whether a 503 carried Retry-After. */
  retryAfter?: boolean;
  /** The service instance that served it (and so the database node). */
  via: string;
  /** The start of a failure's answer, or the network error. */
  error?: string;
}

/**
 * Whether a request was done, from its answer: 2xx ok; a 4xx (validation, 404, 409, 412…) or a
 * connection the service refused means nothing ran; anything else — a 503, another 5xx, no answer
 * — may have committed (a COMMIT whose answer was lost, an instance killed after its commit).
 */
export function outcomeOf(status: number, networkError?: string): Outcome {
  if (status >= 200 && status < 300) return 'ok';
  if (status >= 400 && status < 500) return 'fail';
  if (status === 0 && networkError === 'ECONNREFUSED') return 'fail';
  return 'unknown';
}

/** The database after the faults, as the checker needs it. */
export interface FinalState {
  /** Comments on the append workload's records: ID, the record, and the body (the appended value). */
  comments: { id: string; key: string; body: string }[];
  /** The field of each register record as it ended (`write`, `cas`), by record ID. */
  registers: Record<string, string | null>;
  /**
   * The row version of each record the workloads wrote (comments' record included), by ID: every
   * committed write of a record moves it on by one and adds one audit row, so the two must agree.
   */
  versions: Record<string, number>;
  /** Audit rows of the records the workloads touched: kind, row, action, and the register field's value after it, when it changed. */
  audit: { kind: string; rowId: string; action: string; after?: string | null }[];
  /**
   * Per site: audit rows, their lowest and highest sequence number, the site's change counter, and
   * the numbers missing before the history began (a gap an earlier run left is not this one's).
   */
  sequences: { siteId: string; rows: number; min: number; max: number; counter: number; missingBefore?: number }[];
  /** Idempotency keys whose row holds no answer (status 0) that outlived their transaction. */
  unansweredKeys: number;
  /** Such keys before the history began (an earlier run's are not this one's). */
  unansweredBefore?: number;
  /** When the final state was read (ms since the epoch), for an anomaly's report. */
  readAt?: number;
}

export type AnomalyKind =
  | 'lost'
  | 'duplicate'
  | 'failed-but-present'
  | 'replay-mismatch'
  | 'missing-audit'
  | 'sequence-gap'
  | 'stuck-key'
  | 'stale-read'
  | 'two-winners'
  | 'server-error';

export interface Anomaly {
  kind: AnomalyKind;
  detail: string;
}

export interface Verdict {
  valid: boolean;
  anomalies: Anomaly[];
  /** What the history holds, for the figures a run prints. */
  counts: {
    requests: number;
    ok: number;
    fail: number;
    unknown: number;
    /** Writes (appends, field writes, If-Match writes) acknowledged. */
    acknowledged: number;
    reads: number;
    /** 503 answers (each with Retry-After, or a `server-error` anomaly). */
    unavailable: number;
    /** Requests cut off without an answer (outcome unknown). */
    unanswered: number;
    /** Connections refused: the instance was down, nothing ran. */
    refused: number;
  } & Record<AnomalyKind, number>;
}

/** The field the register and If-Match workloads write, named as the audit trail names it. */
export const REGISTER_FIELD = 'Description';
/** The kind the audit trail gives comments. */
export const COMMENT_KIND = 'comment';

const ANOMALY_KINDS: AnomalyKind[] = [
  'lost',
  'duplicate',
  'failed-but-present',
  'replay-mismatch',
  'missing-audit',
  'sequence-gap',
  'stuck-key',
  'stale-read',
  'two-winners',
  'server-error',
];

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = keyOf(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** Checks a history against the final state: every verdict the issue of recorded histories asks for. */
export function checkHistory(history: readonly Op[], final: FinalState): Verdict {
  const anomalies: Anomaly[] = [];
  const flag = (kind: AnomalyKind, detail: string) => anomalies.push({ kind, detail });

  // Every answer of the service: 5xx other than 503, or a 503 that does not say when to come back.
  for (const op of history) {
    if (op.status >= 500 && op.status !== 503) flag('server-error', `${op.f} ${op.key} via ${op.via} answered ${op.status}: ${op.error ?? ''}`.trim());
    else if (op.status === 503 && !op.retryAfter) flag('server-error', `${op.f} ${op.key} via ${op.via} answered 503 without Retry-After`);
  }

  checkAppends(history, final, flag);
  const auditOf = groupBy(final.audit, (a) => a.rowId);
  checkRegisters(history, final, auditOf, flag);
  for (const [id, version] of Object.entries(final.versions)) {
    const rows = auditOf.get(id)?.length ?? 0;
    if (rows !== version)
      flag(
        'missing-audit',
        `record ${id} is at version ${version} with ${rows} audit rows: ${rows < version ? 'a write committed without its audit row' : 'audit rows of writes that are not there'}`,
      );
  }

  for (const s of final.sequences) {
    // Numbers the counter handed out that no audit row carries: holes in the range, or past its end.
    const missing = s.max - s.min + 1 - s.rows + (s.counter - s.max);
    if (missing > (s.missingBefore ?? 0) || s.counter < s.max) {
      const before = s.missingBefore ? ` (${s.missingBefore} missing before)` : '';
      flag('sequence-gap', `site ${s.siteId}: ${s.rows} audit rows numbered ${s.min}–${s.max}, change counter at ${s.counter}${before}`);
    }
  }
  if (final.unansweredKeys > (final.unansweredBefore ?? 0)) {
    flag('stuck-key', `${final.unansweredKeys - (final.unansweredBefore ?? 0)} idempotency key(s) committed without their answer`);
  }

  const count = (f: (op: Op) => boolean) => history.filter(f).length;
  const byKind = Object.fromEntries(ANOMALY_KINDS.map((k) => [k, anomalies.filter((a) => a.kind === k).length])) as Record<AnomalyKind, number>;
  return {
    valid: anomalies.length === 0,
    anomalies,
    counts: {
      requests: history.length,
      ok: count((op) => op.outcome === 'ok'),
      fail: count((op) => op.outcome === 'fail'),
      unknown: count((op) => op.outcome === 'unknown'),
      acknowledged: new Set(history.filter((op) => op.f !== 'read' && op.outcome === 'ok').map((op) => `${op.f}:${op.key}:${op.value}`)).size,
      reads: count((op) => op.f === 'read'),
      unavailable: count((op) => op.status === 503),
      unanswered: count((op) => op.status === 0 && op.outcome === 'unknown'),
      refused: count((op) => op.status === 0 && op.outcome === 'fail'),
      ...byKind,
    },
  };
}

type Flag = (kind: AnomalyKind, detail: string) => void;

/**
 * Idempotent appends: an acknowledged comment is there exactly once, with the ID every ok attempt
 * answered; a comment whose every attempt failed for certain is not there; no comment is there
 * twice; every comment there has its audit row.
 */
function checkAppends(history: readonly Op[], final: FinalState, flag: Flag): void {
  const appends = history.filter((op) => op.f === 'append');
  const stored = groupBy(final.comments, (c) => c.body);
  const created = new Set(final.audit.filter((a) => a.kind === COMMENT_KIND && a.action === 'create').map((a) => a.rowId));
  for (const [value, attempts] of groupBy(appends, (op) => op.value ?? '')) {
    const there = stored.get(value) ?? [];
    const oks = attempts.filter((op) => op.outcome === 'ok');
    if (there.length > 1) flag('duplicate', `comment "${value}" is there ${there.length} times`);
    if (oks.length > 0 && there.length === 0) {
      const last = oks[oks.length - 1];
      const before = final.readAt === undefined ? '' : `, ${final.readAt - last.completedAt} ms before the final state was read`;
      flag('lost', `comment "${value}" was acknowledged (${oks.length}×, last via ${last.via}${before}) and is not there`);
    }
    if (attempts.every((op) => op.outcome === 'fail') && there.length > 0) {
      flag('failed-but-present', `comment "${value}" is there though every attempt failed (${attempts.map((op) => op.status).join(', ')})`);
    }
    const ids = new Set(oks.map((op) => op.id));
    if (ids.size > 1 || (ids.size === 1 && there.length === 1 && !ids.has(there[0].id))) {
      flag('replay-mismatch', `comment "${value}": answered as ${[...ids].join(', ')}, stored as ${there.map((c) => c.id).join(', ')}`);
    }
  }
  for (const c of final.comments) {
    if (!created.has(c.id)) flag('missing-audit', `comment ${c.id} ("${c.body}") has no create row in the audit trail`);
  }
}

/**
 * Field writes and If-Match races on register records: the final value is the last acknowledged
 * write's or one whose outcome is unknown (an unknown write may take effect at any time after it
 * was sent); never a write that failed for certain; each acknowledged write has its audit row;
 * two acknowledged writes with one If-Match are two winners; a read sees at least the last write
 * acknowledged before it began.
 */
function checkRegisters(history: readonly Op[], final: FinalState, auditOf: Map<string, FinalState['audit']>, flag: Flag): void {
  const writesOf = groupBy(
    history.filter((op) => op.f === 'write' || op.f === 'cas'),
    (op) => op.key,
  );
  const readsOf = groupBy(
    history.filter((op) => op.f === 'read'),
    (op) => op.key,
  );
  const keys = new Set([...writesOf.keys(), ...readsOf.keys()]);
  for (const key of keys) {
    // In the order they were sent: one writer per record for `write`, so this is its program order.
    const writes = [...(writesOf.get(key) ?? [])].sort((a, b) => a.invokedAt - b.invokedAt);
    const byValue = new Map(writes.map((op) => [op.value, op]));
    const audited = (auditOf.get(key) ?? []).filter((a) => a.after !== undefined);
    const auditedValues = new Set(audited.map((a) => a.after));

    for (const op of writes) {
      if (op.outcome === 'ok' && !auditedValues.has(op.value))
        flag('missing-audit', `${op.f} of ${key} to "${op.value}" was acknowledged and has no audit row`);
      if (op.outcome === 'fail' && auditedValues.has(op.value))
        flag('failed-but-present', `${op.f} of ${key} to "${op.value}" failed (${op.status}) and is in the audit trail`);
    }
    for (const [ifMatch, racers] of groupBy(
      writes.filter((op) => op.f === 'cas' && op.outcome === 'ok'),
      (op) => op.ifMatch ?? '',
    )) {
      if (racers.length > 1)
        flag('two-winners', `${racers.length} writes of ${key} with If-Match ${ifMatch} all succeeded: ${racers.map((op) => op.value).join(', ')}`);
    }

    const sequential = writes.filter((op) => op.f === 'write');
    if (sequential.length > 0 && key in final.registers) {
      const value = final.registers[key];
      const lastOk = sequential.map((op) => op.outcome).lastIndexOf('ok');
      const allowed = new Set(sequential.filter((op, i) => i === lastOk || op.outcome === 'unknown').map((op) => op.value));
      const landed = byValue.get(value ?? undefined);
      if (landed?.outcome === 'fail') flag('failed-but-present', `${key} ends as "${value}", written by a request that failed (${landed.status})`);
      else if (lastOk >= 0 && !allowed.has(value ?? undefined)) {
        flag('lost', `${key} ends as "${value}"; the last acknowledged write was "${sequential[lastOk].value}"`);
      }
    }

    for (const read of readsOf.get(key) ?? []) {
      if (read.outcome !== 'ok') continue;
      // The writes of `key` acknowledged before the read began: it must see the last of them or later.
      const before = sequential.filter((op) => op.outcome === 'ok' && op.completedAt < read.invokedAt);
      if (!before.length) continue;
      const newest = sequential.indexOf(before[before.length - 1]);
      const seen = sequential.findIndex((op) => op.value === read.read);
      const seenOp = sequential[seen];
      if (seenOp?.outcome === 'fail') flag('failed-but-present', `a read of ${key} via ${read.via} saw "${read.read}", written by a request that failed`);
      else if (seen < newest && !(seenOp && seenOp.outcome === 'unknown')) {
        flag(
          'stale-read',
          `a read of ${key} via ${read.via} saw "${read.read}" though "${sequential[newest].value}" was acknowledged ${read.invokedAt - sequential[newest].completedAt} ms before it began`,
        );
      }
    }
  }
}

/** One line of figures for a verdict, in the order docs/scaling.md lists them. */
export function verdictLine(name: string, v: Verdict): string {
  const c = v.counts;
  return (
    `${name}: ${c.requests} requests (${c.ok} ok, ${c.fail} failed for certain of which ${c.refused} refused, ${c.unknown} unknown: ${c.unavailable} × 503, ${c.unanswered} cut off); ` +
    `${c.acknowledged} acknowledged writes, ${c.reads} reads; lost ${c.lost}, duplicated ${c.duplicate}, failed-but-present ${c['failed-but-present']}, ` +
    `500s ${c['server-error']}, stuck keys ${c['stuck-key']}, missing audit ${c['missing-audit']}, sequence gaps ${c['sequence-gap']}, ` +
    `stale reads ${c['stale-read']}, two winners ${c['two-winners']}, replay mismatches ${c['replay-mismatch']}`
  );
}

/** The anomalies of a verdict, one line each (the first `max` of each kind), for a failure's report. */
export function anomalyLines(name: string, v: Verdict, max = 5): string {
  const lines = [...new Set(v.anomalies.map((a) => a.kind))].flatMap((kind) => {
    const of = v.anomalies.filter((a) => a.kind === kind);
    return [...of.slice(0, max).map((a) => `  ${kind}: ${a.detail}`), ...(of.length > max ? [`  … ${of.length - max} more ${kind}`] : [])];
  });
  return `${name}: ${v.anomalies.length} anomalies\n${lines.join('\n')}\n`;
}
