import { Body, Query } from '@nestjs/common';
import { Pm, PmAdmin } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { GuidParam } from '../../http/wire/ids.js';
import { DialogsService } from './dialogs.service.js';
import { CreateDialogDto, Dialog, DialogDto, DialogQuery, UpdateDialogDto } from './dto/dialog.dto.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, PutAction, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesOf, changesUnder } from '../../http/pipeline/delta-list.js';

const WHO =
  'Allowed for administrators, the dialog’s leader and anyone the leader reports to, and whoever manages what the dialog is about (the individual; the unit’s manager; the project’s owner) and anyone they report to; others get 403.';
const LIST_NOTE =
  'Filtered by `period` (default: the period containing today, else the latest) and `deleted` (0 live, default; 1 deleted; 2 all); ordered by ScheduledDate, then ID; paged with limit/offset (X-Total-Count, Link). XML root ArrayOfDialog. ' +
  queryNotes(Dialog);

@ApiController('Dialog', undefined, {
  description: 'Performance dialogs in a period, held by a leader about an individual, organization, department or project (performance management).',
})
export class DialogsController {
  constructor(private readonly dialogs: DialogsService) {}

  @ListRoute(PmAdmin, 'dialogs', DialogDto, changesOf('dialogs'), { summary: 'List the dialogs of the site (PM, Admin)', description: LIST_NOTE })
  list(@Ctx() ctx: RequestContext, @Query() q: DialogQuery) {
    return this.dialogs.list(ctx, q);
  }

  @ListRoute(Pm, 'individuals/:id/dialogs', DialogDto, changesUnder('dialogs', ['LeaderID', 'AncestorID']), {
    summary: 'List the dialogs of an individual (PM)',
    description: `The dialogs the individual leads and the individual dialogs about them. 404 for an individual not of the site; allowed for the individual, anyone they report to and administrators (else 403). ${LIST_NOTE}`,
  })
  listForIndividual(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Query() q: DialogQuery) {
    return this.dialogs.listForIndividual(ctx, id, q);
  }

  @GetRoute(Pm, 'dialogs/:id', DialogDto, { summary: 'Read a dialog (PM)', description: `Deleted dialogs are answered too. ${WHO}` })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.dialogs.get(ctx, id);
  }

  @PostRoute(Pm, 'dialogs', DialogDto, {
    summary: 'Plan a dialog (PM)',
    description:
      'Kind, AncestorID (a live record of the site matching Kind), LeaderID (a live individual), PeriodID (a period of the site) and ScheduledDate are required; a reference that is not one of the site is 400 naming it. OccurredDate stays null until the dialog is held. ID is optional (used if free, else 409 id-taken). Allowed for whoever manages what the dialog is about (the individual, the unit’s manager, the project’s owner), anyone they report to, and administrators; others get 403.',
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateDialogDto) {
    return this.dialogs.create(ctx, dto);
  }

  @PutRoute(Pm, 'dialogs/:id', DialogDto, {
    summary: 'Update a dialog (PM)',
    description: `ID must equal the path id. Absent fields keep their value; LeaderID, PeriodID and ScheduledDate cannot be cleared (400); set OccurredDate when the dialog is held. Kind and AncestorID are ignored (a dialog does not move). A deleted dialog is 409 (code deleted); If-Match is honoured (412). ${WHO}`,
  })
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateDialogDto) {
    return this.dialogs.update(ctx, id, dto);
  }

  @PatchRoute(Pm, 'dialogs/:id', UpdateDialogDto, DialogDto, {
    summary: 'Change some fields of a dialog (PM)',
    description: `LeaderID, PeriodID and ScheduledDate cannot be cleared (400); set OccurredDate when the dialog is held. Kind and AncestorID are ignored (a dialog does not move). A deleted dialog is 409 (code deleted). ${WHO}`,
  })
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateDialogDto>) {
    return this.dialogs.patch(ctx, id, patch);
  }

  @DeleteRoute(Pm, 'dialogs/:id', null, {
    summary: 'Delete a dialog (PM; soft delete)',
    description: `Sets Deleted and takes the dialog’s live comments down by reference (Deleted and DeletedByRef); its basic-role ratings and follow-up tasks stay. Idempotent. Answers an empty object. ${WHO}`,
  })
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.dialogs.remove(ctx, id);
  }

  @PutAction(Pm, 'dialogs/:id/undelete', DialogDto, {
    summary: 'Undelete a dialog (PM)',
    description: `Beyond the spec, as for every soft-deleted resource: clears Deleted and restores exactly the comments its delete took down. Idempotent. Answers the dialog. ${WHO}`,
  })
  undelete(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.dialogs.undelete(ctx, id);
  }
}
