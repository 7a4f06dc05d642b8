import { Injectable, OnApplicationBootstrap, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { OUTSIDE_V4 } from './routes.js';

interface RouteEntry {
  method: string;
  pattern: RegExp;
}

const templates = new WeakMap<Function, string>();

/** The full path template of a handler, e.g. `/v4/individuals/:id` (cached per handler). */
export function routeTemplate(ctrl: Function, handler: Function): string {
  let t = templates.get(handler);
  if (t === undefined) {
    const base = String(Reflect.getMetadata(PATH_METADATA, ctrl) ?? '');
    const sub = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
    const path =
      '/' +
      [base, sub]
        .map((p) => p.replace(/^\/|\/$/g, ''))
        .filter(Boolean)
        .join('/');
    // A controller served outside /v4 (ApiController's outsideV4: the probes, SCIM) keeps its own path.
    t = Reflect.getMetadata(OUTSIDE_V4, ctrl) ? path : `/v4${path === '/' ? '' : path}`;
    templates.set(handler, t);
  }
  return t;
}

/** A route handler of the application's controllers, with its HTTP method. */
export interface RouteHandler {
  ctrl: Function;
  name: string;
  handler: Function;
  method: RequestMethod;
}

/** Every route handler of the controllers of these modules, in registration order. */
export function* routeHandlers(modules: ModulesContainer): Generator<RouteHandler> {
  for (const mod of modules.values()) {
    for (const wrapper of mod.controllers.values()) {
      const ctrl = wrapper.metatype as Function | null;
      if (!ctrl?.prototype) continue;
      for (const name of Object.getOwnPropertyNames(ctrl.prototype)) {
        const handler = (ctrl.prototype as Record<string, unknown>)[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method !== undefined) yield { ctrl, name, handler, method };
      }
    }
  }
}

/**
 * Every route's method and path pattern, collected once at start-up from the controllers'
 * metadata, so a request to a known path with the wrong method can be answered 405 with Allow
 * (Nest itself answers 404).
 */
@Injectable()
export class RouteIndex implements OnApplicationBootstrap {
  private routes: RouteEntry[] = [];
  private kinds: string[] = [];

  constructor(private readonly modules: ModulesContainer) {}

  onApplicationBootstrap(): void {
    const routes: RouteEntry[] = [];
    const kinds = new Set<string>();
    for (const { ctrl, handler, method } of routeHandlers(this.modules)) {
      const template = routeTemplate(ctrl, handler);
      const kind = /^\/v4\/([a-z0-9-]+)/.exec(template)?.[1];
      if (kind) kinds.add(kind);
      const source = template.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+');
      routes.push({ method: RequestMethod[method], pattern: new RegExp(`^${source}/?$`, 'i') });
    }
    this.routes = routes;
    this.kinds = [...kinds].sort();
  }

  /** The resource kinds of the API: the first path segments after /v4 (what API token scopes name). */
  resourceKinds(): readonly string[] {
    return this.kinds;
  }

  /** The methods that exist for this path (empty when no route matches it at all). */
  allowedMethods(path: string): string[] {
    const methods = new Set(this.routes.filter((r) => r.pattern.test(path)).map((r) => r.method));
    return [...methods].sort();
  }
}

/**
 * The global prefix's exclusions (app.factory.ts): every route of a controller served outside /v4,
 * as `<its prefix>/{*path}` for every method.
 */
export function outsideV4Routes(modules: ModulesContainer): { path: string; method: RequestMethod }[] {
  const prefixes = new Set<string>();
  for (const mod of modules.values()) {
    for (const wrapper of mod.controllers.values()) {
      const ctrl = wrapper.metatype as Function | null;
      if (ctrl && Reflect.getMetadata(OUTSIDE_V4, ctrl)) prefixes.add(String(Reflect.getMetadata(PATH_METADATA, ctrl) ?? '').replace(/^\/|\/$/g, ''));
    }
  }
  return [...prefixes].map((prefix) => ({ path: `${prefix}/{*path}`, method: RequestMethod.ALL }));
}
