import { field, resource } from '../../../http/wire/resource.js';
import { fullName } from '../../../common/names.js';
import { CHECKED_KINDS, UNCHECKED_KINDS } from '../comment-ancestors.js';
import { COMMENT_KINDS, type CommentEntity, type CommentKind } from '../../../database/entities/comment.entity.js';
import { declareExamples } from '../../../http/wire/examples.js';

const ANCESTOR_RULE = `Must name a record of that kind in the caller’s site for ${CHECKED_KINDS.join(', ')}; ${UNCHECKED_KINDS.join(', ')} accept any id until their resource exists.`;

/** Comment.Body: required, at most 10,000 characters (docs/comments.md). */
export const COMMENT_BODY_MAX = 10_000;

/**
 * Comment (docs/comments.md): every field declared once (docs/adding-a-resource.md). Only Body changes on
 * update: AncestorID and AncestorType are not update inputs, so an update ignores them.
 */
export const Comment = resource<CommentEntity>()('Comment', {
  audit: 'softDelete',
  // Lists may filter on Deleted and filter and sort on Created, their own order (docs/queries.md).
  auditQuery: { Deleted: { filter: true }, Created: { filter: true, sort: true } },
  fields: {
    ID: field.guid('ReqUpd', {
      query: { filter: true },
      description: 'The comment id. Optional on create (generated when absent or all zeros; 409 id-taken when used).',
      create: { description: 'Optional; generated when absent or all zeros. 409 id-taken when already used.' },
      update: { description: 'Must equal the id of the path.' },
    }),
    SiteID: field.guid('RO', { description: 'The site of the comment.' }),
    AncestorID: field.fixed.guid(
      `The record the comment is about. ${ANCESTOR_RULE} Ignored on update.`,
      `The record the comment is about. ${ANCESTOR_RULE} Else 400 naming AncestorID.`,
      { query: { filter: true } },
    ),
    AncestorType: field.string<'ReqCre', CommentKind>('ReqCre', {
      enum: COMMENT_KINDS,
      query: { filter: true },
      description: 'What kind of record AncestorID names: the path word of the spec (lower case, plural). Ignored on update.',
      create: { description: 'One of the path words: ' + COMMENT_KINDS.join(', ') + '.' },
      update: false,
    }),
    Body: field.string('Req', { max: COMMENT_BODY_MAX, min: 1, description: 'The text of the comment, stored as sent. Must not be empty or blank.' }),
    AuthorID: field.guid('RO', { nullable: true, query: { filter: true }, description: 'The individual who wrote the comment (the caller of the create).' }),
    AuthorName: field.string('RO', {
      nullable: true,
      description: 'FullName (First Last) of the author; null when the author is not an individual of this site.',
      // The names the comment keeps (docs/comments.md, "The author's name"): both null when none.
      from: (e: CommentEntity) => (e.authorFirstName === null && e.authorLastName === null ? null : fullName(e.authorFirstName, e.authorLastName)),
    }),
  },
});

export const { Response: CommentDto, Create: CreateCommentDto, Update: UpdateCommentDto } = Comment;
export type CommentDto = InstanceType<typeof CommentDto>;
export type CreateCommentDto = InstanceType<typeof CreateCommentDto>;
export type UpdateCommentDto = InstanceType<typeof UpdateCommentDto>;

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchCommentDto: { body: { Body: 'Great progress this quarter (edited).' } },
  CreateCommentDto: { body: { AncestorID: 'INDIVIDUAL_ID', AncestorType: 'individuals', Body: 'Great progress this quarter, keep it up.' } },
  UpdateCommentDto: { body: { ID: 'PATH_ID', Body: 'Great progress this quarter.' } },
});
