import { RequestMethod, type Type } from '@nestjs/common';
import { HEADERS_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import type { ModulesContainer } from '@nestjs/core';
import { ACCESS_KEY, type AccessRule } from '../auth/access.decorators.js';
import { routeHandlers, routeTemplate } from './route-index.js';
import { WIRE_RESULT, type WireResultMeta } from './wire.js';
import { DELTA_LIST, type DeltaList } from './delta-list.js';
import { ANSWER_HEADERS, type AnswerHeaderDocs } from './answer-headers.js';

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
  /** A list's `updatedSince` (src/common/http/delta-list.ts): answered as changes, refused, or none. */
  delta?: DeltaList;
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
      body: bodyType(ctrl, name),
      delta: Reflect.getMetadata(DELTA_LIST, handler) as DeltaList | undefined,
      answerHeaders: Reflect.getMetadata(ANSWER_HEADERS, handler) as AnswerHeaderDocs | undefined,
      headers: ((Reflect.getMetadata(HEADERS_METADATA, handler) as { name: string; value: unknown }[] | undefined) ?? [])
        .filter((h) => typeof h.value === 'string')
        .map((h) => ({ name: h.name, value: h.value as string })),
    });
  }
  return routes;
}

/** The declared type of a handler's @Body() parameter (from the route-argument metadata). */
function bodyType(ctrl: Function, method: string): Type<unknown> | undefined {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, ctrl, method) ?? {}) as Record<string, { index: number }>;
  const entry = Object.entries(args).find(([key]) => key.split(':')[0] === String(RouteParamtypes.BODY));
  if (!entry) return undefined;
  const types = Reflect.getMetadata('design:paramtypes', ctrl.prototype, method) as Type<unknown>[] | undefined;
  return types?.[entry[1].index];
}
