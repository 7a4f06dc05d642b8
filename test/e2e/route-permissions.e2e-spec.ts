import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { ACCESS_KEY } from '../../src/common/auth/access.decorators.js';
import { WIRE_RESULT } from '../../src/common/http/wire.js';
import { routeTemplate } from '../../src/common/http/route-index.js';
import { startApp, TestApp } from './harness.js';

interface Route {
  line: string;
  documented: boolean;
}

/** Every route of the app with its access rule, read from the same metadata the AuthGuard reads. */
function listRoutes(t: TestApp): Route[] {
  const routes: Route[] = [];
  for (const mod of t.app.get(ModulesContainer).values()) {
    for (const wrapper of mod.controllers.values()) {
      const ctrl = wrapper.metatype as Function;
      for (const name of Object.getOwnPropertyNames(ctrl.prototype)) {
        const handler = ctrl.prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const path = routeTemplate(ctrl, handler);
        const rule = Reflect.getMetadata(ACCESS_KEY, handler) ?? Reflect.getMetadata(ACCESS_KEY, ctrl) ?? 'authenticated (default)';
        routes.push({
          line: `${RequestMethod[method].padEnd(6)} ${path.padEnd(70)} ${rule}`,
          documented: Reflect.getMetadata(WIRE_RESULT, handler) !== undefined,
        });
      }
    }
  }
  return routes.sort((a, b) => (a.line.slice(7) + a.line).localeCompare(b.line.slice(7) + b.line));
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
    expect(
      listRoutes(t)
        .map((r) => r.line)
        .join('\n'),
    ).toMatchSnapshot();
  });

  it('declares the answer of every route (@ApiResult: 200, wire type, XML root, OpenAPI)', () => {
    expect(
      listRoutes(t)
        .filter((r) => !r.documented)
        .map((r) => r.line),
    ).toEqual([]);
  });
});
