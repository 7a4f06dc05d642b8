import { applyDecorators, Controller, Delete, Get, Post, Put, SetMetadata, type Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiBodyTypes, ApiResult } from '../wire/wire.js';
import { deltaOf, DeltaListDocs, type DeltaDecl } from './delta-list.js';
import { ExportsList, IdempotentWrite } from './route-stages.js';
import { IgnoresBody } from '../wire/ignored-body.js';

/**
 * One composite decorator per kind of route (docs/adding-a-resource.md): the access rule, the
 * method and path, the OpenAPI operation and what the handler answers, which every route states
 * together. `@GetRoute(Pm, 'tasks/:id', TaskDto, { summary, description })` stands for
 * `@Get` + `@Pm()` + `@ApiOperation` + `@ApiResult`; the access rules themselves stay the composite
 * decorators of `src/auth/access.decorators.ts`, and the handler below still makes one service call.
 * Each applies its parts in the order the stacked decorators did (bottom-up), so the OpenAPI
 * document is the same.
 */
export interface RouteDoc {
  summary: string;
  description?: string;
}

/** What a controller says of itself beside its tag and prefix. */
export interface ControllerOptions {
  /** What the tag groups: the heading Swagger UI shows for it (declared once per tag, by one of its controllers). */
  description?: string;
  /** Its routes are served under their own path, outside /v4 (the probes, SCIM provisioning). */
  outsideV4?: true;
}

/** Metadata of a controller: the description of its tag (ControllerOptions). */
export const TAG_DESCRIPTION = 'pms:tag-description';
/** Metadata of a controller whose routes are served outside /v4. */
export const OUTSIDE_V4 = 'pms:outside-v4';

/**
 * A controller and the OpenAPI group its routes are listed under, which every controller states
 * together: `@ApiController('Period', 'periods', { description })` stands for `@ApiTags('Period')` +
 * `@Controller('periods')` (no prefix: the routes' paths are written whole), with what the tag
 * groups for the document's tag list (src/openapi/openapi-tags.ts collects it).
 */
export const ApiController = (tag: string, prefix?: string, options: ControllerOptions = {}): ClassDecorator =>
  applyDecorators(
    ApiTags(tag),
    prefix === undefined ? Controller() : Controller(prefix),
    ...(options.description ? [SetMetadata(TAG_DESCRIPTION, { tag, description: options.description })] : []),
    ...(options.outsideV4 ? [SetMetadata(OUTSIDE_V4, true)] : []),
  );

/** An access rule of `src/auth/access.decorators.ts`: `Pm`, `Admin`, `Authenticated`… */
export type AccessRule = () => MethodDecorator;

/** What the handler answers: a wire type, or null for an empty object. */
type Answer = Type<unknown> | null;

/** What `@ApiResult` takes beside the type: a collection, its XML root, the 200 description. */
export type AnswerOptions = Parameters<typeof ApiResult>[1];

/** A GET answering one record (or an object), or with `opts.collection` a collection read its own way (the audit trail): such a list carries the export stage too (docs/exports.md). */
export const GetRoute = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  opts?.collection
    ? applyDecorators(ApiResult(type, opts), ApiOperation(doc), access(), Get(path), ExportsList())
    : applyDecorators(ApiResult(type, opts), ApiOperation(doc), access(), Get(path));

/**
 * A GET answering a collection (XML root `ArrayOf{Type}` unless `opts.root` names another). `delta`
 * says what the list answers when asked with `updatedSince` (src/http/pipeline/delta-list.ts,
 * docs/delta-sync.md): its records changed since then, still of its own type (the changes with
 * tombstones are the sync route's, SyncEntry), a 400 naming what to use instead, or — for what is
 * no list of records — nothing (no such parameter).
 */
export const ListRoute = (access: AccessRule, path: string, type: Answer, delta: DeltaDecl, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(ListAnswer(path, type, delta, opts), ApiOperation(doc), access(), Get(path));

/**
 * What a list answers, with and without `updatedSince`: its collection, of its own type either way
 * (the stage's metadata and the parameter; no union in the 200, DESIGN.md). ListRoute's own part,
 * for the few lists declared without it (the comment lists, one handler per kind).
 */
export function ListAnswer(path: string, type: Answer, delta: DeltaDecl, opts?: AnswerOptions): MethodDecorator {
  const changes = deltaOf(path, delta);
  const result = ApiResult(type, { ...opts, collection: true });
  // The export stage is the outermost: it reads the list's own method (and its changes' refusal) page after page.
  return changes ? applyDecorators(DeltaListDocs(changes), result, ExportsList()) : applyDecorators(result, ExportsList());
}

/**
 * The write routes (POST, PUT and PATCH: merge-patch.ts) carry the idempotency stage
 * (route-stages.ts): an authenticated caller's retry with `Idempotency-Key` is answered once.
 */

/** A POST taking a body in any of the four media types. */
export const PostRoute = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(IdempotentWrite(), ApiResult(type, opts), ApiBodyTypes(), ApiOperation(doc), access(), Post(path));

/** A POST without a body (an action on the path): one sent is taken and ignored (ignored-body.ts). */
export const PostAction = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(IdempotentWrite(), ApiResult(type, opts), IgnoresBody(), ApiOperation(doc), access(), Post(path));

/** A PUT taking a body in any of the four media types. */
export const PutRoute = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(IdempotentWrite(), ApiResult(type, opts), ApiBodyTypes(), ApiOperation(doc), access(), Put(path));

/** A PUT without a body (undelete and the like): one sent is taken and ignored (ignored-body.ts). */
export const PutAction = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(IdempotentWrite(), ApiResult(type, opts), IgnoresBody(), ApiOperation(doc), access(), Put(path));

/** A DELETE; most answer an empty object (`type` null). A body sent (`{}`) is taken and ignored, as on an action. */
export const DeleteRoute = (access: AccessRule, path: string, type: Answer, doc: RouteDoc, opts?: AnswerOptions): MethodDecorator =>
  applyDecorators(ApiResult(type, opts), IgnoresBody(), ApiOperation(doc), access(), Delete(path));
