import { Query } from '@nestjs/common';
import { ApiBody, ApiParam } from '@nestjs/swagger';
import { Authenticated } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { GuidParam } from '../../http/wire/ids.js';
import { ArchivesService } from './archives.service.js';
import { Archive, ArchiveDto, ArchiveQuery, ArchiveWriteBody } from './dto/archive.dto.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, DeleteRoute } from '../../http/pipeline/routes.js';
import { defineRoutes } from '../../http/pipeline/route-family.js';
import { changesRefused, changesUnder } from '../../http/pipeline/delta-list.js';

const READ_RULE =
  'Archives filed under an individual are read by the individual, anyone above them in the reporting chain and administrators (others 403); the others by every member of the site.';
const LIST_NOTE = `Newest period first (by PeriodID), then by Name; \`period\` narrows to one period; paged with limit/offset (X-Total-Count, Link). XML root ArrayOfArchive. ${queryNotes(Archive)}`;
const UNSUPPORTED =
  'Unsupported, as the spec says: archives are written only by closing a period (PUT /periods/{id}/close). The path answers 200 with an empty object and changes nothing; any body is ignored.';

/**
 * The writes the spec lists for archives, in route order: the handler, its route, the verb and its
 * participle for the texts, and whether it takes a body (the create and the update do, and ignore it).
 */
const UNSUPPORTED_WRITES = [
  { name: 'create', route: PostRoute, path: 'archives', verb: 'create', done: 'created', body: true },
  { name: 'update', route: PutRoute, path: 'archives/:id', verb: 'update', done: 'changed', body: true },
  { name: 'remove', route: DeleteRoute, path: 'archives/:id', verb: 'delete', done: 'deleted', body: false },
];

/** The body the create and the update take: anything well formed (an Archive as a .NET client sends it, `{}`), read by no one. */
const IGNORED_BODY = ApiBody({
  type: ArchiveWriteBody,
  required: false,
  description: 'Any body (an Archive as the spec shows it, `{}`) is taken and ignored; none is needed.',
});

/** The Archive routes: six reads and three unsupported writes (docs/metrics-archives.md). */
@ApiController('Archive', undefined, {
  description: 'What closing a period froze: the figures of its metrics and dashboards, read only (the write operations change nothing).',
})
export class ArchivesController {
  constructor(private readonly archives: ArchivesService) {}

  @ListRoute(Authenticated, 'individuals/:ancestorid/archives', ArchiveDto, changesUnder('archives', ['AncestorID']), {
    summary: 'List the archives filed under an individual',
    description: `Their metrics’ and their dashboard’s snapshots of every closed period. 404 when the individual is not one of the site. ${LIST_NOTE} ${READ_RULE}`,
  })
  listForIndividual(@Ctx() ctx: RequestContext, @GuidParam('ancestorid') ancestorId: string, @Query() q: ArchiveQuery) {
    return this.archives.listForIndividual(ctx, ancestorId, q);
  }

  @ListRoute(Authenticated, 'organizations/:ancestorid/archives', ArchiveDto, changesUnder('archives', ['AncestorID'], 'departments'), {
    summary: 'List the archives filed under an organization or department',
    description: `Its dashboard’s snapshots of every closed period. Takes an organization or a department id; 404 when it is neither of the site. ${LIST_NOTE} ${READ_RULE}`,
  })
  listForOrganization(@Ctx() ctx: RequestContext, @GuidParam('ancestorid') ancestorId: string, @Query() q: ArchiveQuery) {
    return this.archives.listForOrganization(ctx, ancestorId, q);
  }

  @ListRoute(
    Authenticated,
    'projects/:ancestorid/metricArchives',
    ArchiveDto,
    changesRefused('The archives of a project’s metrics are filed under each metric, not the project: sync them with GET /v4/sync/archives?updatedSince=…'),
    {
      summary: 'List the archives of a project’s metrics',
      description: `One per metric of the project and closed period in which it had a value. 404 when the project is not one of the site. ${LIST_NOTE} ${READ_RULE}`,
    },
  )
  listMetricArchivesForProject(@Ctx() ctx: RequestContext, @GuidParam('ancestorid') ancestorId: string, @Query() q: ArchiveQuery) {
    return this.archives.listMetricArchivesForProject(ctx, ancestorId, q);
  }

  @GetRoute(Authenticated, 'metric/:itemid/archives/:id', ArchiveDto, {
    summary: 'Read an archive of a metric',
    description: `404 when the metric is not one of the site, or the archive is not one of that metric’s. ${READ_RULE}`,
  })
  getForMetric(@Ctx() ctx: RequestContext, @GuidParam('itemid') itemId: string, @GuidParam() id: string) {
    return this.archives.getForMetric(ctx, itemId, id);
  }

  @GetRoute(Authenticated, 'projects/:itemid/archives/:id', ArchiveDto, {
    summary: 'Read an archive of a project',
    description: `An archive filed under the project (one of its metrics’) or of the project itself. 404 when the project is not one of the site, or the archive is not the project’s. ${READ_RULE}`,
  })
  getForProject(@Ctx() ctx: RequestContext, @GuidParam('itemid') itemId: string, @GuidParam() id: string) {
    return this.archives.getForProject(ctx, itemId, id);
  }

  @GetRoute(Authenticated, 'archives/:id', ArchiveDto, { summary: 'Read an archive', description: READ_RULE })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.archives.get(ctx, id);
  }

  /** The three writes, declared once: each answers an empty object and changes nothing. */
  static {
    defineRoutes(
      this,
      UNSUPPORTED_WRITES.map((w) => ({
        name: w.name,
        decorators: [
          w.route(
            Authenticated,
            w.path,
            null,
            { summary: `Unsupported: ${w.verb} an archive`, description: UNSUPPORTED },
            { description: `An empty object; nothing was ${w.done}` },
          ),
          ...(w.path.endsWith(':id') ? [ApiParam({ name: 'id', type: String, description: 'A plain string (not checked).' })] : []),
          ...(w.body ? [IGNORED_BODY] : []),
        ],
        params: [],
        handle: (): Record<string, never> => ({}),
      })),
    );
  }
}
