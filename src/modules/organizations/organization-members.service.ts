import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchRecord } from '../../database/patch-record.js';
import { ConflictError, FieldError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { Page, pageOf, QueriedPage, QueriedPageQuery } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { TenantDb } from '../../database/tenant-db.js';
import { AccessService, hiddenIndividuals, Row } from '../../authorization/access.service.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import {
  CreateOrganizationMemberDto,
  CreatePairMemberDto,
  OrganizationMember,
  OrganizationMemberDto,
  UpdateOrganizationMemberDto,
} from './dto/organization-member.dto.js';
import { fullName } from '../../common/names.js';
import { isUniqueViolation } from '../../common/errors/db-errors.js';
import { OrganizationEntity } from '../../database/entities/organization.entity.js';
import { OrganizationMemberEntity } from '../../database/entities/organization-member.entity.js';
import { kindOf } from './organizations.service.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';
import { DeclaresBulkWrites } from '../../database/registries/bulk-writers.js';
import { answerBulk, applyBulk, type BulkOptions, type BulkPlan, type BulkRun } from '../../database/bulk-write.js';
import type { BulkItemInput, BulkQuery, BulkRequest, BulkResultsDto } from '../../http/wire/bulk.js';

/**
 * Department membership (the DepartmentMember routes, OrganizationMember records; docs/organizations.md). A
 * membership is one row per (individual, organization); removing it deletes the row. Rows marked
 * `deleted_by_ref` (their department or their individual is deleted) are invisible here.
 * The primary membership (OrganizationID = the individual's PrimaryOrganizationID) cannot be
 * removed: the individual's PrimaryOrganizationID moves it.
 */
@Injectable()
@DeclaresRecordKind<OrganizationMembersService>({
  path: 'departmentmembers',
  kind: 'organization-member',
  access: 'authenticated',
  read: (s, ctx, id) => s.get(ctx, id),
})
@DeclaresBulkWrites<OrganizationMembersService>({
  path: 'departmentmembers',
  records: [CreateOrganizationMemberDto, UpdateOrganizationMemberDto, OrganizationMemberDto],
  apply: (s, ctx, items, opts) => s.applyBatch(ctx, items, opts),
})
export class OrganizationMembersService {
  constructor(
    private readonly db: TenantDb,
    private readonly access: AccessService,
    private readonly queries: ListQueries,
  ) {}

  private readonly members = this.db.scoped(OrganizationMemberEntity, 'OrganizationMember');

  private readonly individuals = this.db.scoped(IndividualEntity, 'Individual');

  private readonly organizations = this.db.scoped(OrganizationEntity, 'Department');

  // ------------------------------------------------------------------ reads

  /** GET /departments/{id}/departmentmembers, ordered by the members' last and first names. */
  async listForDepartment(ctx: RequestContext, organizationId: string, q: QueriedPageQuery): Promise<Page<OrganizationMemberDto>> {
    const unit = await this.organizations(ctx).get(organizationId);
    await this.access.assertVisible(ctx, Row.unit(unit));
    // Individuals a Deny on Read hides from the caller are left out (docs/authorization.md).
    return this.pageOfMembers(ctx, q, 'organizationId', organizationId, {
      entity: IndividualEntity,
      alias: 'i',
      key: 'individualId',
      hidden: hiddenIndividuals(ctx.user),
      order: ['lastName', 'firstName'],
    });
  }

  /** GET /individuals/{id}/departmentmembers, ordered like department lists (Rank, then Name). */
  async listForIndividual(ctx: RequestContext, individualId: string, q: QueriedPageQuery): Promise<Page<OrganizationMemberDto>> {
    await this.individuals(ctx).get(individualId);
    await this.access.assertVisible(ctx, Row.individual(individualId));
    return this.pageOfMembers(ctx, q, 'individualId', individualId, {
      entity: OrganizationEntity,
      alias: 'o',
      key: 'organizationId',
      hidden: await this.access.hiddenUnits(ctx),
      order: ['rank', 'name'],
    });
  }

