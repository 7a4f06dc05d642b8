import { Inject, Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import { egressUrlProblem } from '../../common/egress/egress-guard.js';
import { ConflictError, type FieldError, ValidationError } from '../../common/errors/errors.js';
import { isUniqueViolation } from '../../common/errors/db-errors.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { audiencesOf, IdentityProviderAudienceEntity, issuerKey } from '../../database/entities/identity-provider-audience.entity.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { Page, pageOf, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { queryInMemory } from '../../http/wire/list-query-memory.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { groupMappingsOf, IdentityProviderEntity } from '../../database/entities/identity-provider.entity.js';
import { OrganizationEntity } from '../../database/entities/organization.entity.js';
import { SecurityGroupEntity } from '../../database/entities/security-group.entity.js';
import { patchResource } from '../../database/patch-record.js';
import { TenantDb } from '../../database/tenant-db.js';
import {
  type CollisionQuery,
  CreateIdentityProviderDto,
  GROUP_MAPPINGS_MAX,
  type GroupMappingInput,
  IdentityProvider,
  IdentityProviderDto,
  IdentityProviderQuery,
  UpdateIdentityProviderDto,
} from './dto/identity-provider.dto.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

const LABEL = 'IdentityProvider';
/** The longest audience (the ClientID's own limit). */
export const AUDIENCE_MAX = 255;
/** The most audiences one provider accepts (ClientID and Audiences together). */
export const AUDIENCES_MAX = 20;
/** The list's own order for a queried list: Name, then ID. */
const BY_NAME = [{ field: IdentityProvider.queryable.get('name')!, desc: false }] as const;
/** The collisions' order for a queried list without sort=: Issuer, then ID (the plain list's is Issuer, Created, ID). */
const BY_ISSUER = [{ field: IdentityProvider.queryable.get('issuer')!, desc: false }] as const;

/**
 * Per-site OpenID Connect configuration (docs/identity.md, "Single sign-on"), for administrators.
 * Every (issuer, audience) pair a provider accepts belongs to that one provider, across all sites
 * (docs/security.md, "Identity providers"): the pairs are rows of identity_provider_audiences, whose
 * key refuses a second holder, so a registration that collides is 409 and names no other site. A
 * write empties the caller cache: a disabled provider's tokens are refused from the next request on.
 */
@Injectable()
@DeclaresRecordKind<IdentityProvidersService>({
  path: 'identityproviders',
  kind: 'identity-provider',
  access: 'admin',
  credential: true,
  read: (s, ctx, id) => s.get(ctx, id),
})
export class IdentityProvidersService {
  private readonly providers = this.db.scoped(IdentityProviderEntity, LABEL);

  constructor(
    private readonly db: TenantDb,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queries: ListQueries,
  ) {}

  async list(ctx: RequestContext, q: IdentityProviderQuery): Promise<Page<IdentityProviderDto>> {
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the site's providers; without sort= in Name order, as the plain list.
      const query = this.queries.read(ctx, IdentityProvider, q);
      const { take, skip } = pageOf(q);
      const page = await readQueriedRows(this.db, ctx, IdentityProviderEntity, {}, query, BY_NAME, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(
        page.rows.map((r) => this.toDto(r)),
        page.total,
        take,
        skip,
        query.fields,
        next,
      );
    }
    const [rows, total] = await this.providers(ctx).findAndCount({ order: { name: 'ASC', id: 'ASC' }, ...pageOf(q) });
    return Page.of(rows, total, q).map((r) => this.toDto(r));
  }

  async get(ctx: RequestContext, id: string): Promise<IdentityProviderDto> {
    return this.toDto(await this.providers(ctx).get(id));
  }

  /**
   * For global administrators: every provider, of any site, that accepts an (issuer, audience)
   * pair another provider accepts too — registrations refuse such pairs, so only providers
   * configured before that rule can collide, and their tokens are refused while they do — or, with
   * `issuer`, every provider of that issuer, colliding or not: who holds the pair a registration
   * was refused (409) for.
   */
  async collisions(ctx: RequestContext, q: CollisionQuery): Promise<Page<IdentityProviderDto>> {
    const all = (await this.colliding(ctx, q.issuer)).map((r) => this.toDto(r));
    const { take, skip } = pageOf(q);
    if (asksQuery(q)) {
      // Queried (docs/queries.md, "Lists not stored"): the collisions are worked out across every
      // site, not read by index, so the query runs in memory over them, with the list's fields.
      const query = this.queries.read(ctx, IdentityProvider, q);
      const page = queryInMemory(all, IdentityProvider.queryable, IdentityProvider.queryable.get('id')!, query, BY_ISSUER, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(page.rows, page.total, take, skip, query.fields, next);
    }
    return Page.of(all.slice(skip, skip + take), all.length, q);
  }

  /** The colliding providers of every site (or every provider of `issuer`), by Issuer, Created, ID. */
  private async colliding(ctx: RequestContext, issuer?: string): Promise<IdentityProviderEntity[]> {
    const order = { issuer: 'ASC', created: 'ASC', id: 'ASC' } as const;
    if (issuer !== undefined) return this.db.global(ctx, IdentityProviderEntity).find({ where: { issuer: issuer.trim() }, order });
    const all = await this.db.global(ctx, IdentityProviderEntity).find({ order });
    const holders = new Map<string, IdentityProviderEntity[]>();
    for (const p of all) for (const a of audiencesOf(p)) holders.set(`${p.issuer}\n${a}`, [...(holders.get(`${p.issuer}\n${a}`) ?? []), p]);
    const colliding = new Set([...holders.values()].filter((ps) => ps.length > 1).flat());
    return all.filter((p) => colliding.has(p));
  }

  async create(ctx: RequestContext, dto: CreateIdentityProviderDto): Promise<IdentityProviderDto> {
    return this.db.transaction(ctx, async () => {
      await this.check(ctx, dto);
      const row = await this.providers(ctx).insert({ ...IdentityProvider.toColumns(dto, 'create'), groupMappings: mappingsColumn(dto.GroupMappings ?? []) });
      await this.claimAudiences(ctx, row);
      return this.toDto(row);
    });
  }

  async update(ctx: RequestContext, id: string, dto: UpdateIdentityProviderDto): Promise<IdentityProviderDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async () => {
      await this.providers(ctx).lock(id);
      await this.check(ctx, dto);
      const mappings = dto.GroupMappings === undefined ? {} : { groupMappings: mappingsColumn(dto.GroupMappings ?? []) };
      const row = await this.providers(ctx).update(id, { ...IdentityProvider.toColumns(dto, 'update'), ...mappings }, { ifMatch: true });
      await this.claimAudiences(ctx, row);
      return this.toDto(row);
    });
  }

  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<IdentityProviderDto> {
    return patchResource(
      this.db,
      ctx,
      patch,
      IdentityProvider,
      this.providers(ctx),
      id,
      (dto) => this.update(ctx, id, dto),
      (row) => this.toDto(row),
    );
  }

  async remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    await this.db.transaction(ctx, async () => {
      await this.providers(ctx).lock(id);
      await this.audienceRows(ctx).delete({ siteId: ctx.siteId, providerId: id });
      await this.providers(ctx).remove(id, { ifMatch: true });
    });
    return {};
  }

  private audienceRows(ctx: RequestContext) {
    return this.db.serviceTable(ctx, IdentityProviderAudienceEntity);
  }

  /**
   * Makes the provider's (issuer, audience) rows those of its row now, in the write's transaction:
   * 409 when another provider holds one of them (found first, or refused by the key when a
   * registration in another transaction took it meanwhile). The 409 names no site.
   */
  private async claimAudiences(ctx: RequestContext, row: IdentityProviderEntity): Promise<void> {
    const rows = this.audienceRows(ctx);
    const key = issuerKey(row.issuer);
    const wanted = audiencesOf(row);
    await rows.delete({ siteId: ctx.siteId, providerId: row.id });
    const held = await rows.find({ where: { issuerKey: key, audience: In(wanted) } });
    const clash = () =>
      new ConflictError(
        `Another identity provider already accepts tokens of issuer ${row.issuer} for the audience ${held[0]?.audience ?? 'sent'}: one issuer and audience belong to one provider (docs/security.md)`,
        'duplicate-identity-provider',
      );
    if (held.length) throw clash();
    try {
      await rows.insert(wanted.map((audience) => ({ issuerKey: key, audience, siteId: ctx.siteId, providerId: row.id })));
    } catch (e) {
      if (isUniqueViolation(e)) throw clash();
      throw e;
    }
  }

  private async check(ctx: RequestContext, dto: CreateIdentityProviderDto | UpdateIdentityProviderDto): Promise<void> {
    const errors: FieldError[] = [];
    const issuerProblem = egressUrlProblem(dto.Issuer, this.config.egressAllowPrivate);
    if (issuerProblem) errors.push({ field: 'Issuer', message: `Issuer ${issuerProblem}` });
    const audiences = audiencesOf({ clientId: dto.ClientID, audiences: dto.Audiences ?? null });
    if (audiences.some((a) => a.length > AUDIENCE_MAX)) errors.push({ field: 'Audiences', message: `Each audience may be at most ${AUDIENCE_MAX} characters` });
    if (audiences.length > AUDIENCES_MAX)
      errors.push({ field: 'Audiences', message: `A provider accepts at most ${AUDIENCES_MAX} audiences (ClientID included)` });
    if (dto.JitOrganizationID) {
      const org = await this.db.repo(ctx, OrganizationEntity, 'Organization').findOne({ id: dto.JitOrganizationID, deleted: false });
      if (!org)
        errors.push({
          field: 'JitOrganizationID',
          message: `JitOrganizationID ${dto.JitOrganizationID} is not a live organization or department of this site`,
        });
    }
    const mappings: readonly GroupMappingInput[] = dto.GroupMappings ?? [];
    if (mappings.length > GROUP_MAPPINGS_MAX) errors.push({ field: 'GroupMappings', message: `GroupMappings may hold at most ${GROUP_MAPPINGS_MAX} mappings` });
    const groupIds = [...new Set(mappings.map((m) => m.SecurityGroupID))];
    if (groupIds.length) {
      const found = new Set((await this.db.repo(ctx, SecurityGroupEntity, 'SecurityGroup').find({ where: { id: In(groupIds) } })).map((g) => g.id));
      mappings.forEach((m, i) => {
        if (!found.has(m.SecurityGroupID))
          errors.push({ field: `GroupMappings[${i}].SecurityGroupID`, message: `${m.SecurityGroupID} is not a security group of this site` });
      });
    }
    if (errors.length) throw new ValidationError(errors);
  }

  private toDto(row: IdentityProviderEntity): IdentityProviderDto {
    return IdentityProvider.toWire(row, { mappings: groupMappingsOf(row) });
  }
}

function mappingsColumn(list: readonly GroupMappingInput[]): string | null {
  return list.length ? JSON.stringify(list.map((m) => ({ Claim: m.Claim, SecurityGroupID: m.SecurityGroupID }))) : null;
}
