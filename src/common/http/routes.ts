import { applyDecorators, Delete, Get, Post, Put, type Type } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiBodyTypes, ApiResult } from './wire.js';

/**
 * One composite decorator per kind of route (docs/adding-a-resource.md): the access rule, the
 * method and path, the OpenAPI operation and what the handler answers, which every route states
 * together. `@GetRoute(Pm, 'tasks/:id', TaskDto, { summary, description })` stands for
 * `@Get` + `@Pm()` + `@ApiOperation` + `@ApiResult`; the access rules themselves stay the composite
 * decorators of `common/auth/access.decorators.ts`, and the handler below still makes one service call.
 * Each applies its parts in the order the stacked decorators did (bottom-up), so the OpenAPI
 * document is the same.
 */
export interface RouteDoc {
  summary: string;
  description?: string;
}

/** An access rule of `common/auth/access.decorators.ts`: `Pm`, `Admin`, `Authenticated`… */
export type AccessRule = () => MethodDecorator;

/** What the handler answers: a wire type, or null for an empty object. */
type Answer = Type<unknown> | null;

/** What `@ApiResult` takes beside the type: a collection, its XML root, the 200 description. */
export type AnswerOptions = Parameters<typeof ApiResult>[1];

/** A GET answering one record (or an object). */
export const GetRoute = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(ApiResult(type, opts), ApiOperation(doc), access(), Get(path));

/** A GET answering a collection (XML root `ArrayOf{Type}` unless `opts.root` names another). */
export const ListRoute = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(ApiResult(type, { ...opts, collection: true }), ApiOperation(doc), access(), Get(path));

/** A POST taking a body in any of the four media types. */
export const PostRoute = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(ApiResult(type, opts), ApiBodyTypes(), ApiOperation(doc), access(), Post(path));

/** A POST without a body (an action on the path). */
export const PostAction = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(ApiResult(type, opts), ApiOperation(doc), access(), Post(path));

/** A PUT taking a body in any of the four media types. */
export const PutRoute = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(ApiResult(type, opts), ApiBodyTypes(), ApiOperation(doc), access(), Put(path));

/** A PUT without a body (undelete and the like). */
export const PutAction = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(ApiResult(type, opts), ApiOperation(doc), access(), Put(path));

/** A DELETE; most answer an empty object (`type` null). */
export const DeleteRoute = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(ApiResult(type, opts), ApiOperation(doc), access(), Delete(path));
