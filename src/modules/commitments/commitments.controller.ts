import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Pm } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { GuidPipe, IntIdPipe } from '../../common/validation/ids.js';
import { COMMITMENT_TYPES } from '../../database/entities/commitment.entity.js';
import { CommitmentsService } from './commitments.service.js';
import { CommitmentDto, CommitmentQuery, CreateCommitmentDto, UpdateCommitmentDto } from './dto/commitment.dto.js';

const PERIOD =
  'period: a period id of the site (404 when unknown); default the period containing today, else the latest. Ordered by Rank, Name, ID. Every member of the site may read commitments.';
const WRITE =
  'An individual’s commitments may be written by the individual, anyone above them in the PrimaryReportsTo chain, and administrators; an organization’s or department’s by administrators and that unit’s manager (ManagerID). Others: 403.';

@ApiTags('Commitment')
@Controller()
export class CommitmentsController {
  constructor(private readonly commitments: CommitmentsService) {}

  @Get('dashboards/:ancestorId/commitments/:type')
  @Pm()
  @ApiOperation({
    summary: 'List the commitments a dashboard counts at one level (PM)',
    description: `ancestorId: an organization, department or individual (404 otherwise). type: organization, department or individual (400 otherwise). For an individual: their own commitments, their primary department’s, or those of the nearest organization above that department. For a department or organization: the commitments of the unit and its live sub-units of that level, of the live members of the unit and its sub-units (individual), or, for a department’s organization level, of the nearest organization above it. ${PERIOD}`,
  })
  @ApiParam({ name: 'type', enum: COMMITMENT_TYPES })
  @ApiResult(CommitmentDto, { collection: true })
  forDashboard(@Ctx() ctx: RequestContext, @Param('ancestorId', GuidPipe) ancestorId: string, @Param('type') type: string, @Query() q: CommitmentQuery) {
    return this.commitments.forDashboard(ctx, ancestorId, type, q);
  }

  @Get('individuals/:id/commitments')
  @Pm()
  @ApiOperation({ summary: 'List the commitments of an individual (PM)', description: PERIOD })
  @ApiResult(CommitmentDto, { collection: true })
  listForIndividual(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: CommitmentQuery) {
    return this.commitments.listFor(ctx, 'individual', id, q);
  }

  @Get('organizations/:id/commitments')
  @Pm()
  @ApiOperation({ summary: 'List the commitments of an organization (PM)', description: `id must be an organization (RowType 4), else 404. ${PERIOD}` })
  @ApiResult(CommitmentDto, { collection: true })
  listForOrganization(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: CommitmentQuery) {
    return this.commitments.listFor(ctx, 'organization', id, q);
  }

  @Get('departments/:id/commitments')
  @Pm()
  @ApiOperation({ summary: 'List the commitments of a department (PM)', description: `id must be a department (RowType 56), else 404. ${PERIOD}` })
  @ApiResult(CommitmentDto, { collection: true })
  listForDepartment(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Query() q: CommitmentQuery) {
    return this.commitments.listFor(ctx, 'department', id, q);
  }

  @Post('commitments')
  @Pm()
  @ApiOperation({
    summary: 'Create a commitment (PM)',
    description: `Type and AncestorID must name a live organization, department or individual of the site; PeriodID a period of the site (else 400). ${WRITE}`,
  })
  @ApiBodyTypes()
  @ApiResult(CommitmentDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateCommitmentDto) {
    return this.commitments.create(ctx, dto);
  }

  @Put('commitments/:id')
  @Pm()
  @ApiOperation({
    summary: 'Update a commitment (PM)',
    description: `ID must equal the path id; Type and AncestorID are ignored (a commitment does not move). ${WRITE}`,
  })
  @ApiBodyTypes()
  @ApiResult(CommitmentDto)
  update(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number, @Body() dto: UpdateCommitmentDto) {
    return this.commitments.update(ctx, id, dto);
  }

  @PatchRoute('commitments/:id', UpdateCommitmentDto, {
    summary: 'Change some fields of a commitment (PM)',
    description: `Type and AncestorID are ignored (a commitment does not move). ${WRITE}`,
  })
  @Pm()
  @ApiResult(CommitmentDto)
  patch(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number, @Body() patch: MergePatch<UpdateCommitmentDto>) {
    return this.commitments.patch(ctx, id, patch);
  }

  @Delete('commitments/:id')
  @Pm()
  @ApiOperation({ summary: 'Delete a commitment (PM)', description: `Commitments are not soft-deleted: the commitment is removed. ${WRITE}` })
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', IntIdPipe) id: number) {
    return this.commitments.remove(ctx, id);
  }
}
