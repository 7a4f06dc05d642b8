import { Body, Param, Query } from '@nestjs/common';
import { Scim } from '../../auth/access.decorators.js';
import { Ctx } from '../../common/context/ctx.decorator.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ApiController } from '../../http/pipeline/routes.js';
import { ScimRoute } from './scim-route.js';
import { defineRoutes } from '../../http/pipeline/route-family.js';
import { ScimError } from './scim-protocol.js';
import { RESOURCE_TYPES, SCHEMAS, SERVICE_PROVIDER_CONFIG } from './scim-discovery.js';
import { ScimGroupsService } from './scim-groups.service.js';
import { ScimUsersService } from './scim-users.service.js';
import { jsonAnswer, listAnswer } from './scim-wire.js';

/** The query string as sent (a type of its own name: the pipe must see a plain Object). */
type ScimQuery = Record<string, unknown>;

const TOKEN = 'Only an API token with the scope scim (401/403 otherwise, as SCIM errors).';

/** SCIM 2.0 Users (docs/identity.md, "SCIM provisioning"). */
@ApiController('SCIM', 'scim/v2', {
  outsideV4: true,
  description:
    'SCIM 2.0 provisioning at /scim/v2 (RFC 7643/7644) for Okta, Microsoft Entra ID and other identity providers: Users (the site’s people) and Groups (its security groups), JSON only, for an API token with the scope scim (docs/identity.md).',
})
export class ScimUsersController {
  constructor(private readonly users: ScimUsersService) {}

