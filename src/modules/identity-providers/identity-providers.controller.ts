import { Body, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { Admin } from '../../common/auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../common/http/merge-patch.js';
import { ApiBodyTypes, ApiResult } from '../../common/http/wire.js';
import { GuidPipe } from '../../common/validation/ids.js';
import { CreateIdentityProviderDto, IdentityProviderDto, IdentityProviderQuery, UpdateIdentityProviderDto } from './dto/identity-provider.dto.js';
import { IdentityProvidersService } from './identity-providers.service.js';
import { ApiController, ListRoute } from '../../common/http/routes.js';
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

  @Get('identityproviders/:id')
  @Admin()
  @ApiOperation({ summary: 'Read an identity provider (Admin)', description: 'A provider of another site is 404.' })
  @ApiResult(IdentityProviderDto)
  get(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.providers.get(ctx, id);
  }

  @Post('identityproviders')
  @Admin()
  @ApiOperation({
    summary: 'Configure an identity provider (Admin)',
    description: `Name, Issuer and ClientID are required; the issuer and client id must not be configured already (409 duplicate-identity-provider, in any site). ${SSO}`,
  })
  @ApiBodyTypes()
  @ApiResult(IdentityProviderDto)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateIdentityProviderDto) {
    return this.providers.create(ctx, dto);
  }

  @Put('identityproviders/:id')
  @Admin()
  @ApiOperation({
    summary: 'Change an identity provider (Admin)',
    description: 'Name, Issuer and ClientID are required; absent optional fields keep their value. ID must equal the path id.',
  })
  @ApiBodyTypes()
  @ApiResult(IdentityProviderDto)
  update(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() dto: UpdateIdentityProviderDto) {
    return this.providers.update(ctx, id, dto);
  }

  @PatchRoute(Admin, 'identityproviders/:id', UpdateIdentityProviderDto, IdentityProviderDto, {
    summary: 'Change some fields of an identity provider (Admin)',
    description: SSO,
  })
  patch(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string, @Body() patch: MergePatch<UpdateIdentityProviderDto>) {
    return this.providers.patch(ctx, id, patch);
  }

  @Delete('identityproviders/:id')
  @Admin()
  @ApiOperation({ summary: 'Remove an identity provider (Admin)', description: 'Its tokens are refused from the next request on. Accounts it created stay.' })
  @ApiResult(null)
  remove(@Ctx() ctx: RequestContext, @Param('id', GuidPipe) id: string) {
    return this.providers.remove(ctx, id);
  }
}
