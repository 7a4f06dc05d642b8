import { Injectable, OnApplicationBootstrap, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';

interface RouteEntry {
  method: string;
  pattern: RegExp;
}

const EXCLUDED_FROM_PREFIX = /^\/health\//;

/**
 * Every route's method and path pattern, collected once at start-up from the controllers'
 * metadata, so a request to a known path with the wrong method can be answered 405 with Allow
 * (Nest itself answers 404).
 */
@Injectable()
export class RouteIndex implements OnApplicationBootstrap {
  private routes: RouteEntry[] = [];

  constructor(private readonly modules: ModulesContainer) {}

  onApplicationBootstrap(): void {
    const routes: RouteEntry[] = [];
    for (const mod of this.modules.values()) {
      for (const wrapper of mod.controllers.values()) {
        const ctrl = wrapper.metatype as Function | null;
        if (!ctrl?.prototype) continue;
        const base = String(Reflect.getMetadata(PATH_METADATA, ctrl) ?? '');
        for (const name of Object.getOwnPropertyNames(ctrl.prototype)) {
          const handler = (ctrl.prototype as Record<string, unknown>)[name];
          if (name === 'constructor' || typeof handler !== 'function') continue;
          const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
          if (method === undefined) continue;
          const sub = String(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
          let path =
            '/' +
            [base, sub]
              .map((p) => p.replace(/^\/|\/$/g, ''))
              .filter(Boolean)
              .join('/');
          if (!EXCLUDED_FROM_PREFIX.test(path)) path = `/v4${path === '/' ? '' : path}`;
          const source = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+');
          routes.push({ method: RequestMethod[method], pattern: new RegExp(`^${source}/?$`, 'i') });
        }
      }
    }
    this.routes = routes;
  }

  /** The methods that exist for this path (empty when no route matches it at all). */
  allowedMethods(path: string): string[] {
    const methods = new Set(this.routes.filter((r) => r.pattern.test(path)).map((r) => r.method));
    return [...methods].sort();
  }
}
