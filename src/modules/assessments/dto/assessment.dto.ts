import { field, resource } from '../../../http/wire/resource.js';
import { InputField } from '../../../http/wire/wire.js';
import { RATING_ITEM_KINDS, type AssessmentRatingEntity, type RatingItemKind } from '../../../database/entities/assessment-rating.entity.js';
import { ASSESSMENT_KINDS, type AssessmentEntity, type AssessmentKind } from '../../../database/entities/assessment.entity.js';
import { declareExamples, declareListElements } from '../../../http/wire/examples.js';

/** More ratings than this in one assessment is not an assessment but an import gone wrong. */
export const RATINGS_MAX = 200;

/** One entry of `Assessment.Ratings`; XML element `AssessmentRating`. */
export const AssessmentRating = resource<AssessmentRatingEntity>()('AssessmentRating', {
  createName: 'AssessmentRatingInput',
  fields: {
    ItemKind: field.string<'Req', RatingItemKind>('Req', {
      enum: RATING_ITEM_KINDS,
      description: 'What is rated: evaluationcriteria, corevalue, basicrole (of the subject) or general (the whole).',
    }),
    ItemID: field.guid('-', {
      nullable: true,
      description:
        'The rated record: a live evaluation criterion or basic role of the subject, or a live core value of the site; null (or absent) for general.',
    }),
    Rating: field.int('Req', { minValue: 1, maxValue: 5, description: '1 (lowest) to 5 (highest).' }),
  },
});
export const AssessmentRatingDto = AssessmentRating.Response;
export type AssessmentRatingDto = InstanceType<typeof AssessmentRatingDto>;
export const AssessmentRatingInput = AssessmentRating.Create;
export type AssessmentRatingInput = InstanceType<typeof AssessmentRatingInput>;

/** What the wire form of an assessment needs beyond its row: its ratings, loaded in one batch. */
export interface AssessmentExtras {
  ratings: ReadonlyMap<string, readonly AssessmentRatingEntity[]>;
}

const ratingsInput = (description: string) =>
  InputField('array', { nested: () => AssessmentRatingInput, description: `${description} At most ${RATINGS_MAX} ratings.` });

/**
 * The Assessment, every field declared once (docs/dialogs-tasks-roles-assessments.md).
 * Kind, SubjectID and AssessorID are not update inputs (an assessment does not change hands).
 */
export const Assessment = resource<AssessmentEntity, AssessmentExtras>()('Assessment', {
  audit: 'audit',
  // Lists may filter and sort on Created, their own order (docs/queries.md); the fields say their own.
  auditQuery: { Created: { filter: true, sort: true } },
  fields: {
    ID: { ...field.id(), query: { filter: true } },
    Kind: field.string<'ReqCre', AssessmentKind>('ReqCre', {
      query: { filter: true },
      enum: ASSESSMENT_KINDS,
      description:
        'leader (a leader rates someone who reports to them), team (a team member rates their leader) or self (AssessorID = SubjectID). Ignored on update.',
      update: false,
    }),
    SubjectID: field.guid('ReqCre', {
      query: { filter: true },
      description: 'The individual assessed: a live individual of the site. Ignored on update.',
      update: false,
    }),
    AssessorID: field.guid('-', {
      query: { filter: true },
      description: 'The individual who assesses: a live individual of the site. Ignored on update.',
      create: { description: 'Default: the caller. For Kind self it must equal SubjectID.' },
      update: false,
    }),
    PeriodID: field.int('ReqCre', {
      description: 'The period assessed: a period of the site.',
      update: { description: 'A period of the site. Absent keeps the current value; null is 400.' },
    }),
    Ratings: field.array('-', {
      nested: () => AssessmentRatingDto,
      column: null,
      description: 'The ratings, in the order written. In XML one AssessmentRating element per rating.',
      from: (a: AssessmentEntity, x: AssessmentExtras) => (x.ratings.get(a.id) ?? []).map((r) => AssessmentRating.toWire(r)),
      create: { decorator: ratingsInput('Absent or null: none.') },
      update: { decorator: ratingsInput('Absent keeps the ratings; a list (also an empty one) replaces them all; null clears them.') },
    }),
    SiteID: field.guid('RO'),
  },
});

export const AssessmentDto = Assessment.Response;
export type AssessmentDto = InstanceType<typeof AssessmentDto>;
export const CreateAssessmentDto = Assessment.Create;
export type CreateAssessmentDto = InstanceType<typeof CreateAssessmentDto> & { Ratings?: AssessmentRatingInput[] | null };
export const UpdateAssessmentDto = Assessment.Update;
export type UpdateAssessmentDto = InstanceType<typeof UpdateAssessmentDto> & { Ratings?: AssessmentRatingInput[] | null };

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchAssessmentDto: { body: { Ratings: [{ ItemKind: 'general', ItemID: null, Rating: 3 }] } },
  CreateAssessmentDto: {
    body: {
      Kind: 'self',
      SubjectID: 'INDIVIDUAL_ID',
      AssessorID: 'INDIVIDUAL_ID',
      PeriodID: 'PERIOD_ID',
      Ratings: [{ ItemKind: 'general', ItemID: null, Rating: 4 }],
    },
  },
  UpdateAssessmentDto: { body: { ID: 'PATH_ID', Ratings: [{ ItemKind: 'general', ItemID: null, Rating: 5 }] } },
});

/** The element of each item of the list member in XML (the examples write it so). */
declareListElements({ Ratings: 'AssessmentRating' });
