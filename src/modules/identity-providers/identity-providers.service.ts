import { Injectable } from '@nestjs/common';
import { In, Not } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import { ConflictError, type FieldError, ValidationError } from '../../common/errors/errors.js';
import type { MergePatch } from '../../common/http/merge-patch.js';
import { Page, pageOf } from '../../common/pagination/pagination.js';
import { assertBodyId } from '../../common/validation/ids.js';
import { groupMappingsOf, IdentityProviderEntity } from '../../database/entities/identity-provider.entity.js';
import { OrganizationEntity } from '../../database/entities/organization.entity.js';
import { SecurityGroupEntity } from '../../database/entities/security-group.entity.js';
import { patchResource } from '../../database/patch-record.js';
import { TenantDb } from '../../database/tenant-db.js';
import {
  CreateIdentityProviderDto,
  GROUP_MAPPINGS_MAX,
  type GroupMappingInput,
  IdentityProvider,
  IdentityProviderDto,
  IdentityProviderQuery,
  UpdateIdentityProviderDto,
} from './dto/identity-provider.dto.js';

const LABEL = 'IdentityProvider';

/**
 * Per-site OpenID Connect configuration (docs/identity.md, "Single sign-on"), for administrators.
 * One issuer and client id belong to one site (409 otherwise), so a token names its site. A write
 * empties the caller cache: a disabled provider's tokens are refused from the next request on.
 */
@Injectable()
export class IdentityProvidersService {
  private readonly providers = this.db.scoped(IdentityProviderEntity, LABEL);

  constructor(private readonly db: TenantDb) {}

  async list(ctx: RequestContext, q: IdentityProviderQuery): Promise<Page<IdentityProviderDto>> {
    const [rows, total] = await this.providers(ctx).findAndCount({ order: { name: 'ASC', id: 'ASC' }, ...pageOf(q) });
    return Page.of(rows, total, q).map((r) => this.toDto(r));
  }

  async get(ctx: RequestContext, id: string): Promise<IdentityProviderDto> {
    return this.toDto(await this.providers(ctx).get(id));
  }

  async create(ctx: RequestContext, dto: CreateIdentityProviderDto): Promise<IdentityProviderDto> {
    return this.db.transaction(ctx, async () => {
      await this.check(ctx, dto, null);
      const row = await this.providers(ctx).insert({ ...IdentityProvider.toColumns(dto, 'create'), groupMappings: mappingsColumn(dto.GroupMappings ?? []) });
      return this.toDto(row);
    });
  }

  async update(ctx: RequestContext, id: string, dto: UpdateIdentityProviderDto): Promise<IdentityProviderDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async () => {
      await this.providers(ctx).lock(id);
      await this.check(ctx, dto, id);
      const mappings = dto.GroupMappings === undefined ? {} : { groupMappings: mappingsColumn(dto.GroupMappings ?? []) };
      return this.toDto(await this.providers(ctx).update(id, { ...IdentityProvider.toColumns(dto, 'update'), ...mappings }, { ifMatch: true }));
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
      await this.providers(ctx).remove(id, { ifMatch: true });
    });
    return {};
  }

  private async check(ctx: RequestContext, dto: CreateIdentityProviderDto | UpdateIdentityProviderDto, id: string | null): Promise<void> {
    const errors: FieldError[] = [];
    if (!isHttpUrl(dto.Issuer)) errors.push({ field: 'Issuer', message: 'Issuer must be an http(s) URL' });
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
    // Across sites on purpose: the issuer and audience of a token must name one site.
    const clash = await this.db
      .global(ctx, IdentityProviderEntity)
      .findOneBy({ issuer: dto.Issuer.trim(), clientId: dto.ClientID.trim(), ...(id ? { id: Not(id) } : {}) });
    if (clash)
      throw new ConflictError(
        `Issuer ${dto.Issuer} with client id ${dto.ClientID} is already configured${clash.siteId === ctx.siteId ? ' for this site' : ''}`,
        'duplicate-identity-provider',
      );
  }

  private toDto(row: IdentityProviderEntity): IdentityProviderDto {
    return IdentityProvider.toWire(row, { mappings: groupMappingsOf(row) });
  }
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s.trim());
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

function mappingsColumn(list: readonly GroupMappingInput[]): string | null {
  return list.length ? JSON.stringify(list.map((m) => ({ Claim: m.Claim, SecurityGroupID: m.SecurityGroupID }))) : null;
}
