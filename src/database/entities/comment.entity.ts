import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { BoolCol, GuidCol, StrCol, TextCol } from '../columns.js';
import { LIMITS } from '../../common/limits.js';

/** The `{kind}` words of the comment paths (docs/comments.md), stored as Comment.AncestorType. */
export const COMMENT_KINDS = ['departments', 'individuals', 'metrics', 'organizations', 'projects', 'tasks', 'dialogs'] as const;
export type CommentKind = (typeof COMMENT_KINDS)[number];

@Entity('comments')
@Index('ix_comments_site_ancestor_last', ['siteId', 'ancestorType', 'ancestorId', 'deleted', 'created', 'id'])
@Index('ix_comments_site_author', ['siteId', 'authorId', 'created'])
@Index('ix_comments_site_author_live', ['siteId', 'authorId', 'deleted', 'created'])
export class CommentEntity extends GuidTenantEntity {
  @GuidCol('ancestor_id')
  ancestorId: string;

  @StrCol('ancestor_type', 20, { nullable: false })
  ancestorType: CommentKind;

  @TextCol('body', { nullable: false })
  body: string;

  @GuidCol('author_id', { nullable: true })
  authorId: string | null;

  /**
   * The author's name, kept with the comment so a page of comments (and an individual's newest
   * comment) is read without a lookup per row (docs/comments.md, "The author's name"): set by the
   * create from the author's row, rewritten in the transaction of every change of that row's
   * names. Both null when the author is not an individual of the comment's site.
   */
  @StrCol('author_first_name', LIMITS.personName)
  authorFirstName: string | null;

  @StrCol('author_last_name', LIMITS.personName)
  authorLastName: string | null;

  @BoolCol('deleted', false)
  deleted: boolean;

  @BoolCol('deleted_by_ref', false)
  deletedByRef: boolean;
}
