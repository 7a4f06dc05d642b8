import { Body, Query } from '@nestjs/common';
import { Admin } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { GuidParam } from '../../http/wire/ids.js';
import { ApiToken, ApiTokenDto, ApiTokenQuery, CreateApiTokenDto } from './dto/api-token.dto.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { ApiTokensService } from './api-tokens.service.js';
import { ApiController, ListRoute, GetRoute, PostRoute, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesRefused, CREDENTIALS_NOT_SYNCED } from '../../http/pipeline/delta-list.js';

const PRINCIPAL =
  'A token acts as a service principal of the site: what an administrator may do, within its scopes (a missing scope is 403 insufficient-scope naming it); its writes are recorded with the token’s ID as CreatedBy/UpdatedBy.';

/** API tokens for integrations (docs/identity.md); every route is for administrators, never for a token. */
@ApiController('ApiToken', undefined, {
  description:
    'Scoped tokens for integrations, acting as a service principal of the site: created and revoked by administrators, the secret shown once (docs/identity.md).',
})
export class ApiTokensController {
  constructor(private readonly tokens: ApiTokensService) {}

  @ListRoute(Admin, 'apitokens', ApiTokenDto, changesRefused(CREDENTIALS_NOT_SYNCED), {
    summary: 'List the API tokens of the caller’s site (Admin)',
    description: `Newest first (Created, then ID), revoked ones included; paged with limit/offset. Secrets are never listed, filtered, sorted or exported (Secret is null). ${PRINCIPAL} ${queryNotes(ApiToken)}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: ApiTokenQuery) {
    return this.tokens.list(ctx, q);
  }

  @GetRoute(Admin, 'apitokens/:id', ApiTokenDto, { summary: 'Read an API token (Admin)', description: 'Without its secret; a token of another site is 404.' })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.tokens.get(ctx, id);
  }

  @PostRoute(Admin, 'apitokens', ApiTokenDto, {
    summary: 'Create an API token (Admin)',
    description: `Name and Scopes are required. The answer carries the Secret (\`pms_…\`), the only time it is shown: send it as Authorization: Bearer <secret>. ${PRINCIPAL}`,
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateApiTokenDto) {
    return this.tokens.create(ctx, dto);
  }

  @DeleteRoute(Admin, 'apitokens/:id', null, {
    summary: 'Revoke an API token (Admin)',
    description:
      'Idempotent. The token is refused from the next request on (on other instances within the caller cache time, docs/identity.md); it stays listed with its Revoked instant.',
  })
  revoke(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.tokens.revoke(ctx, id);
  }
}