  /**
   * A page of the memberships of one end (`own` = `id`), each joined to its live other end, leaving
   * out the other ends hidden from the caller and the memberships taken down by reference, in the
   * other end's order, then the membership's id.
   */
  private async pageOfMembers(
    ctx: RequestContext,
    q: QueriedPageQuery,
    own: 'organizationId' | 'individualId',
    id: string,
    other: {
      entity: typeof IndividualEntity | typeof OrganizationEntity;
      alias: 'i' | 'o';
      key: 'individualId' | 'organizationId';
      hidden: string[];
      order: [string, string];
    },
  ): Promise<Page<OrganizationMemberDto>> {
    const { take, skip } = pageOf(q);
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the right to the end was checked; the end, the memberships not taken
      // down with either end (deletedByRef: a take-down of either end marks them) and the other ends a
      // Deny hides come before the filter. Without sort=, ID order: the plain list's order is the other end's.
      const query = this.queries.read(ctx, OrganizationMember, q);
      const scope = {
        equal: { [own]: id, deletedByRef: false },
        notIn: other.hidden.length ? [{ property: other.key, values: other.hidden }] : [],
      };
      const page = await readQueriedRows(this.db, ctx, OrganizationMemberEntity, scope, query, [], take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(await this.toDtos(ctx, page.rows), page.total, take, skip, query.fields, next);
    }
    const o = other.alias;
    const qb = this.members(ctx)
      .qb('m')
      .innerJoin(other.entity, o, `${o}.id = m.${other.key} AND ${o}.siteId = m.siteId AND ${o}.deleted = :no`)
      .andWhere(`m.${own} = :${own}`, { [own]: id });
    if (other.hidden.length) qb.andWhere(`m.${other.key} NOT IN (:...hidden)`, { hidden: other.hidden });
    const [rows, total] = await qb
      .andWhere('m.deletedByRef = :no', { no: false })
      .orderBy(`${o}.${other.order[0]}`, 'ASC')
      .addOrderBy(`${o}.${other.order[1]}`, 'ASC')
      .addOrderBy('m.id', 'ASC')
      .limit(take)
      .offset(skip)
      .getManyAndCount();
    return Page.of(await this.toDtos(ctx, rows), total, q);
  }

  /** One membership by its ID, as its pair's GET answers it (delta sync, history and webhook payloads). */
  async get(ctx: RequestContext, id: string): Promise<OrganizationMemberDto> {
    const membership = await this.db.repo(ctx, OrganizationMemberEntity, 'OrganizationMember').get(id);
    return this.getPair(ctx, membership.individualId, membership.organizationId);
  }

  /** GET {pair}. */
  async getPair(ctx: RequestContext, individualId: string, organizationId: string): Promise<OrganizationMemberDto> {
    const { membership, individual, organization } = await this.pair(ctx, individualId, organizationId);
    return OrganizationMember.toWire(membership, { individual, organization });
  }

  // ------------------------------------------------------------------ writes

  /** POST /departmentmembers: both ends named in the body (400 when they are not live records of the site). */
  async create(ctx: RequestContext, dto: CreateOrganizationMemberDto): Promise<OrganizationMemberDto> {
    return this.db.transaction(ctx, async () => {
      await this.lockEnds(ctx, dto.IndividualID, dto.OrganizationID);
      return this.createChecked(ctx, dto);
    });
  }

