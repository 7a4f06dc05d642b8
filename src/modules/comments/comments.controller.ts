import { Body, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery } from '@nestjs/swagger';
import { Authenticated } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { QueriedListQuery } from '../../http/wire/pagination.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { GuidPipe, GuidParam } from '../../http/wire/ids.js';
import { CHECKED_KINDS, UNCHECKED_KINDS } from './comment-ancestors.js';
import type { CommentKind } from '../../database/entities/comment.entity.js';
import { CommentsService } from './comments.service.js';
import { Comment, CommentDto, CreateCommentDto, UpdateCommentDto } from './dto/comment.dto.js';
import { defineRoutes } from '../../http/pipeline/route-family.js';
import { ApiController, ListAnswer, ListRoute, PostRoute, PutRoute, PutAction, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesUnder } from '../../http/pipeline/delta-list.js';

const TZ = ApiQuery({
  name: 'tz',
  required: false,
  description: 'Time zone every date of the answer is written in: IANA name, Windows zone id or fixed offset (+05:30). Default UTC; unknown → 400.',
});

const LIST_NOTE =
  'Newest first (Created, then ID, descending), paged with limit/offset (X-Total-Count, Link). `deleted`: 0 live (default), 1 deleted, 2 all. Any member of the site may read comments. ' +
  queryNotes(Comment);

const ANCESTOR = ApiParam({ name: 'ancestorid', description: 'Id of the record the comments are about.', format: 'uuid' });

/** The seven `/{kind}/{ancestorid}/comments` lists: each kind with its handler's name, in route order. */
const COMMENT_LISTS: readonly (readonly [kind: CommentKind, handler: string])[] = [
  ['departments', 'listForDepartment'],
  ['individuals', 'listForIndividual'],
  ['metrics', 'listForMetric'],
  ['organizations', 'listForOrganization'],
  ['projects', 'listForProject'],
  ['tasks', 'listForTask'],
  ['dialogs', 'listForDialog'],
];

/** The documentation of one comment list. */
function listOperation(kind: CommentKind): MethodDecorator {
  const check = CHECKED_KINDS.includes(kind)
    ? `The ${kind} record must exist in the caller’s site (404 otherwise; a deleted one still lists its comments).`
    : `Any well-formed id is accepted: the existence check of ${kind} records comes with that resource.`;
  return ApiOperation({ summary: `List the comments on one of the ${kind}`, description: `${check} ${LIST_NOTE}` });
}

@ApiController('Comment', undefined, {
  description:
    'Comments on individuals, organizations, departments, projects, tasks, metrics and dialogs; the author or an administrator changes or deletes them.',
})
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  @ListRoute(Authenticated, 'me/comments', CommentDto, changesUnder('comments', ['AuthorID']), {
    summary: 'List the comments the caller wrote',
    description: `Comments whose author is the caller, on any record. ${LIST_NOTE}`,
  })
  @TZ
  listMine(@Ctx() ctx: RequestContext, @Query() q: QueriedListQuery) {
    return this.comments.listMine(ctx, q);
  }

  @PostRoute(Authenticated, 'comments', CommentDto, {
    summary: 'Create a comment; the caller is its author',
    description:
      'Body: AncestorID, AncestorType (departments, individuals, metrics, organizations, projects, tasks, dialogs), Body (1–10,000 characters), optional ID. ' +
      `AncestorID must name a record of that kind in the caller’s site for ${CHECKED_KINDS.join(', ')} (400 naming AncestorID otherwise); ` +
      `a deleted one is 409 \`deleted\`. ${UNCHECKED_KINDS.join(', ')} accept any id until their resource exists. ` +
      'Read-only fields are ignored.',
  })
  @TZ
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateCommentDto) {
    return this.comments.create(ctx, dto);
  }

  @PutRoute(Authenticated, 'comments/:id', CommentDto, {
    summary: 'Change the Body of a comment (author or administrator)',
    description:
      'Only Body changes; AncestorID, AncestorType and read-only fields are ignored, so the whole object read back may be sent. ' +
      'The body ID must equal the path id (400). Someone else than the author or an administrator: 403. A deleted comment: 409 `deleted`. If-Match: 412 when stale.',
  })
  @TZ
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateCommentDto) {
    return this.comments.update(ctx, id, dto);
  }

  @PatchRoute(Authenticated, 'comments/:id', UpdateCommentDto, CommentDto, {
    summary: 'Change the Body of a comment (author or administrator)',
    description: 'Only Body changes. Someone else than the author or an administrator: 403. A deleted comment: 409 `deleted`.',
  })
  @TZ
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateCommentDto>) {
    return this.comments.patch(ctx, id, patch);
  }

  @DeleteRoute(Authenticated, 'comments/:id', null, {
    summary: 'Delete a comment (soft; author or administrator)',
    description: 'Sets Deleted; the comment stays readable with `deleted=1` or `2`. Idempotent: deleting a deleted comment answers `{}` again.',
  })
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.comments.remove(ctx, id);
  }

  @PutAction(
    Authenticated,
    'comments/:id/undelete',
    CommentDto,
    {
      summary: 'Restore a deleted comment (author or administrator)',
      description:
        'Answers a List (XML root `List`) holding the one restored Comment, as the spec’s Returns column says. Idempotent: a live comment is answered as it is. ' +
        'A comment whose ancestor is deleted stays deleted (409 `deleted`): undeleting the ancestor restores it.',
    },
    { collection: true, root: 'List' },
  )
  @TZ
  undelete(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.comments.undelete(ctx, id);
  }

  /**
   * The comment lists of the Comment group, declared once: `GET /{kind}/{ancestorid}/comments` for
   * each row of COMMENT_LISTS is an explicit route of its own (an unknown kind simply has no route:
   * 404), authenticated, documented for its kind, its ancestor id a guid, answered by
   * `CommentsService.listFor(ctx, kind, id, query)`; they stand before the caller's own list.
   */
  static {
    defineRoutes(
      this,
      COMMENT_LISTS.map(([kind, handler]) => ({
        name: handler,
        decorators: [
          Get(`${kind}/:ancestorid/comments`),
          Authenticated(),
          listOperation(kind),
          ANCESTOR,
          TZ,
          ListAnswer(`${kind}/:ancestorid/comments`, CommentDto, changesUnder('comments', ['AncestorID'])),
        ],
        params: [
          [Ctx(), RequestContext],
          [Param('ancestorid', GuidPipe), String],
          [Query(), QueriedListQuery],
        ],
        handle(this: CommentsController, ctx: RequestContext, id: string, q: QueriedListQuery) {
          return this.comments.listFor(ctx, kind, id, q);
        },
      })),
      { before: 'listMine' },
    );
  }
}
