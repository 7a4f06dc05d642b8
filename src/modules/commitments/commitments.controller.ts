import { Body, Param, Query } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { Pm } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { GuidParam, IntParam } from '../../http/wire/ids.js';
import { COMMITMENT_TYPES, type CommitmentType } from '../../database/entities/commitment.entity.js';
import { CommitmentsService } from './commitments.service.js';
import { Commitment, CommitmentDto, CreateCommitmentDto, UpdateCommitmentDto } from './dto/commitment.dto.js';
import { ApiController, ListRoute, PostRoute, PutRoute, DeleteRoute } from '../../http/pipeline/routes.js';
import { defineRoutes } from '../../http/pipeline/route-family.js';
import { changesRefused, changesUnder } from '../../http/pipeline/delta-list.js';
import { QueriedPeriodQuery } from '../../http/wire/period-query.js';
import { queryNotes } from '../../http/wire/list-query.js';

const PERIOD =
  'period: a period id of the site (404 when unknown); default the period containing today, else the latest. Ordered by Rank, Name, ID. Every member of the site may read commitments.';
const WRITE =
  'An individual’s commitments may be written by the individual, anyone above them in the PrimaryReportsTo chain, and administrators; an organization’s or department’s by administrators and that unit’s manager (ManagerID). Others: 403.';

/** The three levels' lists, in route order: the level, its path word, its handler, the record in words and its RowType (none for an individual). */
const LEVEL_LISTS: readonly { type: CommitmentType; path: string; name: string; record: string; rowType?: number }[] = [
  { type: 'individual', path: 'individuals', name: 'listForIndividual', record: 'an individual' },
  { type: 'organization', path: 'organizations', name: 'listForOrganization', record: 'an organization', rowType: 4 },
  { type: 'department', path: 'departments', name: 'listForDepartment', record: 'a department', rowType: 56 },
];

@ApiController('Commitment', undefined, { description: 'Commitments of an organization, department or individual in a period (performance management).' })
export class CommitmentsController {
  constructor(private readonly commitments: CommitmentsService) {}

  @ListRoute(
    Pm,
    'dashboards/:ancestorId/commitments/:type',
    CommitmentDto,
    changesRefused('A dashboard’s commitments are those of several records at one level: sync them with GET /v4/sync/commitments?updatedSince=…'),
    {
      summary: 'List the commitments a dashboard counts at one level (PM)',
      description: `ancestorId: an organization, department or individual (404 otherwise). type: organization, department or individual (400 otherwise). For an individual: their own commitments, their primary department’s, or those of the nearest organization above that department. For a department or organization: the commitments of the unit and its live sub-units of that level, of the live members of the unit and its sub-units (individual), or, for a department’s organization level, of the nearest organization above it. ${PERIOD}`,
    },
  )
  @ApiParam({ name: 'type', enum: COMMITMENT_TYPES })
  forDashboard(@Ctx() ctx: RequestContext, @GuidParam('ancestorId') ancestorId: string, @Param('type') type: string, @Query() q: QueriedPeriodQuery) {
    return this.commitments.forDashboard(ctx, ancestorId, type, q);
  }

  @PostRoute(Pm, 'commitments', CommitmentDto, {
    summary: 'Create a commitment (PM)',
    description: `Type and AncestorID must name a live organization, department or individual of the site; PeriodID a period of the site (else 400). ${WRITE}`,
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateCommitmentDto) {
    return this.commitments.create(ctx, dto);
  }

  @PutRoute(Pm, 'commitments/:id', CommitmentDto, {
    summary: 'Update a commitment (PM)',
    description: `ID must equal the path id; Type and AncestorID are ignored (a commitment does not move). ${WRITE}`,
  })
  update(@Ctx() ctx: RequestContext, @IntParam() id: number, @Body() dto: UpdateCommitmentDto) {
    return this.commitments.update(ctx, id, dto);
  }

  @PatchRoute(Pm, 'commitments/:id', UpdateCommitmentDto, CommitmentDto, {
    summary: 'Change some fields of a commitment (PM)',
    description: `Type and AncestorID are ignored (a commitment does not move). ${WRITE}`,
  })
  patch(@Ctx() ctx: RequestContext, @IntParam() id: number, @Body() patch: MergePatch<UpdateCommitmentDto>) {
    return this.commitments.patch(ctx, id, patch);
  }

  @DeleteRoute(Pm, 'commitments/:id', null, {
    summary: 'Delete a commitment (PM)',
    description: `Commitments are not soft-deleted: the commitment is removed. ${WRITE}`,
  })
  remove(@Ctx() ctx: RequestContext, @IntParam() id: number) {
    return this.commitments.remove(ctx, id);
  }

  /** The commitments of a record, declared once for the three levels; they stand before `create`. */
  static {
    defineRoutes(
      this,
      LEVEL_LISTS.map((l) => ({
        name: l.name,
        decorators: [
          ListRoute(Pm, `${l.path}/:id/commitments`, CommitmentDto, changesUnder('commitments', ['AncestorID']), {
            summary: `List the commitments of ${l.record} (PM)`,
            description: `${l.rowType === undefined ? PERIOD : `id must be ${l.record} (RowType ${l.rowType}), else 404. ${PERIOD}`} ${queryNotes(Commitment)}`,
          }),
        ],
        params: [
          [Ctx(), RequestContext],
          [GuidParam(), String],
          [Query(), QueriedPeriodQuery],
        ],
        handle(this: CommitmentsController, ctx: RequestContext, id: string, q: QueriedPeriodQuery) {
          return this.commitments.listFor(ctx, l.type, id, q);
        },
      })),
      { before: 'create' },
    );
  }
}