  private async createChecked(ctx: RequestContext, dto: CreateOrganizationMemberDto): Promise<OrganizationMemberDto> {
    const errors: FieldError[] = [];
    const individual = await this.individuals(ctx).findById(dto.IndividualID);
    if (!individual) errors.push({ field: 'IndividualID', message: `IndividualID ${dto.IndividualID} names no individual of this site` });
    else if (individual.deleted) errors.push({ field: 'IndividualID', message: `IndividualID ${dto.IndividualID} names a deleted individual` });
    const organization = await this.organizations(ctx).findById(dto.OrganizationID);
    if (!organization)
      errors.push({ field: 'OrganizationID', message: `OrganizationID ${dto.OrganizationID} names no organization or department of this site` });
    else if (organization.deleted)
      errors.push({ field: 'OrganizationID', message: `OrganizationID ${dto.OrganizationID} names a deleted ${kindOf(organization).toLowerCase()}` });
    if (errors.length || !individual || !organization) throw new ValidationError(errors);
    return this.insert(ctx, individual, organization, dto);
  }

  /** POST {pair}: the path names both ends (404 unknown, 409 deleted); body ids must agree with it. */
  async createPair(ctx: RequestContext, individualId: string, organizationId: string, dto: CreatePairMemberDto): Promise<OrganizationMemberDto> {
    const errors: FieldError[] = [];
    if (dto.IndividualID && dto.IndividualID !== individualId) {
      errors.push({ field: 'IndividualID', message: `IndividualID ${dto.IndividualID} does not match the individual in the path (${individualId})` });
    }
    if (dto.OrganizationID && dto.OrganizationID !== organizationId) {
      errors.push({ field: 'OrganizationID', message: `OrganizationID ${dto.OrganizationID} does not match the department in the path (${organizationId})` });
    }
    if (errors.length) throw new ValidationError(errors);
    return this.db.transaction(ctx, async () => {
      await this.lockEnds(ctx, individualId, organizationId);
      const individual = await this.individuals(ctx).get(individualId);
      const organization = await this.organizations(ctx).get(organizationId);
      if (individual.deleted) throw new ConflictError(`Individual ${individualId} is deleted`, 'deleted');
      if (organization.deleted) throw new ConflictError(`${kindOf(organization)} ${organizationId} is deleted`, 'deleted');
      return this.insert(ctx, individual, organization, dto);
    });
  }

