import { applyDecorators, Headers, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiConsumes, ApiOperation } from '@nestjs/swagger';
import type { IncomingMessage } from 'node:http';
import { Admin } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { changesRefused } from '../../http/pipeline/delta-list.js';
import { ApiController, DeleteRoute, GetRoute, ListRoute, type AccessRule, type RouteDoc } from '../../http/pipeline/routes.js';
import { RawBody } from '../../http/pipeline/wire-writer.js';
import { AnswerHeaders } from '../../http/wire/answer-headers.js';
import { BULK_OPS } from '../../http/wire/bulk.js';
import { registerFileBodyPath } from '../../http/wire/file-body.js';
import { GuidParam } from '../../http/wire/ids.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { QueriedPageQuery } from '../../http/wire/pagination.js';
import { ApiResult, InputField } from '../../http/wire/wire.js';
import { ImportJob, ImportJobDto, ImportRowErrorDto } from './dto/import-job.dto.js';
import { IMPORT_MEDIA_TYPES } from './import-file.js';
import { ImportsService } from './imports.service.js';

/** The query of `POST /v4/imports`. */
export class ImportQueryDto {
  @InputField('string', {
    required: true,
    description:
      'The collection the rows are written to, as its bulk route names it (individuals, departments, goals, departmentmembers, permissions, securitygroups/members, the list items, metrics/values: every collection with a bulk route; 400 for any other).',
  })
  kind?: string;

  @InputField('string', {
    required: true,
    enum: BULK_OPS,
    description: 'What each row is, as a bulk item’s Op: create, update or upsert (by ID, else ExternalID).',
  })
  mode?: string;
}

/**
 * `POST /v4/imports`: the body is the file, read by the handler as a stream (file-body.ts), answered
 * 202 Accepted with the job and its Location (docs/imports.md).
 */
function ImportRoute(access: AccessRule, path: string, doc: RouteDoc): MethodDecorator {
  registerFileBodyPath(`/v4/${path}`);
  return applyDecorators(
    ApiResult(ImportJobDto, { description: 'Accepted: the job, queued (its file stored and checked). Location names it.' }),
    HttpCode(202),
    AnswerHeaders({ Location: { description: 'The job’s path: /v4/imports/{id}.' } }),
    ApiConsumes(...IMPORT_MEDIA_TYPES),
    ApiOperation(doc),
    access(),
    Post(path),
  );
}

const ADMINS = 'Administrators only (a site administrator for their own site); an API token needs imports:read or imports:write.';
/** Why the list answers no changes (`updatedSince`): a job is the import's working state, in no change log (docs/delta-sync.md). */
const NOT_SYNCED =
  'Import jobs are the import’s working state, not records of the change log: ask the list with filter= on Created or Finished (Finished ge "…") instead.';

@ApiController('Import', undefined, {
  description:
    'File imports (docs/imports.md): a CSV, XLSX, NDJSON, JSON or XML file of records, written through a collection’s bulk writes by whichever replica claims the job, in chunks that commit as they go.',
})
export class ImportsController {
  constructor(private readonly imports: ImportsService) {}

  @ImportRoute(Admin, 'imports', {
    summary: 'Import a file of records',
    description:
      'The request body is the file, typed by its Content-Type: text/csv (RFC 4180, UTF-8, a header row of field names; ExternalRefs.<Field> columns give references by ExternalID), ' +
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet (the first sheet, its first row the header), application/x-ndjson (one JSON object a line), ' +
      'application/json (an array of objects) or application/xml (ArrayOf… as the collection’s list answers it). Each row is a bulk item of the query’s mode, written as its single write is. ' +
      'Cells are text, never evaluated: one that starts with = + - or @ is stored as that text. At most IMPORT_MAX_BYTES (256 MiB by default: 413 beyond, refused from Content-Length before reading), ' +
      'JSON and XML at most 16 MiB, at most 1,000 columns and rows of at most 1 MiB (400). One import queued or running per site (409 import-active). ' +
      `Answers 202 Accepted with the job and its Location at once: GET /v4/imports/{id} follows it. ${ADMINS} An API token also needs the scope of the collection’s bulk route (individuals:write…).`,
  })
  create(@Ctx() ctx: RequestContext, @Query() q: ImportQueryDto, @Req() req: IncomingMessage) {
    return this.imports.create(ctx, q, req);
  }

  @ListRoute(Admin, 'imports', ImportJobDto, changesRefused(NOT_SYNCED), {
    summary: 'List the import jobs of the caller’s site',
    description:
      `Newest first (Created, then ID); paged with limit/offset. Every job of the site, ended ones until IMPORT_RETENTION_DAYS deletes them, each as GET /v4/imports/{id} answers it; ` +
      `a job whose file is still being received (its POST has not answered yet) is not listed, so State is the job’s stored state. ${ADMINS} ${queryNotes(ImportJob)}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: QueriedPageQuery) {
    return this.imports.list(ctx, q);
  }

  @GetRoute(Admin, 'imports/:id', ImportJobDto, {
    summary: 'Read an import job',
    description: `Its state (queued, running, succeeded, failed, cancelled), rows read, written and failed, rate and time left. Another site’s job is 404. ${ADMINS}`,
  })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.imports.get(ctx, id);
  }

  @GetRoute(
    Admin,
    'imports/:id/errors',
    ImportRowErrorDto,
    {
      summary: 'List the rows of an import that failed',
      description: `Each failed row (the first 10,000), by line: where it is in the file (its line, the header being line 1; the sheet's row in XLSX), its status and its problem document. JSON, XML, or CSV with Accept: text/csv. ${ADMINS}`,
    },
    { collection: true, ownCsv: true },
  )
  async errors(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Headers('accept') accept?: string) {
    if (typeof accept === 'string' && /(^|,)\s*text\/csv\b/i.test(accept)) return new RawBody(await this.imports.errorsCsv(ctx, id), 'text/csv; charset=utf-8');
    return this.imports.errors(ctx, id);
  }

  @DeleteRoute(Admin, 'imports/:id', ImportJobDto, {
    summary: 'Cancel an import',
    description: `Stops a job that is queued or running: the chunk being written commits first, nothing after it is written, and its file is deleted. A job that has ended is answered as it is. ${ADMINS}`,
  })
  cancel(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.imports.cancel(ctx, id);
  }
}
