import { startApp, TestApp } from './harness.js';
import { listRoutes } from './routes.js';

/** Every route of the app with its access rule and its stages, one line each, in the order of the snapshot. */
function lines(t: TestApp, filter: (documented: boolean) => boolean = () => true): string[] {
  return listRoutes(t.app)
    .filter((r) => filter(r.documented))
    .map((r) => `${r.method.padEnd(6)} ${r.path.padEnd(70)} ${r.rule}${r.stages.length ? ` + ${r.stages.join(' + ')}` : ''}`)
    .sort((a, b) => (a.slice(7) + a).localeCompare(b.slice(7) + b));
}

describe('route permissions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists every route with its access rule (a change of who may call what shows as a diff)', () => {
    expect(lines(t).join('\n')).toMatchSnapshot();
  });

  it('runs safe retries on every write of a caller, the changes on every list that declares them, and no stage elsewhere', () => {
    const wrong = listRoutes(t.app)
      .map((r) => {
        const expected = [
          ...(['POST', 'PUT', 'PATCH'].includes(r.method) && r.rule !== 'public' ? ['idempotent-write'] : []),
          ...(r.delta ? ['delta-list'] : []),
        ];
        return { route: r.key, expected, actual: r.stages };
      })
      .filter((r) => r.expected.join() !== r.actual.join());
    expect(wrong).toEqual([]);
  });

  it('declares the answer of every route (@ApiResult: 200, wire type, XML root, OpenAPI)', () => {
    expect(lines(t, (documented) => !documented)).toEqual([]);
  });
});
