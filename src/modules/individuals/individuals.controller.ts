import { Body, Query } from '@nestjs/common';
import { ApiParam, ApiQuery } from '@nestjs/swagger';
import { Admin, Authenticated } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { GuidParam } from '../../http/wire/ids.js';
import { BulkIndividuals, CreateIndividualDto, Individual, IndividualDto, UpdateIndividualDto } from './dto/individual.dto.js';
import { IndividualsService } from './individuals.service.js';
import { ApiController, GetRoute, ListRoute, PostRoute, PutRoute, PutAction, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesOf } from '../../http/pipeline/delta-list.js';
import { QueriedListQuery } from '../../http/wire/pagination.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { BulkRoute } from '../../http/pipeline/bulk-route.js';
import { BulkQuery } from '../../http/wire/bulk.js';

const TZ = () =>
  ApiQuery({
    name: 'tz',
    required: false,
    description:
      'Time zone every date of the answer is rendered in: IANA (Europe/Berlin), Windows (W. Europe Standard Time) or an offset (+02:00). Default UTC.',
  });

/** The path id of the routes of one individual, documented as a UUID. */
const ID = ApiParam({ name: 'id', format: 'uuid' });

const LIST_NOTES =
  'Ordered by LastName, FirstName, ID. `deleted` (typed byte in the spec): 0 live (default), 1 deleted, 2 all. Paged with `limit` (default 500, max 5000) and `offset`; the answer carries X-Total-Count and a Link rel="next" while more remain. CanRead/CanUpdate/CanDelete/CanDelegate are the caller’s rights on each individual. ' +
  queryNotes(Individual);

@ApiController('Individual', undefined, {
  description: 'The people of a site: their user account, their primary organization and title, and whom they report to.',
})
export class IndividualsController {
  constructor(private readonly individuals: IndividualsService) {}

  @ListRoute(Authenticated, 'individuals', IndividualDto, changesOf('individuals'), {
    summary: 'List the individuals of the caller’s site',
    description: LIST_NOTES,
  })
  @TZ()
  list(@Ctx() ctx: RequestContext, @Query() q: QueriedListQuery) {
    return this.individuals.list(ctx, q);
  }

  @ListRoute(Authenticated, 'sites/:siteid/individuals', IndividualDto, changesOf('individuals'), {
    summary: 'List the individuals of a site',
    description: `The caller’s own site; another site only for a global administrator (else 403). ${LIST_NOTES}`,
  })
  @TZ()
  listForSite(@Ctx() ctx: RequestContext, @GuidParam('siteid') siteId: string, @Query() q: QueriedListQuery) {
    return this.individuals.listForSite(ctx, siteId, q);
  }

  @GetRoute(Authenticated, 'me', IndividualDto, {
    summary: 'Read the caller’s own individual',
    description:
      'The individual of the logged-in account. 404 when the caller has no individual in the acting site (a global administrator acting in another site).',
  })
  @TZ()
  me(@Ctx() ctx: RequestContext) {
    return this.individuals.me(ctx);
  }

  @GetRoute(Authenticated, 'individuals/:id', IndividualDto, {
    summary: 'Read an individual',
    description: 'Deleted individuals are answered too (Deleted = true). Every member of the site may read every individual.',
  })
  @ID
  @TZ()
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.individuals.get(ctx, id);
  }

  @PostRoute(Admin, 'individuals', IndividualDto, {
    summary: 'Create an individual (administrators)',
    description:
      'Creates the individual, its login account (UserName, Password, UserEmail) and its primary membership (PrimaryOrganizationID with PrimaryTitle) in one transaction. ' +
      'Required: FirstName, LastName, UserName, Email, PrimaryOrganizationID, PrimaryTitle, UserEmail, and the PrimaryReportsTo field (null or the all-zero guid for nobody). ' +
      'ParentID is accepted and ignored. 409 duplicate-username when the user name is used in any site (case-insensitive); 409 id-taken for a used ID. ' +
      'Without a Password the account cannot log in until one is set.',
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateIndividualDto) {
    return this.individuals.create(ctx, dto);
  }

  @BulkRoute(Authenticated, 'individuals/bulk', {
    summary: 'Create, update and upsert up to 1,000 individuals',
    description:
      'Each Record is the body of POST /individuals (create: administrators, else 403 admin-required) or of PUT /individuals/{id} (update: as that route allows), upserted by ID or ExternalID. ' +
      'ExternalRefs.PrimaryReportsTo and ExternalRefs.PrimaryOrganizationID name the manager and the primary organization by their ExternalID instead of their ID; a manager created by another item of the request may come after the people reporting to them.',
  })
  bulk(@Ctx() ctx: RequestContext, @Body() body: BulkIndividuals, @Query() q: BulkQuery) {
    return this.individuals.bulk(ctx, body, q);
  }

  @PutRoute(Authenticated, 'individuals/:id', IndividualDto, {
    summary: 'Update an individual (administrators, the individual, or anyone above them in the reporting chain)',
    description:
      'Others get 403. FirstName, LastName and UserName are required; other absent fields keep their value, explicit null clears (PrimaryOrganizationID: null keeps it). ' +
      'Read-only fields are ignored, so the whole object read before may be sent back. IsAdmin: a different value only from an administrator (403). ' +
      'UserName, UserEmail and Password: changed only by the individual or an administrator (403). ' +
      'A new PrimaryOrganizationID moves the primary membership; a reporting cycle is 409 cycle; a deleted individual is 409 deleted. Honours If-Match (412).',
  })
  @ID
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateIndividualDto) {
    return this.individuals.update(ctx, id, dto);
  }

  @PatchRoute(Authenticated, 'individuals/:id', UpdateIndividualDto, IndividualDto, {
    summary: 'Change some fields of an individual (administrators, the individual, or anyone above them in the reporting chain)',
    description:
      'Who may change what is as on PUT: IsAdmin only an administrator (403), UserName, UserEmail and Password only the individual or an administrator (403); PrimaryOrganizationID: null keeps it, another id moves the primary membership; a reporting cycle is 409 cycle; a deleted individual is 409 deleted.',
  })
  @ID
  @TZ()
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateIndividualDto>) {
    return this.individuals.patch(ctx, id, patch);
  }

  @DeleteRoute(Admin, 'individuals/:id', null, {
    summary: 'Delete an individual (administrators; soft delete)',
    description:
      'Sets Deleted; the individual can no longer log in and their memberships are deleted by reference. Idempotent. An administrator cannot delete their own individual (403). Honours If-Match (412).',
  })
  @ID
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.individuals.remove(ctx, id);
  }

  @PutAction(Admin, 'individuals/:id/undelete', IndividualDto, {
    summary: 'Undelete an individual (administrators)',
    description: 'Clears Deleted and restores what the deletion took down by reference (memberships). Idempotent. Answers the individual.',
  })
  @ID
  @TZ()
  undelete(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.individuals.undelete(ctx, id);
  }
}
