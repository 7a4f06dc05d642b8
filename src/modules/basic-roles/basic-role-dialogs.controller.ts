import { Body, Query } from '@nestjs/common';
import { Authenticated } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { QueriedPageQuery } from '../../http/wire/pagination.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { GuidParam } from '../../http/wire/ids.js';
import { BasicRoleDialogsService } from './basic-role-dialogs.service.js';
import { BasicRoleDialog, BasicRoleDialogDto, PutBasicRoleDialogDto } from './dto/basic-role.dto.js';
import { ApiController, GetRoute, ListRoute, PutRoute } from '../../http/pipeline/routes.js';
import { changesUnder } from '../../http/pipeline/delta-list.js';

const WHO =
  'Allowed for whoever may manage the dialog: administrators, its leader and anyone the leader reports to, and whoever manages what the dialog is about; others get 403.';

@ApiController('BasicRoleDialog', undefined, { description: 'The rating of a basic role in a dialog.' })
export class BasicRoleDialogsController {
  constructor(private readonly records: BasicRoleDialogsService) {}

  @ListRoute(Authenticated, 'dialogs/:dialogid/basicroledialogs', BasicRoleDialogDto, changesUnder('basicroledialogs', ['DialogID']), {
    summary: 'List the basic-role ratings of a dialog',
    description: `404 for a dialog not of the site (deleted dialogs are answered). Oldest first; paged with limit/offset (X-Total-Count, Link). XML root ArrayOfBasicRoleDialog. ${queryNotes(BasicRoleDialog)} ${WHO}`,
  })
  listForDialog(@Ctx() ctx: RequestContext, @GuidParam('dialogid') dialogId: string, @Query() q: QueriedPageQuery) {
    return this.records.listForDialog(ctx, dialogId, q);
  }

  @GetRoute(Authenticated, 'basicroles/:basicRoleid/dialogs/:dialogid', BasicRoleDialogDto, {
    summary: 'Read the rating of a basic role in a dialog',
    description: `The single record of that basic role and dialog; 404 when either is not of the site or the pair has no record yet. ${WHO}`,
  })
  get(@Ctx() ctx: RequestContext, @GuidParam('basicRoleid') basicRoleId: string, @GuidParam('dialogid') dialogId: string) {
    return this.records.get(ctx, basicRoleId, dialogId);
  }

  @PutRoute(Authenticated, 'basicroles/:basicRoleid/dialogs/:dialogid', BasicRoleDialogDto, {
    summary: 'Rate a basic role in a dialog (create or replace)',
    description: `Creates the record of the pair, or replaces it: Rating (1–5) and Comment as sent, absent ones null. BasicRoleID and DialogID in the body are optional and must equal the path (400). 404 when the basic role or the dialog is not of the site; 409 (code deleted) when either is deleted. The pair is unique: concurrent PUTs leave one record. If-Match is honoured (412; also when the pair has no record yet). ${WHO}`,
  })
  put(@Ctx() ctx: RequestContext, @GuidParam('basicRoleid') basicRoleId: string, @GuidParam('dialogid') dialogId: string, @Body() dto: PutBasicRoleDialogDto) {
    return this.records.put(ctx, basicRoleId, dialogId, dto);
  }
  @PatchRoute(Authenticated, 'basicroles/:basicRoleid/dialogs/:dialogid', PutBasicRoleDialogDto, BasicRoleDialogDto, {
    summary: 'Change the rating of a basic role in a dialog',
    description: `Merges into the pair's record (null clears Rating or Comment; absent keeps it), or, when the pair has none yet, creates it from the patch. BasicRoleID and DialogID in the body are optional and must equal the path (400). 404 when the basic role or the dialog is not of the site; 409 (code deleted) when either is deleted. ${WHO}`,
  })
  patch(
    @Ctx() ctx: RequestContext,
    @GuidParam('basicRoleid') basicRoleId: string,
    @GuidParam('dialogid') dialogId: string,
    @Body() patch: MergePatch<PutBasicRoleDialogDto>,
  ) {
    return this.records.patch(ctx, basicRoleId, dialogId, patch);
  }
}
