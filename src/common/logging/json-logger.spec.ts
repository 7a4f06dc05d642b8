import { JsonLogger } from './json-logger.js';

function capture(level: ConstructorParameters<typeof JsonLogger>[0] = 'info') {
  const lines: string[] = [];
  return { logger: new JsonLogger(level, (l) => lines.push(l)), lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('JsonLogger', () => {
  it('writes one JSON object per line with time, level, context and msg', () => {
    const { logger, lines, parsed } = capture();
    logger.log('started', 'Main');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    const [line] = parsed();
    expect(line).toEqual({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), level: 'info', context: 'Main', msg: 'started' });
  });

  it('writes the fields of an event, its request id among them, and nothing else (no pid, no hostname)', async () => {
    const { logger, parsed } = capture();
    logger.event('info', 'http', { requestId: 'req-1', method: 'GET', path: '/v4/sites', status: 200, ms: 1.5 });
    // A line without a request id of its own gets none, even from inside an async flow.
    await Promise.resolve().then(() => logger.event('warn', 'http', { status: 503 }));
    expect(parsed()).toEqual([
      { time: expect.any(String), level: 'info', context: 'http', requestId: 'req-1', method: 'GET', path: '/v4/sites', status: 200, ms: 1.5 },
      { time: expect.any(String), level: 'warn', context: 'http', status: 503 },
    ]);
  });

  it('logs an Error with its name and stack, and a Nest error with its stack and context', () => {
    const { logger, parsed } = capture();
    logger.error(new TypeError('boom'));
    logger.error('failed', 'the stack', 'Ctx');
    const [a, b] = parsed();
    expect(a).toMatchObject({ level: 'error', msg: 'boom', err: { name: 'TypeError', stack: expect.stringContaining('boom') } });
    expect(b).toMatchObject({ level: 'error', msg: 'failed', stack: 'the stack', context: 'Ctx' });
  });

  it('drops lines below its level, and everything when silent', () => {
    const warn = capture('warn');
    warn.logger.log('info line');
    warn.logger.debug('debug line');
    warn.logger.warn('warn line');
    expect(warn.parsed().map((l) => l.msg)).toEqual(['warn line']);
    const silent = capture('silent');
    silent.logger.error('x');
    expect(silent.lines).toEqual([]);
  });
});
