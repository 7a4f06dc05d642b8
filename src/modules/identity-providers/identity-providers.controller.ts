import { Body, Query } from '@nestjs/common';
import { Admin, GlobalAdmin } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { type MergePatch, PatchRoute } from '../../http/pipeline/merge-patch.js';
import { GuidParam } from '../../http/wire/ids.js';
import {
  CollisionQuery,
  CreateIdentityProviderDto,
  IdentityProvider,
  IdentityProviderDto,
  IdentityProviderQuery,
  UpdateIdentityProviderDto,
} from './dto/identity-provider.dto.js';
import { IdentityProvidersService } from './identity-providers.service.js';
import { queryNotes } from '../../http/wire/list-query.js';
import { ApiController, ListRoute, GetRoute, PostRoute, PutRoute, DeleteRoute } from '../../http/pipeline/routes.js';
import { changesRefused, CREDENTIALS_NOT_SYNCED } from '../../http/pipeline/delta-list.js';

const SSO =
  'With a provider configured, its ID or access tokens (RS256, ES256 or EdDSA, verified against its published keys) are accepted as bearer tokens of the site’s people (docs/identity.md).';

/** The site's OpenID Connect identity providers (docs/identity.md); every route is for administrators. */
@ApiController('IdentityProvider', undefined, {
  description: 'The site’s OpenID Connect identity providers, whose tokens the service accepts as the site’s people (single sign-on; administrators only).',
})
export class IdentityProvidersController {
  constructor(private readonly providers: IdentityProvidersService) {}

  @ListRoute(Admin, 'identityproviders', IdentityProviderDto, changesRefused(CREDENTIALS_NOT_SYNCED), {
    summary: 'List the identity providers of the caller’s site (Admin)',
    description: `Ordered by Name; paged with limit/offset. ${SSO} ${queryNotes(IdentityProvider)}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: IdentityProviderQuery) {
    return this.providers.list(ctx, q);
  }

  @ListRoute(GlobalAdmin, 'identityproviders/collisions', IdentityProviderDto, changesRefused(CREDENTIALS_NOT_SYNCED), {
    summary: 'List the identity providers of every site whose issuer and audience collide (global administrator)',
    description: `One issuer and audience belong to one provider (a registration that would share them is 409 duplicate-identity-provider); providers configured before that rule may still share a pair. Every provider, of any site, that shares one is listed (ordered by Issuer, then Created; paged with limit/offset), and tokens that match more than one provider are refused until an administrator changes or removes one of them. With \`issuer\`, every provider of that issuer is listed instead, colliding or not: who holds a pair a registration was refused for (docs/security.md, "Identity providers"). With filter=, sort=, fields= or cursor= the query runs over these providers in memory (by Issuer, then ID without sort=; docs/queries.md, "Lists not stored"). ${queryNotes(IdentityProvider)}`,
  })
  collisions(@Ctx() ctx: RequestContext, @Query() q: CollisionQuery) {
    return this.providers.collisions(ctx, q);
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
    description: `Name, Issuer and ClientID are required. Each (Issuer, audience) pair — the ClientID and every Audiences entry — belongs to one provider of one site: a pair another provider accepts already, in any site, is 409 duplicate-identity-provider, which names no site. The Issuer must be an http(s) URL the egress guard may call (no loopback, private, link-local, metadata or reserved address). ${SSO}`,
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
