import { Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam } from '@nestjs/swagger';
import { Admin, Authenticated } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiResult } from '../../http/wire/wire.js';
import { AuditService } from './audit.service.js';
import { AUDIT_MAX_LIMIT, AuditEntry, AuditEntryDto, AuditQuery, HistoryQuery } from './dto/audit.dto.js';
import { SyncEntryDto } from '../../http/wire/sync-entry.js';
import { SyncQuery } from './dto/sync.dto.js';
import { SyncService } from './sync.service.js';
import { ApiController, GetRoute } from '../../http/pipeline/routes.js';
import { ExportsList } from '../../http/pipeline/route-stages.js';
import { queryNotes } from '../../http/wire/list-query.js';

const PAGING = 'Newest first, keyset-paged: the `Link: rel="next"` header names the next page (`before` = the last Seq of this page).';

@ApiController('Audit', undefined, {
  description:
    'Who changed what and when: the audit trail of every write (administrators), the history of one record (whoever may read it), and delta sync of a collection since a cursor.',
})
export class AuditController {
  constructor(
    private readonly audit: AuditService,
    private readonly sync: SyncService,
  ) {}

  @GetRoute(
    Admin,
    'audit',
    AuditEntryDto,
    {
      summary: 'Read the audit trail of the caller’s site (Admin)',
      description: `Every change of every record: who (user or API client), when, which request, and each changed field before and after (secrets only as changed; docs/audit.md). ${PAGING} Entries older than AUDIT_RETENTION_DAYS are pruned. With filter=, sort=, fields= or cursor= (not with rowid, kind, actor, since, until or before: 400; write them in the filter) the list is queried as every other, newest first without sort=, pages of at most ${AUDIT_MAX_LIMIT} (docs/queries.md). ${queryNotes(AuditEntry)}`,
    },
    { collection: true },
  )
  list(@Ctx() ctx: RequestContext, @Query() q: AuditQuery) {
    return this.audit.list(ctx, q);
  }

  // Every collection carries the export stage: an export type alone is 406 here (docs/exports.md).
  @ExportsList()
  @Get(':kind/:id/history')
  @Authenticated()
  @ApiOperation({
    summary: 'Read the history of one record',
    description: `The audit entries of the record, for whoever may read the record (its GET decides: 404 when it is not of the caller’s site, 403 when the caller may not read it). ${PAGING}`,
  })
  @ApiParam({ name: 'kind', type: String, description: 'The record’s collection.' })
  @ApiParam({ name: 'id', description: 'The record’s ID (an integer for periods, goals and colors; else a UUID).' })
  @ApiResult(AuditEntryDto, { collection: true })
  history(@Ctx() ctx: RequestContext, @Param('kind') kind: string, @Param('id') id: string, @Query() q: HistoryQuery) {
    return this.audit.history(ctx, kind, id, q);
  }

  @ExportsList()
  @Get('sync/:kind')
  @Authenticated()
  @ApiOperation({
    summary: 'Delta sync: the records of a collection created, changed or deleted since a cursor',
    description:
      'Answers each record changed since `updatedSince` once, as its GET answers it for the caller, or as a tombstone (`Deleted: true`, `Record: null`), in commit order. Loop: send the `X-Sync-Cursor` of each answer as the next `updatedSince`; while a page is full, `Link: rel="next"` names the next one. The cursor is a position in the site’s commit sequence, so a write that commits late with an earlier `Updated` is still answered (docs/delta-sync.md). Records the caller may not read are left out; a caller who may not use the collection’s GET at all (its access rule) gets 403. With `parent`, only the changes of one sub-list (a person’s goals: `parent=individuals/{id}`; the caller’s own: `parent=me`). A list asked with `updatedSince` answers the same records changed since then as its own type, without tombstones.',
  })
  @ApiParam({ name: 'kind', type: String, description: 'The collection.' })
  @ApiResult(SyncEntryDto, { collection: true })
  changes(@Ctx() ctx: RequestContext, @Param('kind') kind: string, @Query() q: SyncQuery) {
    return this.sync.changes(ctx, kind, q);
  }
}
