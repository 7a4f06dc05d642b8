import { InputField, WireField, WireType } from '../../../common/http/wire.js';
import { SoftDeletedWire, WireAudit, softDeleteOf } from '../../../common/http/wire-audit.js';
import { CHECKED_KINDS, UNCHECKED_KINDS } from '../comment-ancestors.js';
import { COMMENT_KINDS, type CommentEntity, type CommentKind } from '../comment.entity.js';

const ANCESTOR_RULE = `Must name a record of that kind in the caller’s site for ${CHECKED_KINDS.join(', ')}; ${UNCHECKED_KINDS.join(', ')} accept any id until their resource exists.`;

/** Comment.Body: required, at most 10,000 characters (DESIGN §5). */
export const COMMENT_BODY_MAX = 10_000;

@WireType('Comment')
@WireAudit({ softDelete: true })
export class CommentDto extends SoftDeletedWire {
  @WireField('guid', { access: 'ReqUpd', description: 'The comment id. Optional on create (generated when absent or all zeros; 409 id-taken when used).' })
  ID: string;

  @WireField('guid', { access: 'RO', description: 'The site of the comment.' })
  SiteID: string;

  @WireField('guid', {
    access: 'ReqCre',
    description: `The record the comment is about. ${ANCESTOR_RULE} Ignored on update.`,
  })
  AncestorID: string;

  @WireField('string', {
    access: 'ReqCre',
    enum: COMMENT_KINDS,
    description: 'What kind of record AncestorID names: the path word of the spec (lower case, plural). Ignored on update.',
  })
  AncestorType: CommentKind;

  @WireField('string', { access: 'Req', max: COMMENT_BODY_MAX, description: 'The text of the comment, stored as sent. Must not be empty or blank.' })
  Body: string;

  @WireField('guid', { nullable: true, access: 'RO', description: 'The individual who wrote the comment (the caller of the create).' })
  AuthorID: string | null;

  @WireField('string', {
    nullable: true,
    access: 'RO',
    description: 'FullName (First Last) of the author; null when the author is not an individual of this site.',
  })
  AuthorName: string | null;

  static from(e: CommentEntity, extras: { authorName: string | null }): CommentDto {
    return Object.assign(new CommentDto(), {
      ID: e.id,
      SiteID: e.siteId,
      AncestorID: e.ancestorId,
      AncestorType: e.ancestorType,
      Body: e.body,
      AuthorID: e.authorId,
      AuthorName: extras.authorName,
      ...softDeleteOf(e),
    });
  }
}

export class CreateCommentDto {
  @InputField('guid', { description: 'Optional; generated when absent or all zeros. 409 id-taken when already used.' })
  ID?: string | null;

  @InputField('guid', { required: true, description: `The record the comment is about. ${ANCESTOR_RULE} Else 400 naming AncestorID.` })
  AncestorID: string;

  @InputField('string', { required: true, enum: COMMENT_KINDS, description: 'One of the path words: ' + COMMENT_KINDS.join(', ') + '.' })
  AncestorType: CommentKind;

  @InputField('string', { required: true, max: COMMENT_BODY_MAX, min: 1 })
  Body: string;
}

/** Only Body changes; AncestorID and AncestorType (and every RO field) are ignored on update. */
export class UpdateCommentDto {
  @InputField('guid', { required: true, description: 'Must equal the id of the path.' })
  ID: string;

  @InputField('string', { required: true, max: COMMENT_BODY_MAX, min: 1 })
  Body: string;
}
