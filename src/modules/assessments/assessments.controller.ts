import { Body, Query } from '@nestjs/common';
import { Pm, PmAdmin } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { GuidParam } from '../../http/wire/ids.js';
import { AssessmentsService } from './assessments.service.js';
import { Assessment, AssessmentDto, CreateAssessmentDto, UpdateAssessmentDto } from './dto/assessment.dto.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesOf, changesUnder } from '../../http/pipeline/delta-list.js';
import { QueriedPeriodQuery } from '../../http/wire/period-query.js';
import { queryNotes } from '../../http/wire/list-query.js';

const LIST_NOTE = `Filtered by \`period\` (default: the period containing today, else the latest); ordered by creation; paged with limit/offset (X-Total-Count, Link). Each assessment carries its Ratings. XML root ArrayOfAssessment. ${queryNotes(Assessment)}`;
const READ_RULE =
  'Readable by administrators, the assessor, anyone above the subject in the reporting chain, and the subject (self and leader assessments only); others get 403.';
const WRITE_RULE = 'Allowed for the assessor and administrators; others get 403.';

@ApiController('Assessment', undefined, {
  description: 'Self, leader and team assessments of an individual in a period, with their ratings (performance management).',
})
export class AssessmentsController {
  constructor(private readonly assessments: AssessmentsService) {}

  @ListRoute(PmAdmin, 'assessments', AssessmentDto, changesOf('assessments'), {
    summary: 'List the assessments of the site (PM, Admin)',
    description: LIST_NOTE,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: QueriedPeriodQuery) {
    return this.assessments.list(ctx, q);
  }

  @ListRoute(Pm, 'individuals/:id/assessments', AssessmentDto, changesUnder('assessments', ['SubjectID']), {
    summary: 'List the assessments of an individual (PM)',
    description: `The assessments whose subject is the individual. 404 for an individual not of the site; allowed for the individual (without the team assessments of them), anyone they report to and administrators (else 403). ${LIST_NOTE}`,
  })
  listForIndividual(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Query() q: QueriedPeriodQuery) {
    return this.assessments.listForIndividual(ctx, id, q);
  }

  @GetRoute(Pm, 'assessments/:id', AssessmentDto, { summary: 'Read an assessment (PM)', description: READ_RULE })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.assessments.get(ctx, id);
  }

  @PostRoute(Pm, 'assessments', AssessmentDto, {
    summary: 'Record an assessment (PM)',
    description:
      'Kind (leader, team, self), SubjectID (a live individual) and PeriodID (a period of the site) are required; AssessorID defaults to the caller and must equal SubjectID for self (and differ for leader and team). Ratings: each with ItemKind, ItemID (a live evaluation criterion or basic role of the subject, or a live core value; null for general) and Rating 1–5, an item at most once; a failing rating is 400 naming Ratings[i].field. A non-administrator records only as the assessor: a self assessment, a leader assessment of someone who reports to them, or a team assessment of someone they report to (else 403). ID is optional (used if free, else 409 id-taken).',
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateAssessmentDto) {
    return this.assessments.create(ctx, dto);
  }

  @PutRoute(Pm, 'assessments/:id', AssessmentDto, {
    summary: 'Update an assessment (PM)',
    description: `ID must equal the path id. Absent fields keep their value; Ratings, when sent, replace all ratings (an empty list or null removes them). Kind, SubjectID and AssessorID are ignored. If-Match is honoured (412). ${WRITE_RULE}`,
  })
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateAssessmentDto) {
    return this.assessments.update(ctx, id, dto);
  }

  @PatchRoute(Pm, 'assessments/:id', UpdateAssessmentDto, AssessmentDto, {
    summary: 'Change some fields of an assessment (PM)',
    description: `Ratings, when sent, replace all ratings (an empty list or null removes them); absent, they stay. PeriodID cannot be cleared (400). Kind, SubjectID and AssessorID are ignored. ${WRITE_RULE}`,
  })
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateAssessmentDto>) {
    return this.assessments.patch(ctx, id, patch);
  }

  @DeleteRoute(Pm, 'assessments/:id', null, {
    summary: 'Delete an assessment (PM)',
    description: `Removes the assessment and its ratings (assessments are not soft-deleted). Answers an empty object. If-Match is honoured (412). ${WRITE_RULE}`,
  })
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.assessments.remove(ctx, id);
  }
}
