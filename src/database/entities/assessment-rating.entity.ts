import { Entity, Index } from 'typeorm';
import { GuidTenantEntity } from './base.entity.js';
import { GuidCol, IntCol, StrCol, GuidRef } from '../columns.js';
import { AssessmentEntity } from './assessment.entity.js';

/** What a rating rates: an evaluation criterion, a core value or a basic role of the subject, or the whole (general). */
export const RATING_ITEM_KINDS = ['evaluationcriteria', 'corevalue', 'basicrole', 'general'] as const;
export type RatingItemKind = (typeof RATING_ITEM_KINDS)[number];

/**
 * One rating of an assessment (its `Ratings`), in its own table and written in the assessment's
 * transaction. `position` keeps the order the client sent.
 */
@Entity('assessment_ratings')
@Index('ix_assessment_ratings_site_assessment', ['siteId', 'assessmentId', 'position'])
@Index('ix_assessment_ratings_site_item', ['siteId', 'itemKind', 'itemId'])
export class AssessmentRatingEntity extends GuidTenantEntity {
  @GuidRef(() => AssessmentEntity, 'fk_assessment_ratings_assessment', 'assessment_id')
  assessmentId: string;

  @IntCol('position')
  position: number;

  @StrCol('item_kind', 20, { nullable: false })
  itemKind: RatingItemKind;

  @GuidCol('item_id', { nullable: true })
  itemId: string | null;

  @IntCol('rating')
  rating: number;
}
