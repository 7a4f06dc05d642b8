import { startApp, TestApp } from './harness.js';
import { listRoutes, routeLines } from './routes.js';
import { isFileBodyPath } from '../../src/http/wire/file-body.js';

/** Every route of the app with its access rule and its stages, one line each, in the order of the snapshot. */
const lines = (t: TestApp, filter: (documented: boolean) => boolean = () => true): string[] =>
  routeLines(listRoutes(t.app).filter((r) => filter(r.documented)));

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

  it('runs safe retries on every write of a caller, the changes on every list that declares them, exports on every list, and no stage elsewhere', () => {
    const wrong = listRoutes(t.app)
      .map((r) => {
        const expected = [
          // A route that reads its body as a file stream (an import) cannot be run again from a stored request: no Idempotency-Key (docs/imports.md).
          ...(['POST', 'PUT', 'PATCH'].includes(r.method) && r.rule !== 'public' && !(r.method === 'POST' && isFileBodyPath(r.path))
            ? ['idempotent-write']
            : []),
          ...(r.delta ? ['delta-list'] : []),
          ...(r.list ? ['list-export'] : []),
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
