import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { PageQuery } from '../../common/pagination/pagination.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { BasicRoleDialogsService } from './basic-role-dialogs.service.js';
import { BasicRoleDialogDto, PutBasicRoleDialogDto } from './dto/basic-role.dto.js';

const WHO =
  'Allowed for whoever may manage the dialog: administrators, its leader and anyone the leader reports to, and whoever manages what the dialog is about; others get 403.';

@ApiTags('BasicRoleDialog')
@Controller()
export class BasicRoleDialogsController {
  constructor(private readonly records: BasicRoleDialogsService) {}

  @Get('dialogs/:dialogid/basicroledialogs')
  @Authenticated()
  @ApiOperation({
    summary: 'List the basic-role ratings of a dialog',
    description: `404 for a dialog not of the site (deleted dialogs are answered). Oldest first; paged with limit/offset (X-Total-Count, Link). XML root ArrayOfBasicRoleDialog. ${WHO}`,
  })
  @ApiResult(BasicRoleDialogDto, { collection: true })
  listForDialog(@Ctx() ctx: RequestContext, @Param('dialogid', GuidPipe) dialogId: string, @Query() q: PageQuery) {
    return this.records.listForDialog(ctx, dialogId, q);
  }

  @Get('basicroles/:basicRoleid/dialogs/:dialogid')
  @Authenticated()
  @ApiOperation({
    summary: 'Read the rating of a basic role in a dialog',
    description: `The single record of that basic role and dialog; 404 when either is not of the site or the pair has no record yet. ${WHO}`,
  })
  @ApiResult(BasicRoleDialogDto)
  get(@Ctx() ctx: RequestContext, @Param('basicRoleid', GuidPipe) basicRoleId: string, @Param('dialogid', GuidPipe) dialogId: string) {
    return this.records.get(ctx, basicRoleId, dialogId);
  }

  @Put('basicroles/:basicRoleid/dialogs/:dialogid')
  @Authenticated()
  @ApiOperation({
    summary: 'Rate a basic role in a dialog (create or replace)',
    description: `Creates the record of the pair, or replaces it: Rating (1–5) and Comment as sent, absent ones null. BasicRoleID and DialogID in the body are optional and must equal the path (400). 404 when the basic role or the dialog is not of the site; 409 (code deleted) when either is deleted. The pair is unique: concurrent PUTs leave one record. If-Match is honoured (412; also when the pair has no record yet). ${WHO}`,
  })
  @ApiBodyTypes()
  @ApiResult(BasicRoleDialogDto)
  put(
    @Ctx() ctx: RequestContext,
    @Param('basicRoleid', GuidPipe) basicRoleId: string,
    @Param('dialogid', GuidPipe) dialogId: string,
    @Body() dto: PutBasicRoleDialogDto,
  ) {
    return this.records.put(ctx, basicRoleId, dialogId, dto);
  }
  @PatchRoute('basicroles/:basicRoleid/dialogs/:dialogid', PutBasicRoleDialogDto, {
    summary: 'Change the rating of a basic role in a dialog',
    description: `Merges into the pair's record (null clears Rating or Comment; absent keeps it), or, when the pair has none yet, creates it from the patch. BasicRoleID and DialogID in the body are optional and must equal the path (400). 404 when the basic role or the dialog is not of the site; 409 (code deleted) when either is deleted. ${WHO}`,
  })
  @Authenticated()
  @ApiResult(BasicRoleDialogDto)
  patch(
    @Ctx() ctx: RequestContext,
    @Param('basicRoleid', GuidPipe) basicRoleId: string,
    @Param('dialogid', GuidPipe) dialogId: string,
    @Body() patch: MergePatch<PutBasicRoleDialogDto>,
  ) {
    return this.records.patch(ctx, basicRoleId, dialogId, patch);
  }
}
