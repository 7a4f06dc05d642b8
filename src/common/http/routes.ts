import { applyDecorators, Controller, Delete, Get, HttpCode, Patch, Post, Put, SetMetadata, type Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiBodyTypes, ApiResult, WIRE_RESULT, type WireResultMeta } from './wire.js';
import { deltaOf, DeltaListDocs, type DeltaDecl } from './delta-list.js';
import { SYNC_ENTRIES, SyncEntryDto } from '../pagination/sync-entry.js';
import { IdempotentWrite } from './route-stages.js';

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

/**
 * A controller and the OpenAPI group its routes are listed under, which every controller states
 * together: `@ApiController('Period', 'periods')` stands for `@ApiTags('Period')` +
 * `@Controller('periods')` (no prefix: the routes' paths are written whole).
 */
export const ApiController = (tag: string, prefix?: string): ClassDecorator =>
  applyDecorators(ApiTags(tag), prefix === undefined ? Controller() : Controller(prefix));

/** An access rule of `common/auth/access.decorators.ts`: `Pm`, `Admin`, `Authenticated`… */
export type AccessRule = () => MethodDecorator;

/** What the handler answers: a wire type, or null for an empty object. */
type Answer = Type<unknown> | null;

/** What `@ApiResult` takes beside the type: a collection, its XML root, the 200 description. */
export type AnswerOptions = Parameters<typeof ApiResult>[1];

/** A GET answering one record (or an object). */
export const GetRoute = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(ApiResult(type, opts), ApiOperation(doc), access(), Get(path));

/**
 * A GET answering a collection (XML root `ArrayOf{Type}` unless `opts.root` names another). `delta`
 * says what the list answers when asked with `updatedSince` (src/common/http/delta-list.ts,
 * docs/delta-sync.md): its changes as SyncEntry items, a 400 naming what to use instead, or — for
 * what is no list of records — nothing (no such parameter).
 */
export const ListRoute = (access: AccessRule, path: string, type: Answer, delta: DeltaDecl, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(ListAnswer(path, type, delta, opts), ApiOperation(doc), access(), Get(path));

/**
 * What a list answers, with and without `updatedSince`: its collection, or its changes (the
 * interceptor's metadata, the parameter and the SyncEntry alternative of its 200). ListRoute's
 * own part, for the few lists declared without it (the comment lists, one handler per kind).
 */
export function ListAnswer(path: string, type: Answer, delta: DeltaDecl, opts?: AnswerOptions): MethodDecorator {
  const changes = deltaOf(path, delta);
  const or =
    changes && !('refuse' in changes) ? { ...SYNC_ENTRIES, type: SyncEntryDto, when: 'with updatedSince: the changes since then (SyncEntry)' } : undefined;
  const result = ApiResult(type, { ...opts, collection: true, or });
  return changes ? applyDecorators(DeltaListDocs(changes), result) : result;
}

/**
 * The write routes (POST, PUT and PATCH: merge-patch.ts) carry the idempotency stage
 * (route-stages.ts): an authenticated caller's retry with `Idempotency-Key` is answered once.
 */

/** A POST taking a body in any of the four media types. */
export const PostRoute = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(IdempotentWrite(), ApiResult(type, opts), ApiBodyTypes(), ApiOperation(doc), access(), Post(path));

/** A POST without a body (an action on the path). */
export const PostAction = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(IdempotentWrite(), ApiResult(type, opts), ApiOperation(doc), access(), Post(path));

/** A PUT taking a body in any of the four media types. */
export const PutRoute = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(IdempotentWrite(), ApiResult(type, opts), ApiBodyTypes(), ApiOperation(doc), access(), Put(path));

/** A PUT without a body (undelete and the like). */
export const PutAction = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(IdempotentWrite(), ApiResult(type, opts), ApiOperation(doc), access(), Put(path));

/** A DELETE; most answer an empty object (`type` null). */
export const DeleteRoute = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(ApiResult(type, opts), ApiOperation(doc), access(), Delete(path));

/** What a SCIM operation answers on success (RFC 7644 §3.3, §3.6): 201 for a create (POST), 204 for a delete, else 200. */
const SCIM_SUCCESS = { get: 200, post: 201, put: 200, patch: 200, delete: 204 } as const;

/**
 * A SCIM route (docs/identity.md, "SCIM provisioning"), under /scim/v2: JSON only, answered as
 * the handler wrote it (a RawBody with its ETag and Location), with the status of its method on
 * success (SCIM_SUCCESS). Its OpenAPI operation — the SCIM media type, schemas and error bodies —
 * is completed by openapi-scim.ts.
 */
export const ScimRoute = (access: AccessRule, method: keyof typeof SCIM_SUCCESS, path: string, doc: RouteDoc): MethodDecorator => {
  const verb = { get: Get, post: Post, put: Put, patch: Patch, delete: Delete }[method];
  return applyDecorators(
    ...(method === 'post' || method === 'put' || method === 'patch' ? [IdempotentWrite()] : []),
    SetMetadata(WIRE_RESULT, { type: null, collection: false, root: 'scim' } satisfies WireResultMeta),
    HttpCode(SCIM_SUCCESS[method]),
    ApiOperation(doc),
    access(),
    verb(path),
  );
};
