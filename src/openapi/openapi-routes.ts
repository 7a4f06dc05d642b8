import { RequestMethod, type Type } from '@nestjs/common';
import { HEADERS_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { ModulesContainer } from '@nestjs/core';
import { ACCESS_KEY, type AccessRule } from '../auth/access.decorators.js';
import { routeHandlers, routeTemplate } from '../http/pipeline/route-index.js';
import { WIRE_RESULT, type WireResultMeta } from '../http/wire/wire.js';
import { DELTA_LIST, type DeltaList } from '../http/pipeline/delta-list.js';
import { stagesOf } from '../http/pipeline/route-stages.js';
import { ANSWER_HEADERS, type AnswerHeaderDocs } from '../http/wire/answer-headers.js';

export type HttpMethod = 'get' | 'put' | 'patch' | 'post' | 'delete';

/** What the OpenAPI document needs to know of one route, read from its decorators' metadata. */
export interface RouteInfo {
  method: HttpMethod;
  /** The OpenAPI path template, e.g. `/v4/departments/{id}`. */
  path: string;
  /** The access rule the AuthGuard applies (`authenticated` when the route declares none). */
  rule: AccessRule;
  /** What @ApiResult declared: wire type, single or collection, XML root. */
  result?: WireResultMeta;
  /** The class of the @Body() parameter, if the handler takes one. */
  body?: Type<unknown>;
  /** Response headers set with Nest's @Header(). */
  headers: { name: string; value: string }[];
  /** Response headers the service sets per answer (@AnswerHeaders). */
  answerHeaders?: AnswerHeaderDocs;
  /** A list's `updatedSince` (src/http/pipeline/delta-list.ts): answered as changes, refused, or none. */
  delta?: DeltaList;
  /** A list that carries the export stage (docs/exports.md): streamed when it takes `filter`/`cursor`, else 406 for an export type alone. */
  exports?: boolean;
}

const METHODS: Partial<Record<RequestMethod, HttpMethod>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.POST]: 'post',
  [RequestMethod.DELETE]: 'delete',
};

/** Every route of the application's controllers (routeHandlers, the walk the RouteIndex makes too). */
export function collectRoutes(modules: ModulesContainer): RouteInfo[] {
  const routes: RouteInfo[] = [];
  for (const { ctrl, name, handler, method: verb } of routeHandlers(modules)) {
    const method = METHODS[verb];
    if (!method) continue;
    routes.push({
      method,
      path: routeTemplate(ctrl, handler).replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
      rule: ((Reflect.getMetadata(ACCESS_KEY, handler) ?? Reflect.getMetadata(ACCESS_KEY, ctrl)) as AccessRule | undefined) ?? 'authenticated',
      result: Reflect.getMetadata(WIRE_RESULT, handler) as WireResultMeta | undefined,
      body: bodyType(ctrl, name) ?? declaredBodyType(handler),
      delta: Reflect.getMetadata(DELTA_LIST, handler) as DeltaList | undefined,
      exports: stagesOf(handler).includes('list-export'),
      answerHeaders: Reflect.getMetadata(ANSWER_HEADERS, handler) as AnswerHeaderDocs | undefined,
      headers: ((Reflect.getMetadata(HEADERS_METADATA, handler) as { name: string; value: unknown }[] | undefined) ?? [])
        .filter((h) => typeof h.value === 'string')
        .map((h) => ({ name: h.name, value: h.value as string })),
    });
  }
  return routes;
}

/** The type of a body a handler takes without reading it (`@ApiBody({ type })`, the archive writes). */
function declaredBodyType(handler: Function): Type<unknown> | undefined {
  // The metadata key of @nestjs/swagger's parameter decorators (DECORATORS.API_PARAMETERS, not exported from its index).
  const params = (Reflect.getMetadata('swagger/apiParameters', handler) ?? []) as { in?: string; type?: unknown }[];
  const body = params.find((p) => p.in === 'body' && typeof p.type === 'function');
  return body?.type as Type<unknown> | undefined;
}

/** The declared type of a handler's @Body() parameter (from the route-argument metadata). */
function bodyType(ctrl: Function, method: string): Type<unknown> | undefined {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, ctrl, method) ?? {}) as Record<string, { index: number }>;
  const entry = Object.entries(args).find(([key]) => key.split(':')[0] === String(RouteParamtypes.BODY));
  if (!entry) return undefined;
  const types = Reflect.getMetadata('design:paramtypes', ctrl.prototype, method) as Type<unknown>[] | undefined;
  return types?.[entry[1].index];
}
