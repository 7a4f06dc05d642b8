import type { INestApplication } from '@nestjs/common';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { ACCESS_KEY, type AccessRule } from '../../src/auth/access.decorators.js';
import { routeTemplate } from '../../src/http/pipeline/route-index.js';
import { WIRE_RESULT, type WireResultMeta } from '../../src/http/wire/wire.js';
import { DELTA_LIST } from '../../src/http/pipeline/delta-list.js';
import { stagesOf, type StageName } from '../../src/http/pipeline/route-stages.js';

/** One route of the running app, read from the same metadata the AuthGuard and the router read. */
export interface AppRoute {
  method: string;
  /** The full path template, e.g. `/v4/individuals/:id`. */
  path: string;
  /** `GET /v4/individuals/:id`: the key of the route's case in test/e2e/route-cases.ts. */
  key: string;
  rule: AccessRule | 'authenticated (default)';
  /** The path parameters, in path order. */
  params: string[];
  /** Declares its answer (@ApiResult). */
  documented: boolean;
  /** The stages it runs around its handler (src/http/pipeline/route-stages.ts). */
  stages: StageName[];
  /** Declares what it answers to `updatedSince` (ListRoute's delta). */
  delta: boolean;
  /** A GET answering a collection (a list, or a List-of-one read). */
  list: boolean;
}

/** Every route of the app, ordered by path, then method. */
export function listRoutes(app: INestApplication): AppRoute[] {
  const routes: AppRoute[] = [];
  for (const mod of app.get(ModulesContainer).values()) {
    for (const wrapper of mod.controllers.values()) {
      const ctrl = wrapper.metatype as Function;
      for (const name of Object.getOwnPropertyNames(ctrl.prototype)) {
        const handler = ctrl.prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (requestMethod === undefined) continue;
        const path = routeTemplate(ctrl, handler);
        const method = RequestMethod[requestMethod];
        routes.push({
          method,
          path,
          key: `${method} ${path}`,
          rule: Reflect.getMetadata(ACCESS_KEY, handler) ?? Reflect.getMetadata(ACCESS_KEY, ctrl) ?? 'authenticated (default)',
          params: [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]),
          documented: Reflect.getMetadata(WIRE_RESULT, handler) !== undefined,
          stages: stagesOf(handler),
          delta: Reflect.getMetadata(DELTA_LIST, handler) !== undefined,
          list: method === 'GET' && (Reflect.getMetadata(WIRE_RESULT, handler) as WireResultMeta | undefined)?.collection === true,
        });
      }
    }
  }
  const order = (r: AppRoute) => `${r.path} ${r.method}`;
  return routes.sort((a, b) => order(a).localeCompare(order(b)));
}

/** The path with its parameters replaced (values are URL-encoded, colons left as they are). */
export function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
    if (params[name] === undefined) throw new Error(`no value for :${name} of ${path}`);
    // A colon needs no escape in a path segment (RFC 3986 pchar), and a SCIM schema id is a URN full of them.
    return encodeURIComponent(params[name]).replace(/%3A/gi, ':');
  });
}

/** The routes' lines of the route-permissions snapshot: method, path, access rule and stages, ordered by path, then method. */
export function routeLines(routes: AppRoute[]): string[] {
  return routes
    .map((r) => `${r.method.padEnd(6)} ${r.path.padEnd(70)} ${r.rule}${r.stages.length ? ` + ${r.stages.join(' + ')}` : ''}`)
    .sort((a, b) => (a.slice(7) + a).localeCompare(b.slice(7) + b));
}
