import { anomalyLines, checkHistory, outcomeOf, verdictLine, type FinalState, type Op } from '../faults/support/history.js';

/**
 * The history checker the fault and cluster suites run (test/faults/support/history.ts): each
 * verdict it can give is shown firing on a history that has that fault, and not firing on the
 * same history without it — so a green cluster run means the checker looked, not that it cannot fail.
 */
let clock = 0;
/** An operation that took 5 ms, started after the previous one. */
function op(o: Partial<Op> & Pick<Op, 'f' | 'key'>): Op {
  clock += 10;
  const status = o.status ?? 200;
  return {
    process: 'p0',
    invokedAt: clock,
    completedAt: clock + 5,
    status,
    outcome: outcomeOf(status, o.error),
    retryAfter: status === 503,
    via: 'replica0',
    ...o,
  };
}

const ANCESTOR = 'project-a';
const REGISTER = 'project-r';
const clean = (): FinalState => ({
  comments: [{ id: 'c1', key: ANCESTOR, body: 'm1' }],
  registers: { [REGISTER]: 'v2' },
  versions: { [REGISTER]: 3 },
  audit: [
    { kind: 'comment', rowId: 'c1', action: 'create' },
    { kind: 'project', rowId: REGISTER, action: 'create' },
    { kind: 'project', rowId: REGISTER, action: 'update', after: 'v1' },
    { kind: 'project', rowId: REGISTER, action: 'update', after: 'v2' },
  ],
  sequences: [{ siteId: 's1', rows: 3, min: 1, max: 3, counter: 3 }],
  unansweredKeys: 0,
});
const cleanHistory = (): Op[] => [
  op({ f: 'append', key: ANCESTOR, value: 'm1', idemKey: 'k1', status: 503 }),
  op({ f: 'append', key: ANCESTOR, value: 'm1', idemKey: 'k1', id: 'c1' }),
  op({ f: 'write', key: REGISTER, value: 'v1' }),
  op({ f: 'read', key: REGISTER, read: 'v1' }),
  op({ f: 'write', key: REGISTER, value: 'v2' }),
  op({ f: 'read', key: REGISTER, read: 'v2' }),
];
const kinds = (history: Op[], final: FinalState) => checkHistory(history, final).anomalies.map((a) => a.kind);

