import { Body, Query } from '@nestjs/common';
import { Admin } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { GuidParam } from '../../common/validation/ids.js';
import { CreateIdentityProviderDto, IdentityProviderDto, IdentityProviderQuery, UpdateIdentityProviderDto } from './dto/identity-provider.dto.js';
import { IdentityProvidersService } from './identity-providers.service.js';
import { ApiController, ListRoute, GetRoute, PostRoute, PutRoute, DeleteRoute } from '../../common/http/routes.js';
import { changesOf } from '../../common/http/delta-list.js';

const SSO =
  'With a provider configured, its ID or access tokens (RS256, ES256 or EdDSA, verified against its published keys) are accepted as bearer tokens of the site’s people (docs/identity.md).';

/** The site's OpenID Connect identity providers (docs/identity.md); every route is for administrators. */
@ApiController('IdentityProvider')
export class IdentityProvidersController {
  constructor(private readonly providers: IdentityProvidersService) {}

  @ListRoute(Admin, 'identityproviders', IdentityProviderDto, changesOf('identityproviders'), {
    summary: 'List the identity providers of the caller’s site (Admin)',
    description: `Ordered by Name; paged with limit/offset. ${SSO}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: IdentityProviderQuery) {
    return this.providers.list(ctx, q);
  }

  @GetRoute(Admin, 'identityproviders/:id', IdentityProviderDto, {
    summary: 'Read an identity provider (Admin)',
    description: 'A provider of another site is 404.',
  })
  get(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.providers.get(ctx, id);
  }

  @PostRoute(Admin, 'identityproviders', IdentityProviderDto, {
    summary: 'Configure an identity provider (Admin)',
    description: `Name, Issuer and ClientID are required; the issuer and client id must not be configured already (409 duplicate-identity-provider, in any site). ${SSO}`,
  })
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateIdentityProviderDto) {
    return this.providers.create(ctx, dto);
  }

  @PutRoute(Admin, 'identityproviders/:id', IdentityProviderDto, {
    summary: 'Change an identity provider (Admin)',
    description: 'Name, Issuer and ClientID are required; absent optional fields keep their value. ID must equal the path id.',
  })
  update(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() dto: UpdateIdentityProviderDto) {
    return this.providers.update(ctx, id, dto);
  }

  @PatchRoute(Admin, 'identityproviders/:id', UpdateIdentityProviderDto, IdentityProviderDto, {
    summary: 'Change some fields of an identity provider (Admin)',
    description: SSO,
  })
  patch(@Ctx() ctx: RequestContext, @GuidParam() id: string, @Body() patch: MergePatch<UpdateIdentityProviderDto>) {
    return this.providers.patch(ctx, id, patch);
  }

  @DeleteRoute(Admin, 'identityproviders/:id', null, {
    summary: 'Remove an identity provider (Admin)',
    description: 'Its tokens are refused from the next request on. Accounts it created stay.',
  })
  remove(@Ctx() ctx: RequestContext, @GuidParam() id: string) {
    return this.providers.remove(ctx, id);
  }
}
