import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { AdminRequiredError, ConflictError, FieldError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { Page, QueriedListQuery, QueriedPage, deletedFilter, pageOf } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { type ListScope, readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { organizationAncestorIds, organizationDescendantIds } from '../../database/queries/trees.js';
import { assertLive, softDelete, softUndelete } from '../../database/soft-delete.js';
import { ByReference } from '../../database/by-reference.js';
import { TenantDb, TenantTx } from '../../database/tenant-db.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { AccessService, notHidden, Row } from '../../authorization/access.service.js';
import { ROW_TYPE } from '../../database/entities/permission.entity.js';
import { SitesService } from '../sites/sites.service.js';
import { CreateOrganizationDto, Organization, OrganizationDto, UpdateOrganizationDto } from './dto/organization.dto.js';
import { OrganizationEntity, ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION } from '../../database/entities/organization.entity.js';
import { OrganizationMemberEntity } from '../../database/entities/organization-member.entity.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';
import { DeclaresBulkWrites } from '../../database/registries/bulk-writers.js';
import { guardExternalId } from '../../http/wire/external-id.js';
import { answerBulk, applyBulk, type BulkOptions, type BulkPlan, type BulkRun } from '../../database/bulk-write.js';
import type { BulkItemInput, BulkQuery, BulkRequest, BulkResultsDto } from '../../http/wire/bulk.js';

/** What an ExternalID clash names (ExternalIDs are unique across both row types of a site). */
const UNIT = 'organization or department';

/** Lists of organizations are ordered by Rank, then Name (id breaks ties so pages are stable). */
const LIST_ORDER = { rank: 'ASC', name: 'ASC', id: 'ASC' } as const;
/** The same order for a queried list: Rank, then Name (the field's `then`), then ID. */
const BY_RANK = [{ field: Organization.queryable.get('rank')!, desc: false }] as const;

/**
 * Organizations and departments (one table, RowType 4 or 56). Reads are open to every member of
 * the site (docs/authorization.md); create, delete and undelete are for administrators (enforced by
 * the route); an update is for an administrator or the manager of the record or of a record
 * above it, and only an administrator may move it, retype it or change its manager.
 */
@Injectable()
@DeclaresRecordKind<OrganizationsService>({
  path: 'departments',
  kind: 'organization',
  access: 'authenticated',
  read: (s, ctx, id) => s.get(ctx, id),
  // One table, two collections: `departments` reads both, and renders the kind's events; its list has departments only.
  listed: (r) => (r as { RowType?: number }).RowType === ROW_TYPE_DEPARTMENT,
})
@DeclaresRecordKind<OrganizationsService>({
  path: 'organizations',
  kind: 'organization',
  access: 'authenticated',
  read: (s, ctx, id) => s.getOrganization(ctx, id),
})
@DeclaresBulkWrites<OrganizationsService>({
  path: 'departments',
  records: [CreateOrganizationDto, UpdateOrganizationDto, OrganizationDto],
  apply: (s, ctx, items, opts) => s.applyBatch(ctx, items, opts),
})
export class OrganizationsService {
  constructor(
    private readonly db: TenantDb,
    private readonly byReference: ByReference,
    private readonly sites: SitesService,
    private readonly access: AccessService,
    private readonly queries: ListQueries,
  ) {}

  private repo(ctx: RequestContext, label = 'Department') {
    return this.db.repo(ctx, OrganizationEntity, label);
  }

  /** GET /departments and /organizations: the records of one row type. */
  async list(ctx: RequestContext, rowType: number, q: QueriedListQuery): Promise<Page<OrganizationDto>> {
    const { take, skip } = pageOf(q);
    const hidden = await this.access.hidden(ctx, rowType === ROW_TYPE_ORGANIZATION ? ROW_TYPE.organization : ROW_TYPE.department);
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the row type, `deleted` and the records a Deny hides come first.
      const query = this.queries.read(ctx, Organization, q);
      const deleted = deletedFilter(q.deleted).deleted;
      const scope = { equal: { rowType, ...(deleted === undefined ? {} : { deleted }) }, notIn: [{ property: 'id', values: hidden.ids }] };
      const page = await readQueriedRows(this.db, ctx, OrganizationEntity, scope, query, BY_RANK, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(this.repo(ctx).answers(page.rows, Organization), page.total, take, skip, query.fields, next);
    }
    const [rows, total] = await this.repo(ctx).findAndCount({
      where: { rowType, ...deletedFilter(q.deleted), ...notHidden(hidden) },
      order: LIST_ORDER,
      take,
      skip,
    });
    return Page.of(this.repo(ctx).answers(rows, Organization), total, q);
  }

  /** GET /sites/{siteid}/departments: the caller's own site, any site for a global administrator. */
  async listForSite(ctx: RequestContext, siteId: string, q: QueriedListQuery): Promise<Page<OrganizationDto>> {
    return this.list(await this.sites.scopeTo(ctx, siteId), ROW_TYPE_DEPARTMENT, q);
  }

  /**
   * Every organization and department the individual belongs to (a membership row, or the
   * individual's primary organization), whatever its row type; `deleted` filters those records.
   */
  async listForIndividual(ctx: RequestContext, individualId: string, q: QueriedListQuery): Promise<Page<OrganizationDto>> {
    const individual = await this.db.repo(ctx, IndividualEntity, 'Individual').get(individualId);
    await this.access.assertVisible(ctx, Row.individual(individualId));
    return this.listOfMember(ctx, individual, q);
  }

  /** GET /me/departments. A caller without an individual record (a bare account) belongs nowhere. */
  async listForMe(ctx: RequestContext, q: QueriedListQuery): Promise<Page<OrganizationDto>> {
    const me = ctx.user.individualId ? await this.db.repo(ctx, IndividualEntity, 'Individual').findById(ctx.user.individualId) : null;
    if (!me) return this.nowhere(ctx, q);
    return this.listOfMember(ctx, me, q);
  }

  /** The empty list of someone who belongs nowhere; a query is checked all the same (400 for a bad one). */
  private nowhere(ctx: RequestContext, q: QueriedListQuery): Page<OrganizationDto> {
    if (!asksQuery(q)) return Page.of([], 0, q);
    const query = this.queries.read(ctx, Organization, q);
    const { take, skip } = pageOf(q);
    return new QueriedPage<OrganizationDto>([], query.cursor === null ? 0 : -1, take, skip, query.fields, query.cursor === null ? undefined : null);
  }

  private async listOfMember(ctx: RequestContext, individual: IndividualEntity, q: QueriedListQuery): Promise<Page<OrganizationDto>> {
    const memberships = await this.db
      .repo(ctx, OrganizationMemberEntity)
      .qb('m')
      .select('m.organizationId', 'organizationId')
      .andWhere('m.individualId = :individualId', { individualId: individual.id })
      .getRawMany<{ organizationId: string }>();
    const ids = new Set(memberships.map((m) => m.organizationId));
    if (individual.primaryOrganizationId) ids.add(individual.primaryOrganizationId);
    for (const id of await this.access.hiddenUnits(ctx)) ids.delete(id);
    if (ids.size === 0) return this.nowhere(ctx, q);
    const { take, skip } = pageOf(q);
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the individual's units (memberships and the primary one, less those a
      // Deny hides from the caller) and `deleted` come before the filter; the plain order without sort=.
      const query = this.queries.read(ctx, Organization, q);
      const deleted = deletedFilter(q.deleted).deleted;
      const scope: ListScope = { equal: deleted === undefined ? {} : { deleted }, in: { property: 'id', values: [...ids] } };
      const page = await readQueriedRows(this.db, ctx, OrganizationEntity, scope, query, BY_RANK, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(this.repo(ctx).answers(page.rows, Organization), page.total, take, skip, query.fields, next);
    }
    const [rows, total] = await this.repo(ctx).findAndCount({ where: { id: In([...ids]), ...deletedFilter(q.deleted) }, order: LIST_ORDER, take, skip });
    return Page.of(this.repo(ctx).answers(rows, Organization), total, q);
  }

  /** GET /departments/{id}: either row type; deleted records are answered too. */
  async get(ctx: RequestContext, id: string): Promise<OrganizationDto> {
    const row = await this.repo(ctx).get(id);
    await this.access.assertVisible(ctx, Row.unit(row));
    return Organization.toWire(row);
  }

  /** GET /organizations/{id}: RowType 4 only; a department's id is a 404 here. */
  async getOrganization(ctx: RequestContext, id: string): Promise<OrganizationDto> {
    const org = await this.repo(ctx, 'Organization').findOne({ id, rowType: ROW_TYPE_ORGANIZATION });
    if (!org) throw new NotFoundError('Organization', id);
    await this.access.assertVisible(ctx, Row.unit(org));
    return Organization.toWire(org);
  }

  async create(ctx: RequestContext, dto: CreateOrganizationDto): Promise<OrganizationDto> {
    const errors = [...(await this.parentErrors(ctx, dto.ParentID ?? null)), ...(await this.managerErrors(ctx, dto.ManagerID ?? null))];
    if (errors.length) throw new ValidationError(errors);
    const row = await guardExternalId(UNIT, dto.ExternalID, () => this.repo(ctx).insert(Organization.toColumns(dto, 'create')));
    return Organization.toWire(row);
  }

  async update(ctx: RequestContext, id: string, dto: UpdateOrganizationDto): Promise<OrganizationDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async (tx) => {
      const repo = tx.repo(OrganizationEntity, 'Department');
      const org = await repo.lock(id);
      const parentChanges = dto.ParentID !== undefined && dto.ParentID !== org.parentId;
      const managerChanges = dto.ManagerID !== undefined && dto.ManagerID !== org.managerId;
      const typeChanges = dto.RowType !== undefined && dto.RowType !== null && dto.RowType !== org.rowType;
      await this.assertCanUpdate(ctx, org, { ParentID: parentChanges, ManagerID: managerChanges, RowType: typeChanges });
      assertLive(org, kindOf(org));
      // Moves within a site run one at a time, so two cannot make a cycle together.
      if (parentChanges) await this.db.lockSiteTrees(ctx);
      // References are checked only when they change, so a client can PUT back what it read even
      // after the manager named in it was deleted.
      const errors = [
        ...(parentChanges ? await this.parentErrors(ctx, dto.ParentID ?? null) : []),
        ...(managerChanges ? await this.managerErrors(ctx, dto.ManagerID ?? null) : []),
      ];
      if (errors.length) throw new ValidationError(errors);
      if (parentChanges && dto.ParentID) await this.assertNoCycle(ctx, org.id, dto.ParentID);
      const saved = await guardExternalId(UNIT, dto.ExternalID, () => repo.update(id, Organization.toColumns(dto, 'update'), { ifMatch: true }));
      return Organization.toWire(saved);
    });
  }

  /**
   * A batch of creates, updates and upserts of organizations and departments (docs/bulk.md), each
   * through `create` or `update`: what `POST /departments/bulk` and a file import run. ParentID and
   * ManagerID may be given by ExternalID (a parent in the same batch included).
   */
  applyBatch(ctx: RequestContext, items: readonly BulkItemInput[], opts: BulkOptions): Promise<BulkRun> {
    return applyBulk(this.db, ctx, items, (c) => this.bulkPlan(c), opts);
  }

  /** `POST /departments/bulk`. */
  bulk(ctx: RequestContext, body: BulkRequest, q: BulkQuery): Promise<BulkResultsDto> {
    return answerBulk(this.db, ctx, body, q, (c) => this.bulkPlan(c));
  }

  private bulkPlan(ctx: RequestContext): BulkPlan<CreateOrganizationDto, UpdateOrganizationDto> {
    return {
      label: 'Department',
      entity: OrganizationEntity,
      create: CreateOrganizationDto,
      update: UpdateOrganizationDto,
      createRule: 'admin',
      refs: { ParentID: OrganizationEntity, ManagerID: IndividualEntity },
      uniqueKeys: ['ExternalID'],
      createOne: (dto) => this.create(ctx, dto),
      updateOne: (id, dto) => this.update(ctx, id, dto),
      read: (id) => this.get(ctx, id),
    };
  }

  /** PATCH: the record, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<OrganizationDto> {
    return patchResource(this.db, ctx, patch, Organization, this.repo(ctx), id, (dto) => this.update(ctx, id, dto));
  }

  /**
   * DELETE: refused (409 primary-department) while the record, or a live record under it, is the
   * primary organization of a live individual; otherwise the record, its live subtree and what
   * they own go down in one transaction. Deleting a deleted record changes nothing, except that
   * one deleted by reference becomes deleted in its own right (its parent's undelete then leaves
   * it deleted).
   */
  async remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    return softDelete(this.db, ctx, OrganizationEntity, id, {
      label: 'Department',
      owned: this.byReference.ownedBy('organization'),
      subtree: this.subtree(ctx),
      guard: async (tx, org) => {
        const subtree = await organizationDescendantIds(this.db, ctx, org.id, 'live');
        const primaries = await tx.repo(IndividualEntity).count({ primaryOrganizationId: In([org.id, ...subtree]), deleted: false });
        if (primaries > 0) {
          const where = subtree.length ? `${kindOf(org).toLowerCase()} or one of the ${subtree.length} under it` : kindOf(org).toLowerCase();
          throw new ConflictError(
            `"${org.name}" cannot be deleted: this ${where} is the primary organization of ${primaries} live individual${primaries === 1 ? '' : 's'}. Change their PrimaryOrganizationID first.`,
            'primary-department',
          );
        }
      },
    });
  }

  /**
   * PUT …/undelete: restores the record and what its deletion took down by reference. Undeleting
   * a live record answers it unchanged; a record whose parent is deleted cannot come back on its
   * own (409 parent-deleted): undelete the parent.
   */
  async undelete(ctx: RequestContext, id: string): Promise<OrganizationDto> {
    const saved = await softUndelete(this.db, ctx, OrganizationEntity, id, {
      label: 'Department',
      owned: this.byReference.ownedBy('organization'),
      subtree: this.subtree(ctx),
      guard: async (tx, org) => {
        const parent = org.parentId ? await tx.repo(OrganizationEntity, 'Department').findById(org.parentId) : null;
        if (parent?.deleted) {
          throw new ConflictError(
            `The parent ${kindOf(parent).toLowerCase()} "${parent.name}" (${parent.id}) is deleted; undelete it first (that restores this one too when it was deleted with it)`,
            'parent-deleted',
          );
        }
      },
    });
    return Organization.toWire(saved);
  }

  /** The sub-organizations a delete takes down with a record, and an undelete brings back. */
  private subtree(ctx: RequestContext) {
    return {
      down: (_tx: TenantTx, org: OrganizationEntity) => organizationDescendantIds(this.db, ctx, org.id, 'live'),
      up: (_tx: TenantTx, org: OrganizationEntity) => organizationDescendantIds(this.db, ctx, org.id, 'byRef'),
    };
  }

  // ------------------------------------------------------------------ rules

  private async parentErrors(ctx: RequestContext, parentId: string | null): Promise<FieldError[]> {
    if (!parentId) return [];
    const parent = await this.repo(ctx).findById(parentId);
    if (!parent) return [{ field: 'ParentID', message: `ParentID ${parentId} names no organization or department of this site` }];
    if (parent.deleted) return [{ field: 'ParentID', message: `ParentID ${parentId} names a deleted ${kindOf(parent).toLowerCase()}` }];
    return [];
  }

  private async managerErrors(ctx: RequestContext, managerId: string | null): Promise<FieldError[]> {
    if (!managerId) return [];
    const manager = await this.db.repo(ctx, IndividualEntity).findById(managerId);
    if (!manager) return [{ field: 'ManagerID', message: `ManagerID ${managerId} names no individual of this site` }];
    if (manager.deleted) return [{ field: 'ManagerID', message: `ManagerID ${managerId} names a deleted individual` }];
    return [];
  }

  /** 409 cycle when `parentId` is the record itself or lies under it. */
  private async assertNoCycle(ctx: RequestContext, id: string, parentId: string): Promise<void> {
    if (parentId === id || (await organizationAncestorIds(this.db, ctx, parentId)).includes(id)) {
      throw new ConflictError(`ParentID ${parentId} is this record or lies under it: the organization tree cannot contain a cycle`, 'cycle');
    }
  }

  /**
   * The engine on the unit (docs/authorization.md): by default administrators change anything and
   * the manager of the record or of a unit above it (or anyone above those managers) changes Name,
   * Description and Rank; moving it (ParentID), changing its manager or its row type stays with
   * administrators.
   */
  private async assertCanUpdate(ctx: RequestContext, org: OrganizationEntity, changes: Record<'ParentID' | 'ManagerID' | 'RowType', boolean>): Promise<void> {
    if (ctx.user.isAdmin) return;
    const message = `Only an administrator or the manager of this ${kindOf(org).toLowerCase()} (or of one above it) may change it`;
    await this.access.assert(ctx, 'update', Row.unit(org), 'row', message);
    const restricted = Object.entries(changes)
      .filter(([, changed]) => changed)
      .map(([field]) => field);
    if (restricted.length) throw new AdminRequiredError(`Only an administrator may change ${restricted.join(', ')}`);
  }
}

/** "Organization" or "Department", for messages. */
export function kindOf(org: Pick<OrganizationEntity, 'rowType'>): string {
  return org.rowType === ROW_TYPE_ORGANIZATION ? 'Organization' : 'Department';
}
