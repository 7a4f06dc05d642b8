import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { ConflictError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { deletedFilter, Page, pageOf, QueriedListQuery, QueriedPage, QueriedPageQuery } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries, type QueryableField } from '../../http/wire/list-query.js';
import { countQueried, readPageKeys, readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { basicRolesCounts, basicRolesCountsOf } from '../../database/queries/basic-roles.js';
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
 * The site's counts are read over its individuals, in the individual list's order: LastName, then
 * FirstName and ID (ix_individuals_site_name). Not a field of the counts' own declaration.
 */
const BY_NAME: readonly { field: QueryableField; desc: boolean }[] = [
  {
    field: { name: 'LastName', kind: 'string', property: 'lastName', nullable: false, filter: false, sort: false, then: ['firstName'] },
    desc: false,
  },
];
/** The same order for a queried list without sort=: Rank, then Name (its `then`), then ID. */
const BY_RANK = [{ field: BasicRole.queryable.get('rank')!, desc: false }] as const;

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
    private readonly queries: ListQueries,
  ) {}

  private readonly roles = this.db.scoped(BasicRoleEntity, 'BasicRole');

  private assertCanManage(ctx: RequestContext, individualId: string, op: Operation, notFound?: [string, string]): Promise<void> {
    const message = 'Only the individual, someone they report to, or an administrator may see or change their basic roles';
    return this.access.assertCanManageIndividual(ctx, individualId, op, message, notFound);
  }

  private async page(ctx: RequestContext, individualId: string, q: QueriedListQuery): Promise<Page<BasicRoleDto>> {
    if (asksQuery(q)) return this.queried(ctx, individualId, q);
    const [rows, total] = await this.roles(ctx).findAndCount({ where: { individualId, ...deletedFilter(q.deleted) }, order: LIST_ORDER, ...pageOf(q) });
    return Page.of(this.roles(ctx).answers(rows, BasicRole), total, q);
  }

  /** The individual named by a path: 404 when not of the site, 403 when the caller may not see their roles. */
  private async pathIndividual(ctx: RequestContext, individualId: string): Promise<void> {
    await this.db.repo(ctx, IndividualEntity, 'Individual').get(individualId);
    await this.assertCanManage(ctx, individualId, 'read');
  }

  /**
   * A queried page of one individual's roles (docs/queries.md): the right to them was checked; the
   * individual and `deleted` come before the filter.
   */
  private async queried(ctx: RequestContext, individualId: string, q: QueriedListQuery): Promise<Page<BasicRoleDto>> {
    const query = this.queries.read(ctx, BasicRole, q);
    const { take, skip } = pageOf(q);
    const deleted = deletedFilter(q.deleted).deleted;
    const scope = { equal: { individualId, ...(deleted === undefined ? {} : { deleted }) } };
    const page = await readQueriedRows(this.db, ctx, BasicRoleEntity, scope, query, BY_RANK, take, skip);
    const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
    return new QueriedPage(this.roles(ctx).answers(page.rows, BasicRole), page.total, take, skip, query.fields, next);
  }

  /** One statement: the individual (its 404) with the page (ScopedRepository.findAndCountUnder), then the 403. */
  async listFor(ctx: RequestContext, individualId: string, q: QueriedListQuery): Promise<Page<BasicRoleDto>> {
    if (asksQuery(q)) {
      // Queried: the individual (404) and the right to their roles (403) before any role is read.
      await this.pathIndividual(ctx, individualId);
      return this.queried(ctx, individualId, q);
    }
    const { rows, total } = await this.roles(ctx).findAndCountUnder(
      { target: IndividualEntity, label: 'Individual', id: individualId },
      { where: { individualId, ...deletedFilter(q.deleted) }, order: LIST_ORDER, ...pageOf(q) },
    );
    await this.assertCanManage(ctx, individualId, 'read');
    return Page.of(this.roles(ctx).answers(rows, BasicRole), total, q);
  }

  /** The caller's own roles; none for a caller without an individual in this site. */
  listMine(ctx: RequestContext, q: QueriedListQuery): Promise<Page<BasicRoleDto>> {
    if (!ctx.user.individualId && asksQuery(q)) {
      // No individual, no roles; the query is checked all the same (400 for a bad one).
      const query = this.queries.read(ctx, BasicRole, q);
      const { take, skip } = pageOf(q);
      return Promise.resolve(
        new QueriedPage<BasicRoleDto>([], query.cursor === null ? 0 : -1, take, skip, query.fields, query.cursor === null ? undefined : null),
      );
    }
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
  async countsForSite(ctx: RequestContext, siteId: string, q: QueriedPageQuery): Promise<Page<IndividualBasicRolesCountDto>> {
    const scoped = await this.sites.scopeTo(ctx, siteId);
    if (asksQuery(q)) return this.queriedCounts(scoped, q, hiddenIndividuals(ctx.user));
    const { rows, total } = await basicRolesCounts(this.db, scoped, pageOf(q), hiddenIndividuals(ctx.user));
    return Page.wire(rows, total, q, IndividualBasicRolesCount);
  }

  /**
   * A queried page of the site's counts (docs/queries.md): the keys read over the site's live
   * individuals, less those a Deny hides from the caller, before the filter; then the page's names
   * and its live roles counted, one statement each.
   */
  private async queriedCounts(ctx: RequestContext, q: QueriedPageQuery, hidden: string[]): Promise<Page<IndividualBasicRolesCountDto>> {
    const query = this.queries.read(ctx, IndividualBasicRolesCount, q);
    const { take, skip } = pageOf(q);
    const scope = { equal: { deleted: false }, notIn: [{ property: 'id', values: hidden }] };
    const [keys, total] = await Promise.all([
      readPageKeys<string>(this.db, ctx, IndividualEntity, scope, query, BY_NAME, take, skip),
      query.cursor === null ? countQueried(this.db, ctx, IndividualEntity, scope, query) : Promise.resolve(-1),
    ]);
    const [people, counts] = await Promise.all([
      this.db.repo(ctx, IndividualEntity, 'Individual').findByIds(keys.ids),
      basicRolesCountsOf(this.db, ctx, keys.ids),
    ]);
    const byId = new Map(people.map((p) => [p.id, p]));
    const rows = keys.ids
      .map((id) => byId.get(id))
      .filter((p) => p !== undefined)
      .map((p) => ({ individualId: p.id, firstName: p.firstName, lastName: p.lastName, basicRolesCount: counts.get(p.id) ?? 0 }));
    const next = query.cursor === null ? undefined : this.queries.next(query, keys.next);
    return new QueriedPage(
      rows.map((r) => IndividualBasicRolesCount.toWire(r)),
      total,
      take,
      skip,
      query.fields,
      next,
    );
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