  /** PUT /departmentmembers/{id}. */
  async update(ctx: RequestContext, id: string, dto: UpdateOrganizationMemberDto): Promise<OrganizationMemberDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async () => this.applyUpdate(ctx, await this.live(ctx, id, true), dto));
  }

  /** PUT {pair}. */
  async updatePair(ctx: RequestContext, individualId: string, organizationId: string, dto: UpdateOrganizationMemberDto): Promise<OrganizationMemberDto> {
    return this.db.transaction(ctx, async () => {
      await this.lockEnds(ctx, individualId, organizationId);
      const { membership } = await this.pair(ctx, individualId, organizationId);
      if (dto.ID && dto.ID !== membership.id) {
        throw new ValidationError([{ field: 'ID', message: `ID ${dto.ID} is not the id of this membership (${membership.id})` }]);
      }
      return this.applyUpdate(ctx, membership, dto);
    });
  }

  /** PATCH /departmentmembers/{id}: the membership (its ends locked, as `update` locks them), merged with the patch, then `update`. */
  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<OrganizationMemberDto> {
    return patchRecord(this.db, ctx, patch, {
      current: async () => (await this.toDtos(ctx, [await this.live(ctx, id, true)]))[0],
      input: UpdateOrganizationMemberDto,
      update: (dto) => this.update(ctx, id, dto),
    });
  }

  /** PATCH {pair}: the same, through `updatePair`. */
  patchPair(ctx: RequestContext, individualId: string, organizationId: string, patch: MergePatch): Promise<OrganizationMemberDto> {
    return patchRecord(this.db, ctx, patch, {
      current: async () => {
        await this.lockEnds(ctx, individualId, organizationId);
        return this.getPair(ctx, individualId, organizationId);
      },
      input: UpdateOrganizationMemberDto,
      update: (dto) => this.updatePair(ctx, individualId, organizationId, dto),
    });
  }

  /**
   * A batch of creates, updates and upserts of memberships (docs/bulk.md), each through `create` or
   * `update`: what `POST /departmentmembers/bulk` and a file import run. An item names its
   * membership by ID, or by IndividualID and OrganizationID (each may be given by ExternalID):
   * an upsert of a pair that is no member yet creates the membership, else changes its title.
   */
  applyBatch(ctx: RequestContext, items: readonly BulkItemInput[], opts: BulkOptions): Promise<BulkRun> {
    return applyBulk(this.db, ctx, items, (c) => this.bulkPlan(c), opts);
  }

  /** `POST /departmentmembers/bulk`. */
  bulk(ctx: RequestContext, body: BulkRequest, q: BulkQuery): Promise<BulkResultsDto> {
    return answerBulk(this.db, ctx, body, q, (c) => this.bulkPlan(c));
  }

  private bulkPlan(ctx: RequestContext): BulkPlan<CreateOrganizationMemberDto, UpdateOrganizationMemberDto> {
    return {
      label: 'OrganizationMember',
      entity: OrganizationMemberEntity,
      externalIds: false,
      create: CreateOrganizationMemberDto,
      update: UpdateOrganizationMemberDto,
      // Both single writes are for administrators (their routes' rule: a file import is held to it too).
      createRule: 'admin',
      updateRule: 'admin',
      refs: { IndividualID: IndividualEntity, OrganizationID: OrganizationEntity },
      match: {
        fields: ['IndividualID', 'OrganizationID'],
        find: async (record) =>
          (
            await this.members(ctx).findOne({
              individualId: String(record.IndividualID).toLowerCase(),
              organizationId: String(record.OrganizationID).toLowerCase(),
              deletedByRef: false,
            })
          )?.id ?? null,
      },
      createOne: (dto) => this.create(ctx, dto),
      updateOne: (id, dto) => this.update(ctx, id, dto),
      read: (id) => this.get(ctx, id),
    };
  }

  /** DELETE /departmentmembers/{id}. */
  async remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    await this.db.transaction(ctx, async () => this.delete(ctx, await this.live(ctx, id, true)));
    return {};
  }

  /** DELETE {pair}. */
  async removePair(ctx: RequestContext, individualId: string, organizationId: string): Promise<Record<string, never>> {
    await this.db.transaction(ctx, async () => {
      await this.lockEnds(ctx, individualId, organizationId);
      const { membership } = await this.pair(ctx, individualId, organizationId);
      await this.delete(ctx, membership);
    });
    return {};
  }

  // ------------------------------------------------------------------ helpers

  /**
   * Creates the membership, or revives one that was marked by reference while both ends are now
   * live (with the request's title). A live one for the same pair is a 409 duplicate-membership,
   * also when a concurrent request wins the race (unique index).
   */
  private async insert(
    ctx: RequestContext,
    individual: IndividualEntity,
    organization: OrganizationEntity,
    dto: CreateOrganizationMemberDto | CreatePairMemberDto,
  ): Promise<OrganizationMemberDto> {
    const members = this.members(ctx);
    const columns = { ...OrganizationMember.toColumns(dto, 'create'), individualId: individual.id, organizationId: organization.id };
    const duplicate = () =>
      new ConflictError(`${fullName(individual.firstName, individual.lastName)} is already a member of "${organization.name}"`, 'duplicate-membership');
    const existing = await members.findOne({ individualId: individual.id, organizationId: organization.id });
    if (existing && !existing.deletedByRef) throw duplicate();
    let saved: OrganizationMemberEntity;
    if (existing) {
      saved = await members.update(existing.id, { deletedByRef: false, title: columns.title ?? null });
    } else {
      try {
        saved = await members.insert(columns);
      } catch (e) {
        if (isUniqueViolation(e)) throw duplicate();
        throw e;
      }
    }
    return OrganizationMember.toWire(saved, { individual, organization });
  }

  /**
   * Only Title changes. The primary membership's title is the individual's PrimaryTitle, so
   * both are written in one transaction.
   */
  private async applyUpdate(ctx: RequestContext, membership: OrganizationMemberEntity, dto: UpdateOrganizationMemberDto): Promise<OrganizationMemberDto> {
    const [current] = await this.toDtos(ctx, [membership]);
    const saved = await this.members(ctx).update(membership.id, OrganizationMember.toColumns(dto, 'update'), { ifMatch: true });
    if (current.IsPrimary && dto.Title !== undefined) {
      const individuals = this.individuals(ctx);
      const individual = await individuals.findById(membership.individualId);
      if (individual && individual.primaryTitle !== dto.Title) await individuals.update(individual.id, { primaryTitle: dto.Title });
    }
    const [dtoOut] = await this.toDtos(ctx, [saved]);
    return dtoOut;
  }

  private async delete(ctx: RequestContext, membership: OrganizationMemberEntity): Promise<void> {
    const [current] = await this.toDtos(ctx, [membership]);
    if (current.IsPrimary) {
      throw new ConflictError(
        `"${current.OrganizationName}" is the primary department of ${current.IndividualName}: that membership cannot be removed. Change the individual's PrimaryOrganizationID first.`,
        'primary-membership',
      );
    }
    await this.members(ctx).remove(membership.id, { ifMatch: true });
  }

  /**
   * Locks both ends of a membership for the transaction (MySQL/MariaDB), so neither can be
   * deleted between the checks that they are live and the write; ids that name nothing are
   * left to the checks.
   */
  private async lockEnds(ctx: RequestContext, individualId: string, organizationId: string): Promise<void> {
    await this.individuals(ctx).lockMany([individualId]);
    await this.organizations(ctx).lockMany([organizationId]);
  }

  /** A visible membership by id, else 404. */
  private async live(ctx: RequestContext, id: string, lockEnds = false): Promise<OrganizationMemberEntity> {
    const found = await this.members(ctx).findOne({ id, deletedByRef: false });
    if (found && lockEnds) await this.lockEnds(ctx, found.individualId, found.organizationId);
    const membership = found && lockEnds ? await this.members(ctx).findOne({ id, deletedByRef: false }) : found;
    const [individual, organization] = membership
      ? await Promise.all([this.individuals(ctx).findById(membership.individualId), this.organizations(ctx).findById(membership.organizationId)])
      : [null, null];
    if (!membership || !individual || individual.deleted || !organization || organization.deleted) throw new NotFoundError('OrganizationMember', id);
    return membership;
  }

  /** The ends of a {pair} path (each a 404 when unknown) and their visible membership (else 404). */
  private async pair(ctx: RequestContext, individualId: string, organizationId: string) {
    const individual = await this.individuals(ctx).get(individualId);
    const organization = await this.organizations(ctx).get(organizationId);
    await this.access.assertVisible(ctx, Row.individual(individualId));
    await this.access.assertVisible(ctx, Row.unit(organization));
    // Both ends must be live for the membership to be visible, whatever its own flag says.
    const membership =
      individual.deleted || organization.deleted ? null : await this.members(ctx).findOne({ individualId, organizationId, deletedByRef: false });
    if (!membership) throw new NotFoundError(`Membership of individual ${individualId} in department ${organizationId}`);
    return { membership, individual, organization };
  }

  /** Wire records with names and IsPrimary: one query for the individuals, one for the organizations. */
  private async toDtos(ctx: RequestContext, rows: OrganizationMemberEntity[]): Promise<OrganizationMemberDto[]> {
    if (rows.length === 0) return [];
    const [individuals, organizations] = await Promise.all([
      this.individuals(ctx).findByIds(rows.map((r) => r.individualId)),
      this.organizations(ctx).findByIds(rows.map((r) => r.organizationId)),
    ]);
    const byIndividual = new Map(individuals.map((i) => [i.id, i]));
    const byOrganization = new Map(organizations.map((o) => [o.id, o]));
    return rows.map((r) => OrganizationMember.toWire(r, { individual: byIndividual.get(r.individualId), organization: byOrganization.get(r.organizationId) }));
  }
}