  @ScimRoute(Scim, 'get', 'Users', {
    summary: 'List or find Users (SCIM)',
    description: `The people of the token’s site. filter (eq, ne, co, sw, ew, pr, and, or, not, parentheses; on userName, externalId, emails.value, emails[type eq "work"], name.givenName, name.familyName, displayName, title, active, id, manager.value), startIndex (1-based) and count (default 100, at most 1000), attributes / excludedAttributes. ${TOKEN}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: ScimQuery) {
    return this.users.list(ctx, q);
  }

  @ScimRoute(Scim, 'get', 'Users/:id', { summary: 'Read a User (SCIM)', description: `With its ETag (W/"…"); another site’s id is 404. ${TOKEN}` })
  get(@Ctx() ctx: RequestContext, @Param('id') id: string, @Query() q: ScimQuery) {
    return this.users.get(ctx, id, q);
  }

  @ScimRoute(Scim, 'post', 'Users', {
    summary: 'Provision a User (SCIM)',
    description: `A person of the site in its first organization, with a login account without a password (single sign-on). userName taken: 409 uniqueness. ${TOKEN}`,
  })
  create(@Ctx() ctx: RequestContext, @Body() body: unknown) {
    return this.users.create(ctx, body);
  }

  @ScimRoute(Scim, 'put', 'Users/:id', {
    summary: 'Replace a User (SCIM)',
    description: `The attributes given replace the person’s; externalId and active absent keep theirs. If-Match: 412 on another version. ${TOKEN}`,
  })
  replace(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() body: unknown) {
    return this.users.replace(ctx, id, body);
  }

  @ScimRoute(Scim, 'patch', 'Users/:id', {
    summary: 'Change a User (SCIM PatchOp)',
    description: `add / replace / remove, with or without path (value filters such as emails[type eq "work"].value). active false: the person can no longer sign in and every token they hold is refused. ${TOKEN}`,
  })
  patch(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() body: unknown) {
    return this.users.patch(ctx, id, body);
  }

  @ScimRoute(Scim, 'delete', 'Users/:id', {
    summary: 'Deprovision a User (SCIM)',
    description: `Deactivates the account and detaches it from provisioning; the individual and their records stay. ${TOKEN}`,
  })
  remove(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return this.users.remove(ctx, id);
  }
}

/** SCIM 2.0 Groups: the site's security groups. */
@ApiController('SCIM', 'scim/v2', { outsideV4: true })
export class ScimGroupsController {
  constructor(private readonly groups: ScimGroupsService) {}

  @ScimRoute(Scim, 'get', 'Groups', {
    summary: 'List or find Groups (SCIM)',
    description: `The security groups of the token’s site. filter on displayName, externalId, id, members.value; excludedAttributes=members leaves members unread. ${TOKEN}`,
  })
  list(@Ctx() ctx: RequestContext, @Query() q: ScimQuery) {
    return this.groups.list(ctx, q);
  }

  @ScimRoute(Scim, 'get', 'Groups/:id', { summary: 'Read a Group (SCIM)', description: `With its members and ETag; another site’s id is 404. ${TOKEN}` })
  get(@Ctx() ctx: RequestContext, @Param('id') id: string, @Query() q: ScimQuery) {
    return this.groups.get(ctx, id, q);
  }

  @ScimRoute(Scim, 'post', 'Groups', { summary: 'Create a Group (SCIM)', description: `A security group named displayName, with its members. ${TOKEN}` })
  create(@Ctx() ctx: RequestContext, @Body() body: unknown, @Query() q: ScimQuery) {
    return this.groups.create(ctx, body, q);
  }

  @ScimRoute(Scim, 'put', 'Groups/:id', {
    summary: 'Replace a Group (SCIM)',
    description: `displayName replaced; members given replace the members, absent keep them. ${TOKEN}`,
  })
  replace(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() body: unknown, @Query() q: ScimQuery) {
    return this.groups.replace(ctx, id, body, q);
  }

  @ScimRoute(Scim, 'patch', 'Groups/:id', {
    summary: 'Change a Group (SCIM PatchOp)',
    description: `displayName, externalId and members (add, remove — also members[value eq "…"] — and replace). Concurrent changes of one group all land. ${TOKEN}`,
  })
  patch(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() body: unknown, @Query() q: ScimQuery) {
    return this.groups.patch(ctx, id, body, q);
  }

  @ScimRoute(Scim, 'delete', 'Groups/:id', {
    summary: 'Delete a Group (SCIM)',
    description: `The group, its memberships and the Permission records naming it. ${TOKEN}`,
  })
  remove(@Ctx() ctx: RequestContext, @Param('id') id: string) {
    return this.groups.remove(ctx, id);
  }
}

/**
 * The discovery collections (RFC 7644 §4), each answered whole and one document by its id: the
 * handlers' names, the path, the documents and the two summaries.
 */
const DISCOVERY = [
  {
    all: 'resourceTypes',
    one: 'resourceType',
    path: 'ResourceTypes',
    docs: RESOURCE_TYPES,
    summary: 'The SCIM resource types: User and Group',
    oneSummary: 'One SCIM resource type',
  },
  { all: 'schemas', one: 'schema', path: 'Schemas', docs: SCHEMAS, summary: 'The SCIM schemas and the attributes kept', oneSummary: 'One SCIM schema' },
] as const;

/** What a client reads to learn the service: ServiceProviderConfig, ResourceTypes, Schemas (RFC 7644 §4). */
@ApiController('SCIM', 'scim/v2', { outsideV4: true })
export class ScimDiscoveryController {
  @ScimRoute(Scim, 'get', 'ServiceProviderConfig', { summary: 'What the SCIM service supports', description: TOKEN })
  config() {
    return jsonAnswer(SERVICE_PROVIDER_CONFIG);
  }

  /** `GET /ResourceTypes`, `GET /ResourceTypes/{id}`, `GET /Schemas`, `GET /Schemas/{id}`, declared once. */
  static {
    defineRoutes(
      this,
      DISCOVERY.flatMap((c) => [
        {
          name: c.all,
          decorators: [ScimRoute(Scim, 'get', c.path, { summary: c.summary, description: TOKEN })],
          params: [],
          handle: () => listAnswer([...c.docs], c.docs.length, { startIndex: 1, count: c.docs.length }),
        },
        {
          name: c.one,
          decorators: [ScimRoute(Scim, 'get', `${c.path}/:id`, { summary: c.oneSummary, description: TOKEN })],
          params: [[Param('id'), String] as const],
          handle: (id: string) => jsonAnswer(found(c.docs.find((d) => d.id === id))),
        },
      ]),
    );
  }
}

function found<T>(value: T | undefined): T {
  if (value === undefined) throw new ScimError(404, null, 'No such resource type or schema');
  return value;
}