describe('the history checker', () => {
  it('passes a history the final state agrees with, and counts it', () => {
    const v = checkHistory(cleanHistory(), clean());
    expect(v.anomalies).toEqual([]);
    expect(v.valid).toBe(true);
    expect(v.counts).toMatchObject({ requests: 6, ok: 5, unknown: 1, acknowledged: 3, reads: 2, unavailable: 1, lost: 0 });
    expect(verdictLine('none', v)).toMatch(/^none: 6 requests .* lost 0, duplicated 0/);
  });

  it('classifies answers: 2xx done, 4xx and a refused connection not done, a 503, a 500 or no answer unknown', () => {
    expect([200, 201, 400, 404, 412, 503, 500].map((s) => outcomeOf(s))).toEqual(['ok', 'ok', 'fail', 'fail', 'fail', 'unknown', 'unknown']);
    expect(outcomeOf(0, 'ECONNREFUSED')).toBe('fail');
    expect(outcomeOf(0, 'ECONNRESET')).toBe('unknown');
  });

  it('finds an acknowledged comment that is missing, and one stored twice', () => {
    const lost = { ...clean(), comments: [], audit: clean().audit.slice(1) };
    expect(kinds(cleanHistory(), lost)).toEqual(['lost']);
    const twice = clean();
    twice.comments.push({ id: 'c2', key: ANCESTOR, body: 'm1' });
    twice.audit.push({ kind: 'comment', rowId: 'c2', action: 'create' });
    expect(kinds(cleanHistory(), twice)).toEqual(['duplicate']);
  });

  it('finds a comment stored though every attempt failed for certain, and lets an unknown one be there or not', () => {
    const refused = [
      op({ f: 'append', key: ANCESTOR, value: 'm1', idemKey: 'k1', status: 400 }),
      op({ f: 'append', key: ANCESTOR, value: 'm1', status: 0, error: 'ECONNREFUSED' }),
    ];
    const final = { ...clean(), registers: {}, versions: {} };
    expect(kinds(refused, final)).toEqual(['failed-but-present']);
    const unknown = [op({ f: 'append', key: ANCESTOR, value: 'm1', idemKey: 'k1', status: 503 })];
    expect(kinds(unknown, final)).toEqual([]);
    expect(kinds(unknown, { ...final, comments: [], audit: [] })).toEqual([]);
  });

  it('finds a retry answered with another record than the first attempt', () => {
    const history = cleanHistory();
    history.push(op({ f: 'append', key: ANCESTOR, value: 'm1', idemKey: 'k1', id: 'c9' }));
    expect(kinds(history, clean())).toEqual(['replay-mismatch']);
  });

  it('finds a comment without its audit row, and an acknowledged field write without one', () => {
    const final = clean();
    final.audit = final.audit.filter((a) => a.rowId !== 'c1' && a.after !== 'v1');
    // The comment's, the write's, and the record's version ahead of its audit rows.
    expect(kinds(cleanHistory(), final)).toEqual(['missing-audit', 'missing-audit', 'missing-audit']);
  });

  it('finds a write of a record committed without its audit row even when no read saw it: the row version is ahead of the audit rows', () => {
    expect(kinds(cleanHistory(), { ...clean(), versions: { [REGISTER]: 4 } })).toEqual(['missing-audit']);
    expect(kinds(cleanHistory(), { ...clean(), versions: { [REGISTER]: 2 } })).toEqual(['missing-audit']);
  });

  it('finds a gap in a site’s change sequence, or a counter ahead of its rows, and counts only gaps this history made', () => {
    expect(kinds(cleanHistory(), { ...clean(), sequences: [{ siteId: 's1', rows: 3, min: 1, max: 4, counter: 4 }] })).toEqual(['sequence-gap']);
    expect(kinds(cleanHistory(), { ...clean(), sequences: [{ siteId: 's1', rows: 3, min: 1, max: 3, counter: 5 }] })).toEqual(['sequence-gap']);
    expect(kinds(cleanHistory(), { ...clean(), sequences: [{ siteId: 's1', rows: 3, min: 1, max: 4, counter: 4, missingBefore: 1 }] })).toEqual([]);
    expect(kinds(cleanHistory(), { ...clean(), sequences: [{ siteId: 's1', rows: 3, min: 1, max: 5, counter: 5, missingBefore: 1 }] })).toEqual([
      'sequence-gap',
    ]);
  });

  it('finds an idempotency key left without its answer (not one an earlier history left)', () => {
    expect(kinds(cleanHistory(), { ...clean(), unansweredKeys: 2 })).toEqual(['stuck-key']);
    expect(kinds(cleanHistory(), { ...clean(), unansweredKeys: 2, unansweredBefore: 2 })).toEqual([]);
  });

  it('reports at most a few anomalies of each kind', () => {
    const history = cleanHistory();
    for (let n = 0; n < 9; n++) history.push(op({ f: 'append', key: ANCESTOR, value: 'm2', status: 500 }));
    const lines = anomalyLines('x', checkHistory(history, { ...clean(), unansweredKeys: 1 })).split('\n');
    expect(lines[0]).toBe('x: 10 anomalies');
    expect(lines.filter((l) => l.startsWith('  server-error'))).toHaveLength(5);
    expect(lines).toContain('  … 4 more server-error');
    expect(lines).toContain('  stuck-key: 1 idempotency key(s) committed without their answer');
  });

  it('finds any 500, and a 503 without Retry-After', () => {
    const history = cleanHistory();
    history.push(op({ f: 'append', key: ANCESTOR, value: 'm2', status: 500, error: 'Unexpected end of JSON input' }));
    history.push(op({ f: 'read', key: REGISTER, status: 503, retryAfter: false }));
    expect(kinds(history, clean())).toEqual(['server-error', 'server-error']);
  });

  it('finds a field that lost its last acknowledged write, and one holding a write that failed for certain', () => {
    expect(kinds(cleanHistory(), { ...clean(), registers: { [REGISTER]: 'v1' } })).toEqual(['lost']);
    const history = cleanHistory();
    history.push(op({ f: 'write', key: REGISTER, value: 'v3', status: 404 }));
    const final = clean();
    final.registers[REGISTER] = 'v3';
    final.versions[REGISTER] = 4;
    final.audit.push({ kind: 'project', rowId: REGISTER, action: 'update', after: 'v3' });
    expect(kinds(history, final)).toEqual(['failed-but-present', 'failed-but-present']);
  });

  it('lets a write of unknown outcome land, even after a later acknowledged one (it may take effect any time after it was sent)', () => {
    const history = cleanHistory();
    history.splice(4, 0, op({ f: 'write', key: REGISTER, value: 'v1b', status: 503 }));
    const final = clean();
    final.registers[REGISTER] = 'v1b';
    expect(kinds(history, final)).toEqual([]);
  });

  it('finds a read that missed a write acknowledged before it began, and lets a read concurrent with the write see either', () => {
    const history = cleanHistory();
    history.push(op({ f: 'read', key: REGISTER, read: 'v1', via: 'replica2' }));
    expect(kinds(history, clean())).toEqual(['stale-read']);
    const concurrent = cleanHistory();
    const last = concurrent[5];
    // A read that began before the write of v2 was acknowledged may still see v1.
    concurrent.push({ ...last, read: 'v1', invokedAt: concurrent[4].completedAt - 1 });
    expect(kinds(concurrent, clean())).toEqual([]);
  });

  it('finds two If-Match writes with the same ETag that both succeeded', () => {
    const history = cleanHistory();
    history.push(op({ f: 'cas', key: 'project-c', value: 'x1', ifMatch: 'W/"3"', process: 'p1' }));
    history.push(op({ f: 'cas', key: 'project-c', value: 'x2', ifMatch: 'W/"3"', process: 'p2' }));
    history.push(op({ f: 'cas', key: 'project-c', value: 'x3', ifMatch: 'W/"3"', process: 'p3', status: 412 }));
    const final = clean();
    final.audit.push(
      { kind: 'project', rowId: 'project-c', action: 'update', after: 'x1' },
      { kind: 'project', rowId: 'project-c', action: 'update', after: 'x2' },
    );
    expect(kinds(history, final)).toEqual(['two-winners']);
    history.splice(-2, 1);
    final.audit.pop();
    expect(kinds(history, final)).toEqual([]);
  });
});
