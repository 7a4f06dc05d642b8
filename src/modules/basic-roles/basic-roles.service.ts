import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { ConflictError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { deletedFilter, Page, PageQuery, pageOf, DeletedQuery } from '../../http/wire/pagination.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { basicRolesCounts } from '../../database/queries/basic-roles.js';
import { assertLive, softDelete, softUndelete } from '../../database/soft-delete.js';
import { TenantDb } from '../../database/tenant-db.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { AccessService, hiddenIndividuals, type Operation } from '../../authorization/access.service.js';
import { SitesService } from '../sites/sites.service.js';
import { BasicRoleEntity } from '../../database/entities/basic-role.entity.js';
import {
  BasicRole,
  BasicRoleDto,
  CreateBasicRoleDto,
  IndividualBasicRolesCount,
  IndividualBasicRolesCountDto,
  UpdateBasicRoleDto,
} from './dto/basic-role.dto.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

/** Lists are ordered by Rank, then Name; the id keeps paging stable. */
const LIST_ORDER = { rank: 'ASC', name: 'ASC', id: 'ASC' } as const;

/**
 * Basic roles of individuals (docs/dialogs-tasks-roles-assessments.md). Like an
 * individual's list items, they are read and written by the individual, anyone above them in the
 * reporting chain, and administrators. They belong to the individual: creating one locks the
 * individual, so a concurrent delete of the individual either comes first (400) or takes the new
 * role down by reference; undeleting the individual restores exactly those roles.
 */
@Injectable()
@DeclaresRecordKind<BasicRolesService>({ path: 'basicroles', kind: 'basic-role', access: 'authenticated', read: (s, ctx, id) => s.get(ctx, id) })
export class BasicRolesService {
  constructor(
    private readonly db: TenantDb,
    private readonly access: AccessService,
    private readonly sites: SitesService,
  ) {}

  private readonly roles = this.db.scoped(BasicRoleEntity, 'BasicRole');

  private assertCanManage(ctx: RequestContext, individualId: string, op: Operation, notFound?: [string, string]): Promise<void> {
    const message = 'Only the individual, someone they report to, or an administrator may see or change their basic roles';
    return this.access.assertCanManageIndividual(ctx, individualId, op, message, notFound);
  }

  private async page(ctx: RequestContext, individualId: string, q: DeletedQuery): Promise<Page<BasicRoleDto>> {
    const [rows, total] = await this.roles(ctx).findAndCount({ where: { individualId, ...deletedFilter(q.deleted) }, order: LIST_ORDER, ...pageOf(q) });
    return Page.of(this.roles(ctx).answers(rows, BasicRole), total, q);
  }

  /** The individual named by a path: 404 when not of the site, 403 when the caller may not see their roles. */
  private async pathIndividual(ctx: RequestContext, individualId: string): Promise<void> {
    await this.db.repo(ctx, IndividualEntity, 'Individual').get(individualId);
    await this.assertCanManage(ctx, individualId, 'read');
  }

  /** One statement: the individual (its 404) with the page (ScopedRepository.findAndCountUnder), then the 403. */
  async listFor(ctx: RequestContext, individualId: string, q: DeletedQuery): Promise<Page<BasicRoleDto>> {
    const { rows, total } = await this.roles(ctx).findAndCountUnder(
      { target: IndividualEntity, label: 'Individual', id: individualId },
      { where: { individualId, ...deletedFilter(q.deleted) }, order: LIST_ORDER, ...pageOf(q) },
    );
    await this.assertCanManage(ctx, individualId, 'read');
    return Page.of(this.roles(ctx).answers(rows, BasicRole), total, q);
  }

  /** The caller's own roles; none for a caller without an individual in this site. */
  listMine(ctx: RequestContext, q: DeletedQuery): Promise<Page<BasicRoleDto>> {
    return Page.mine(ctx.user.individualId, q, (me) => this.page(ctx, me, q));
  }

  async get(ctx: RequestContext, id: string): Promise<BasicRoleDto> {
    const row = await this.roles(ctx).get(id);
    await this.assertCanManage(ctx, row.individualId, 'read', ['BasicRole', id]);
    return BasicRole.toWire(row);
  }

  /** `GET /individuals/{individualid}/basicroles/{id}`: the role must be that individual's, else 404. */
  async getFor(ctx: RequestContext, individualId: string, id: string): Promise<BasicRoleDto> {
    await this.pathIndividual(ctx, individualId);
    const row = await this.roles(ctx).get(id);
    if (row.individualId !== individualId) throw new NotFoundError('BasicRole', id);
    return BasicRole.toWire(row);
  }

  /** One IndividualBasicRolesCount per live individual of the site (own site, or any for a global administrator). */
  async countsForSite(ctx: RequestContext, siteId: string, q: PageQuery): Promise<Page<IndividualBasicRolesCountDto>> {
    const scoped = await this.sites.scopeTo(ctx, siteId);
    const { rows, total } = await basicRolesCounts(this.db, scoped, pageOf(q), hiddenIndividuals(ctx.user));
    return Page.wire(rows, total, q, IndividualBasicRolesCount);
  }

  async create(ctx: RequestContext, dto: CreateBasicRoleDto): Promise<BasicRoleDto> {
    return this.db.transaction(ctx, async (tx) => {
      // The owner stays locked until the role is written (see the class comment).
      const [owner] = await tx.repo(IndividualEntity, 'Individual').lockMany([dto.IndividualID]);
      if (!owner || owner.deleted) {
        const why = owner ? 'is a deleted individual' : 'is not an individual of this site';
        throw new ValidationError([{ field: 'IndividualID', message: `IndividualID ${dto.IndividualID} ${why}` }]);
      }
      await this.assertCanManage(ctx, owner.id, 'create');
      return BasicRole.toWire(await this.roles(ctx).insert(BasicRole.toColumns(dto, 'create')));
    });
  }

  async update(ctx: RequestContext, id: string, dto: UpdateBasicRoleDto): Promise<BasicRoleDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async () => {
      const row = await this.roles(ctx).lock(id);
      await this.assertCanManage(ctx, row.individualId, 'update', ['BasicRole', id]);
      assertLive(row, 'BasicRole');
      return BasicRole.toWire(await this.roles(ctx).update(id, BasicRole.toColumns(dto, 'update'), { ifMatch: true }));
    });
  }

  /** PATCH: the role, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<BasicRoleDto> {
    return patchResource(this.db, ctx, patch, BasicRole, this.roles(ctx), id, (dto) => this.update(ctx, id, dto));
  }

  /** Soft delete (idempotent); answers `{}`. */
  remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    return softDelete(this.db, ctx, BasicRoleEntity, id, {
      label: 'BasicRole',
      authorize: (row) => this.assertCanManage(ctx, row.individualId, 'delete', ['BasicRole', id]),
    });
  }

  /**
   * Clears Deleted (idempotent); answers the restored role. A role taken down with its individual
   * (DeletedByRef) is 409 `deleted`: it comes back when the individual is undeleted.
   */
  async undelete(ctx: RequestContext, id: string): Promise<BasicRoleDto> {
    const saved = await softUndelete(this.db, ctx, BasicRoleEntity, id, {
      label: 'BasicRole',
      authorize: (row) => this.assertCanManage(ctx, row.individualId, 'update', ['BasicRole', id]),
      guard: (_tx, row) => {
        if (row.deletedByRef) throw new ConflictError(`BasicRole ${id} was deleted with its individual; undelete the individual to restore it`, 'deleted');
      },
    });
    return BasicRole.toWire(saved);
  }
}
