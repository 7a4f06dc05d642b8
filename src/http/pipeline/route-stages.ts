import { Injectable, OnModuleInit, Req } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The stages some routes run around their method (docs/architecture.md, "How a request runs"):
 *
 * - `idempotent-write`: every POST, PUT and PATCH of an authenticated caller (the write routes'
 *   decorators, routes.ts): safe retries with `Idempotency-Key` (docs/idempotency.md);
 * - `delta-list`: every list that declares its changes (ListRoute): the answer to `updatedSince`
 *   (docs/delta-sync.md);
 * - `list-export`: every list (ListRoute): the whole collection as one stream of CSV, XLSX or
 *   NDJSON when Accept asks for one (docs/exports.md).
 *
 * A route names its stages in its composite decorator (`Staged`), which makes them part of the
 * route's method: Nest runs guards, pipes and then the method as for any route, and the method
 * first asks each of its stages whether this request needs it — a header, a query parameter — and
 * runs the stage around its body only then. A request that needs none runs the method as it is:
 * no Observable pipeline (Nest builds one per request for a route with any interceptor, about a
 * seventh of a short list's CPU), nothing else. What each stage does lives on the floor that owns
 * it (the data layer, the audit feature), which provides it here at start-up: this floor never
 * imports them.
 */
export type StageName = 'idempotent-write' | 'delta-list' | 'list-export';

/** The request as a stage sees it: Express's, after the guards (which set the caller's context on it). */
export type StageRequest = IncomingMessage &
  Record<string | symbol, unknown> & {
    method: string;
    url: string;
    originalUrl?: string;
    headers: IncomingMessage['headers'];
    query?: Record<string, unknown>;
    params?: Record<string, string | undefined>;
    body?: unknown;
    res?: ServerResponse;
  };

/** What a stage is: whether a request needs it, and how it runs a route's method for that request. */
export interface Stage {
  /** Whether this request needs the stage (cheap: read off the request). When not, the method runs as it is. */
  applies(req: StageRequest): boolean;
  /**
   * The answer of the route's method (`method`: the handler, with its metadata) for this request;
   * `handle()` runs the method's body, as often as the stage needs (never, once, again after a
   * deadlock rolled its work back), with the route's arguments (`args`, as Nest's pipes made them)
   * or others in their place (an export reads a list page after page).
   */
  run(req: StageRequest, method: Function, handle: (args?: readonly unknown[]) => Promise<unknown>, args: readonly unknown[]): Promise<unknown>;
}

/** Where the application's RouteStages is found from a request: its Express application's locals. */
const LOCALS_KEY = 'pms:route-stages';

@Injectable()
export class RouteStages implements OnModuleInit {
  private readonly stages = new Map<StageName, Stage>();

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  /** Makes the stages reachable from the requests of this application (and only this one). */
  onModuleInit(): void {
    const express = this.adapterHost.httpAdapter?.getInstance() as { locals?: Record<string, unknown> } | undefined;
    if (express?.locals) express.locals[LOCALS_KEY] = this;
  }

  /** Called once by the provider of a stage when it is created. */
  provide(name: StageName, stage: Stage): void {
    if (this.stages.has(name)) throw new Error(`route stage ${name} is provided twice`);
    this.stages.set(name, stage);
  }

  get(name: StageName): Stage {
    const stage = this.stages.get(name);
    if (!stage) throw new Error(`route stage ${name} is not provided: its module is missing from the application`);
    return stage;
  }

  has(name: StageName): boolean {
    return this.stages.has(name);
  }

  /** The RouteStages of the application a request came to. */
  static of(req: StageRequest): RouteStages {
    const app = req.app as { locals?: Record<string, unknown> } | undefined;
    const stages = app?.locals?.[LOCALS_KEY] as RouteStages | undefined;
    if (!stages) throw new Error('route stages: the request reached no application with RouteStages');
    return stages;
  }
}

/** The stages a route's method carries, by name (read by stagesOf). */
const STAGES_METADATA = 'pms:route-stages';
/** Where a staged method finds the request among its arguments: one more argument, after the route's own. */
const REQUEST_ARG_METADATA = 'pms:route-stages:request-arg';

/**
 * A route's stage, for its composite decorator: the method is replaced by one that runs the stage
 * when the request needs it (Stage.applies) and the method as it is otherwise. The request reaches
 * it as one more argument, which Nest fills like any `@Req()` parameter; everything Nest and
 * OpenAPI read off the method (its route, access rule, answer, documentation) is carried over.
 */
export function Staged(name: StageName): MethodDecorator {
  return <T>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<T>) => {
    const original = descriptor.value as (...args: unknown[]) => unknown;
    const owner = target.constructor;
    let index = Reflect.getMetadata(REQUEST_ARG_METADATA, owner, key) as number | undefined;
    if (index === undefined) {
      const declared = Object.values((Reflect.getMetadata(ROUTE_ARGS_METADATA, owner, key) ?? {}) as Record<string, { index: number }>);
      index = Math.max(original.length, ...declared.map((a) => a.index + 1));
      Req()(target, key, index);
      Reflect.defineMetadata(REQUEST_ARG_METADATA, index, owner, key);
    }
    const at = index;
    const staged = function (this: unknown, ...args: unknown[]): unknown {
      const req = args[at] as StageRequest;
      const stage = RouteStages.of(req).get(name);
      if (!stage.applies(req)) return original.apply(this, args);
      return stage.run(req, staged, async (given = args) => original.apply(this, given as unknown[]), args);
    };
    for (const k of Reflect.getOwnMetadataKeys(original)) Reflect.defineMetadata(k, Reflect.getOwnMetadata(k, original), staged);
    Reflect.defineMetadata(STAGES_METADATA, [...((Reflect.getOwnMetadata(STAGES_METADATA, original) as StageName[] | undefined) ?? []), name], staged);
    Object.defineProperty(staged, 'name', { value: original.name });
    descriptor.value = staged as T;
    return descriptor;
  };
}

/** A write route's stage: safe retries with Idempotency-Key. */
export const IdempotentWrite = (): MethodDecorator => Staged('idempotent-write');

/** A list route's stage: its changes when asked with updatedSince. */
export const AnswersDeltas = (): MethodDecorator => Staged('delta-list');

/** Every list's stage: its records as one stream of CSV, XLSX or NDJSON (docs/exports.md). */
export const ExportsList = (): MethodDecorator => Staged('list-export');

/** The stages a route handler carries, by name (the route-permission snapshot test lists them). */
export function stagesOf(handler: Function): StageName[] {
  return [...((Reflect.getMetadata(STAGES_METADATA, handler) as StageName[] | undefined) ?? [])];
}
