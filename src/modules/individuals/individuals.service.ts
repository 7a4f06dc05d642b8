import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from '../../common/errors/db-errors.js';
import { In } from 'typeorm';
import { MIN_PASSWORD_LENGTH, Passwords } from '../../auth/password.js';
import { assertPrivilegeChange, type PrivilegeTarget } from '../../authorization/privileges.js';
import { userNameKey, userNameProblem } from '../../auth/user-name.js';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { keepAuthorNames } from '../../database/queries/comment-authors.js';
import { patchRecord } from '../../database/patch-record.js';
import { ConflictError, FieldError, ForbiddenError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { Page, pageOf, QueriedListQuery, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { assertLive, softDelete, softUndelete } from '../../database/soft-delete.js';
import { ByReference } from '../../database/by-reference.js';
import { accounts, endTokens } from '../../database/queries/accounts.js';
import { TenantDb, TenantTx } from '../../database/tenant-db.js';
import { UserEntity } from '../../database/entities/user.entity.js';
import { OrganizationMemberEntity } from '../../database/entities/organization-member.entity.js';
import { OrganizationEntity } from '../../database/entities/organization.entity.js';
import { AccessService, Row } from '../../authorization/access.service.js';
import { SitesService } from '../sites/sites.service.js';
import { CreateIndividualDto, Individual, IndividualDto, UpdateIndividualDto } from './dto/individual.dto.js';
import { readIndividual, readIndividuals, readIndividualPage, readQueriedIndividualPage } from './individual-read.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';
import { DeclaresBulkWrites } from '../../database/registries/bulk-writers.js';
import { guardExternalId } from '../../http/wire/external-id.js';
import { answerBulk, applyBulk, type BulkOptions, type BulkPlan, type BulkRun } from '../../database/bulk-write.js';
import type { BulkItemInput, BulkQuery, BulkRequest, BulkResultsDto } from '../../http/wire/bulk.js';
import { newRecordId } from '../../common/ids.js';

const LABEL = 'Individual';

const duplicateUserName = (userName: string) => new ConflictError(`The user name "${userName}" is already taken`, 'duplicate-username');

/**
 * Individuals (spec "Individual", docs/individuals.md). The login data (UserName, password, UserEmail)
 * live on the linked account (`users`); the primary organization is mirrored by a membership
 * row. Reads build every answer with a fixed number of batched queries, whatever the page size.
 * The rules and the decisions behind them are in docs/individuals.md.
 */
@Injectable()
@DeclaresRecordKind<IndividualsService>({ path: 'individuals', kind: 'individual', access: 'authenticated', read: (s, ctx, id) => s.get(ctx, id) })
@DeclaresBulkWrites<IndividualsService>({
  path: 'individuals',
  records: [CreateIndividualDto, UpdateIndividualDto, IndividualDto],
  apply: (s, ctx, items, opts) => s.applyBatch(ctx, items, opts),
})
export class IndividualsService {
  constructor(
    private readonly db: TenantDb,
    private readonly byReference: ByReference,
    private readonly access: AccessService,
    private readonly sites: SitesService,
    private readonly queries: ListQueries,
    private readonly passwords: Passwords,
  ) {}

  // ------------------------------------------------------------------ reads

  async list(ctx: RequestContext, q: QueriedListQuery): Promise<Page<IndividualDto>> {
    if (asksQuery(q)) {
      const query = this.queries.read(ctx, Individual, q);
      const { take, skip } = pageOf(q);
      const page = await readQueriedIndividualPage(this.db, ctx, query, { deleted: q.deleted, take, skip }, await this.access.keptReports(ctx));
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(page.items, page.total, take, skip, query.fields, next);
    }
    const { items, total } = await readIndividualPage(this.db, ctx, { deleted: q.deleted, ...pageOf(q) }, await this.access.keptReports(ctx));
    return Page.of(items, total, q);
  }

  /** `/sites/{siteid}/individuals`: the own site, or any site for a global administrator. */
  async listForSite(ctx: RequestContext, siteId: string, q: QueriedListQuery): Promise<Page<IndividualDto>> {
    return this.list(await this.sites.scopeTo(ctx, siteId), q);
  }

  /** One individual of the caller's site, deleted ones included (docs/individuals.md); one statement (src/modules/individuals/individual-read.ts). */
  async get(ctx: RequestContext, id: string): Promise<IndividualDto> {
    const dto = await readIndividual(this.db, ctx, id, await this.access.keptReports(ctx));
    if (!dto) throw new NotFoundError(LABEL, id);
    return dto;
  }

  /** The caller's own individual (404 when the caller has none in the acting site). */
  async me(ctx: RequestContext): Promise<IndividualDto> {
    const id = ctx.user.individualId;
    const dto = id ? await readIndividual(this.db, ctx, id, await this.access.keptReports(ctx)) : null;
    if (!dto) throw new NotFoundError(LABEL, 'of the caller in this site');
    return dto;
  }

  // ------------------------------------------------------------------ writes

  async create(ctx: RequestContext, dto: CreateIndividualDto): Promise<IndividualDto> {
    return this.insert(ctx, dto, (id) => this.get(ctx, id));
  }

  /**
   * The create, answered by `answer` in its transaction: the record as read back (the POST), or
   * only its ID (a bulk item, whose result carries no more).
   */
  private async insert<A>(ctx: RequestContext, dto: CreateIndividualDto, answer: (id: string) => Promise<A>): Promise<A> {
    const userName = dto.UserName.trim();
    const inputErrors = [this.checkUserName(userName), this.checkPassword(dto.Password)].filter((e): e is FieldError => e !== null);
    if (inputErrors.length) throw new ValidationError(inputErrors);
    // Hashing is slow on purpose: do it before the transaction takes any lock.
    // An API token grants administrator rights or sets a password only with the scope admin.
    assertPrivilegeChange(ctx.user, null, { isAdmin: dto.IsAdmin === true, password: !!dto.Password, login: false });
    const passwordHash = dto.Password ? await this.passwords.hash(dto.Password) : null;
    return this.db.transaction(ctx, async (tx) => {
      const errors: FieldError[] = [];
      const org = await this.liveOrganization(ctx, dto.PrimaryOrganizationID);
      if (!org) errors.push(this.missingOrganization(dto.PrimaryOrganizationID));
      if (dto.PrimaryReportsTo) {
        const problem = await this.checkManager(ctx, dto.PrimaryReportsTo);
        if (problem) errors.push(problem);
      }
      if (errors.length) throw new ValidationError(errors);
      const userId = await this.writeAccount(ctx, null, { userName, email: dto.UserEmail, passwordHash: passwordHash ?? undefined });
      // Without an ID the repository makes one (a given one is checked there: 409 id-taken).
      const { id } = await guardExternalId('individual', dto.ExternalID, () =>
        tx.repo(IndividualEntity, LABEL).insert({ ...Individual.toColumns(dto, 'create'), id: dto.ID ?? undefined, userId }),
      );
      await tx.repo(OrganizationMemberEntity, 'OrganizationMember').insert({
        individualId: id,
        organizationId: dto.PrimaryOrganizationID,
        title: dto.PrimaryTitle,
        deletedByRef: false,
      });
      return answer(id);
    });
  }

  /**
   * PUT: writes only the fields the request carries (absent optional fields keep their value),
   * in one transaction with the record locked and every check that guards the write; If-Match is
   * checked in the UPDATE itself (docs/architecture.md). The answer is the record as written.
   */
  async update(ctx: RequestContext, id: string, dto: UpdateIndividualDto): Promise<IndividualDto> {
    return this.change(ctx, id, dto, () => this.get(ctx, id));
  }

  /** The update, answered by `answer` in its transaction (see `insert`). */
  private async change<A>(ctx: RequestContext, id: string, dto: UpdateIndividualDto, answer: () => Promise<A>): Promise<A> {
    assertBodyId(id, dto.ID);
    const passwordError = this.checkPassword(dto.Password);
    if (passwordError) throw new ValidationError([passwordError]);
    const passwordChanges = !!dto.Password;
    const passwordHash = passwordChanges ? await this.passwords.hash(dto.Password as string) : undefined;
    const me = ctx.user;
    const isSelf = me.individualId === id;

    return this.db.transaction(ctx, async (tx) => {
      const repo = tx.repo(IndividualEntity, LABEL);
      const current = await repo.lock(id);
      await this.access.assert(
        ctx,
        'update',
        Row.individual(id),
        'row',
        'Only the individual, someone they report to, an administrator, or whoever a Permission record allows may change this individual',
      );
      assertLive(current, LABEL);

      const user = current.userId ? await this.account(ctx, current.userId) : null;
      const userName = dto.UserName.trim();
      const userNameChanges = !user || user.userName !== userName;
      const userNameError = userNameChanges ? this.checkUserName(userName) : null;
      if (userNameError) throw new ValidationError([userNameError]);
      const userEmailChanges = dto.UserEmail !== undefined && dto.UserEmail !== (user?.email ?? null);

      // Who may change what (docs/individuals.md): IsAdmin, the primary organization and the
      // reporting line only an administrator; the login data only the person or an administrator.
      // A non-administrator may send the current values back unchanged.
      const newOrgId = dto.PrimaryOrganizationID ?? current.primaryOrganizationId;
      const newReportsTo = dto.PrimaryReportsTo === undefined ? current.primaryReportsTo : dto.PrimaryReportsTo;
      if (!me.isAdmin) {
        const restricted = [
          dto.IsAdmin !== undefined && dto.IsAdmin !== null && dto.IsAdmin !== current.isAdmin ? 'IsAdmin' : null,
          newOrgId !== current.primaryOrganizationId ? 'PrimaryOrganizationID' : null,
          newReportsTo !== current.primaryReportsTo ? 'PrimaryReportsTo' : null,
        ].filter((f): f is string => f !== null);
        if (restricted.length) throw new ForbiddenError(`Only an administrator may change ${restricted.join(', ')}`);
      }
      if ((userNameChanges || userEmailChanges || passwordChanges) && !me.isAdmin && !isSelf) {
        throw new ForbiddenError('Only the individual or an administrator may change UserName, UserEmail or Password');
      }
      // A global administrator's record, and privileges through an API token (docs/security.md).
      assertPrivilegeChange(me, this.target(current, user), {
        isAdmin: dto.IsAdmin !== undefined && dto.IsAdmin !== null && dto.IsAdmin !== current.isAdmin,
        password: passwordChanges,
        login: userNameChanges || userEmailChanges,
      });

      const reportsToChanges = newReportsTo !== current.primaryReportsTo && newReportsTo !== null;
      // Reporting-line changes of a site run one at a time, so two cannot make a cycle together.
      if (reportsToChanges) await this.db.lockSiteTrees(ctx);
      const errors: FieldError[] = [];
      if (newOrgId !== current.primaryOrganizationId && !(await this.liveOrganization(ctx, newOrgId))) errors.push(this.missingOrganization(newOrgId));
      if (reportsToChanges && newReportsTo !== id) {
        const problem = await this.checkManager(ctx, newReportsTo);
        if (problem) errors.push(problem);
      }
      if (errors.length) throw new ValidationError(errors);
      if (reportsToChanges && (newReportsTo === id || (await this.access.reportsTo(ctx, newReportsTo, id)))) {
        throw new ConflictError(`PrimaryReportsTo ${newReportsTo} would make a reporting cycle`, 'cycle');
      }

      const newTitle = dto.PrimaryTitle === undefined ? current.primaryTitle : dto.PrimaryTitle;
      const membershipChanges = newOrgId !== current.primaryOrganizationId || newTitle !== current.primaryTitle;
      let userId = current.userId;
      if (userNameChanges || userEmailChanges || passwordChanges) userId = await this.writeAccount(ctx, user, { userName, email: dto.UserEmail, passwordHash });
      const columns = Individual.toColumns(dto, 'update');
      await guardExternalId('individual', dto.ExternalID, () => repo.update(id, { ...columns, userId: userId ?? undefined }, { ifMatch: true }));
      // The comments this individual wrote keep its name (docs/comments.md, "The author's name").
      const firstName = columns.firstName ?? current.firstName;
      const lastName = columns.lastName ?? current.lastName;
      if (firstName !== current.firstName || lastName !== current.lastName) await keepAuthorNames(this.db, ctx, id, firstName, lastName);
      if (membershipChanges && newOrgId) await this.movePrimaryMembership(tx, id, current.primaryOrganizationId, newOrgId, newTitle);
      return answer();
    });
  }

  /**
   * A batch of creates, updates and upserts (docs/bulk.md), each through `create` or `update`:
   * what `POST /individuals/bulk` and a file import run. PrimaryReportsTo and
   * PrimaryOrganizationID may be given by ExternalID (a manager in the same batch included).
   */
  applyBatch(ctx: RequestContext, items: readonly BulkItemInput[], opts: BulkOptions): Promise<BulkRun> {
    return applyBulk(this.db, ctx, items, (c) => this.bulkPlan(c), opts);
  }

  /** `POST /individuals/bulk`. */
  bulk(ctx: RequestContext, body: BulkRequest, q: BulkQuery): Promise<BulkResultsDto> {
    return answerBulk(this.db, ctx, body, q, (c) => this.bulkPlan(c));
  }

  private bulkPlan(ctx: RequestContext): BulkPlan<CreateIndividualDto, UpdateIndividualDto> {
    return {
      label: LABEL,
      entity: IndividualEntity,
      create: CreateIndividualDto,
      update: UpdateIndividualDto,
      createRule: 'admin',
      refs: { PrimaryReportsTo: IndividualEntity, PrimaryOrganizationID: OrganizationEntity },
      // Every unique key of a person besides its ID (its account's user name too).
      uniqueKeys: ['ExternalID', 'UserName'],
      createOne: (dto) => this.insert(ctx, dto, async (ID) => ({ ID })),
      updateOne: (id, dto) => this.change(ctx, id, dto, async () => ({ ID: id })),
      read: (id) => this.get(ctx, id),
      readMany: async (ids) => readIndividuals(this.db, ctx, ids, await this.access.keptReports(ctx)),
      // The accounts the updates compare their login data with (`account`) and the memberships
      // they move or retitle (`membershipsOf`), a statement each for the chunk.
      prepare: async (records) => {
        const userIds = [...new Set(records.map((r) => r.userId).filter((id): id is string => typeof id === 'string'))];
        const users = userIds.length ? await this.users(ctx).find({ where: { id: In(userIds), siteId: ctx.siteId } }) : [];
        const userById = new Map(users.map((u) => [u.id, u]));
        for (const id of userIds) await this.account(ctx, id, () => Promise.resolve(userById.get(id) ?? null));
        const individualIds = records.map((r) => r.id as string);
        const memberships = await this.db.repo(ctx, OrganizationMemberEntity, 'OrganizationMember').lockWhere({ individualId: In(individualIds) });
        // Grouped once: a filter of the chunk's memberships for each of its people grew with the square of the chunk.
        const byPerson = new Map<string, OrganizationMemberEntity[]>(individualIds.map((id) => [id, []]));
        for (const m of memberships) byPerson.get(m.individualId)?.push(m);
        for (const id of individualIds) await this.membershipsOf(ctx, id, () => Promise.resolve(byPerson.get(id) ?? []));
      },
      // A global administrator's record only a global administrator changes (docs/security.md, "Privileges").
      mayChange: (current) => current.CanUpdate === true && (current.IsGlobalAdmin !== true || ctx.user.isGlobalAdmin),
    };
  }

  /** Soft delete: idempotent; memberships and other owned rows follow by reference. */
  /** PATCH: the individual, locked and read as a GET answers it, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<IndividualDto> {
    return patchRecord(this.db, ctx, patch, {
      current: async () => {
        await this.db.repo(ctx, IndividualEntity, LABEL).lock(id);
        return this.get(ctx, id);
      },
      input: UpdateIndividualDto,
      update: (dto) => this.update(ctx, id, dto),
    });
  }

  async remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    return softDelete(this.db, ctx, IndividualEntity, id, {
      label: LABEL,
      owned: this.byReference.ownedBy('individual'),
      guard: async (_tx, row) => {
        if (ctx.user.individualId === id) throw new ForbiddenError('An administrator cannot delete their own individual (it would lock them out)');
        assertPrivilegeChange(ctx.user, await this.targetOf(ctx, row));
        // A deletion ends the person's tokens for good: an undelete does not bring them back.
        if (row.userId) await endTokens(this.db, ctx, row.userId);
      },
    });
  }

  /** Restores the individual and what its deletion took down by reference; idempotent. */
  async undelete(ctx: RequestContext, id: string): Promise<IndividualDto> {
    return this.db.transaction(ctx, async () => {
      await softUndelete(this.db, ctx, IndividualEntity, id, {
        label: LABEL,
        owned: this.byReference.ownedBy('individual'),
        authorize: async (row) => assertPrivilegeChange(ctx.user, await this.targetOf(ctx, row)),
      });
      return this.get(ctx, id);
    });
  }

  // ------------------------------------------------------------------ helpers

  /** What the privilege rules need to know of an individual and its account. */
  private target(row: IndividualEntity, account: UserEntity | null): PrivilegeTarget {
    return { id: row.id, isAdmin: row.isAdmin, isGlobalAdmin: account?.isGlobalAdmin ?? false };
  }

  private async targetOf(ctx: RequestContext, row: IndividualEntity): Promise<PrivilegeTarget> {
    return this.target(row, row.userId ? await this.users(ctx).findOneBy({ id: row.userId }) : null);
  }

  /**
   * The login account an update compares its login data with: read once a transaction, kept until
   * the transaction writes it (TenantDb.remembered, by its row), so a bulk chunk reads its records'
   * accounts ahead in one statement (the plan's `prepare`). `load`: how it is read.
   */
  private account(ctx: RequestContext, id: string, load = () => this.users(ctx).findOneBy({ id, siteId: ctx.siteId })): Promise<UserEntity | null> {
    return this.db.remembered(ctx, UserEntity, `account:${id}`, load, { row: id });
  }

  /**
   * A person's memberships, locked: read once a transaction and kept until it adds one or writes
   * one of them (TenantDb.remembered, as the set of that person's rows), so a bulk chunk locks its
   * records' memberships ahead in one statement (the plan's `prepare`). `load`: how they are read.
   */
  private membershipsOf(
    ctx: RequestContext,
    individualId: string,
    load = () => this.db.repo(ctx, OrganizationMemberEntity, 'OrganizationMember').lockWhere({ individualId }),
  ): Promise<OrganizationMemberEntity[]> {
    return this.db.remembered(ctx, OrganizationMemberEntity, `memberships:${individualId}`, load, {
      rows: { by: 'individual_id', ids: (rows) => rows.map((r) => r.id) },
    });
  }

  /** Login accounts: not a tenant table (user names are unique across all sites, docs/decisions.md). */
  private users(ctx: RequestContext) {
    return this.db.global(ctx, UserEntity);
  }

  /** Read once a transaction (a bulk chunk's items mostly name one organization: TenantDb.remembered). */
  private liveOrganization(ctx: RequestContext, id: string | null): Promise<OrganizationEntity | null> {
    if (!id) return Promise.resolve(null);
    return this.db.remembered(ctx, OrganizationEntity, `live:${id}`, () =>
      this.db.repo(ctx, OrganizationEntity, 'Organization').findOne({ id, deleted: false }),
    );
  }

  private missingOrganization(id: string | null): FieldError {
    return { field: 'PrimaryOrganizationID', message: `PrimaryOrganizationID ${id} is not a live organization or department of this site` };
  }

  /** A new PrimaryReportsTo must be a live individual of the site. */
  private async checkManager(ctx: RequestContext, managerId: string): Promise<FieldError | null> {
    const manager = await this.db.repo(ctx, IndividualEntity, LABEL).findById(managerId);
    if (!manager) return { field: 'PrimaryReportsTo', message: `PrimaryReportsTo ${managerId} is not an individual of this site` };
    if (manager.deleted) return { field: 'PrimaryReportsTo', message: `PrimaryReportsTo ${managerId} is a deleted individual` };
    return null;
  }

  /** A new user name must be one identity (docs/identity-and-tenancy.md, "User names"). */
  private checkUserName(userName: string): FieldError | null {
    const problem = userNameProblem(userName);
    return problem ? { field: 'UserName', message: `UserName ${problem}` } : null;
  }

  /** Null or "" leave the password alone (a client PUTting back what it read sends null). */
  private checkPassword(password: string | null | undefined): FieldError | null {
    if (!password || [...password].length >= MIN_PASSWORD_LENGTH) return null;
    return { field: 'Password', message: `Password must be at least ${MIN_PASSWORD_LENGTH} characters` };
  }

  /**
   * Updates the login account (or creates one for an individual that has none); answers its id.
   * The unique index on the user name decides a race: the loser answers 409 duplicate-username.
   */
  private async writeAccount(
    ctx: RequestContext,
    user: UserEntity | null,
    change: { userName: string; email: string | null | undefined; passwordHash: string | undefined },
  ): Promise<string> {
    const users = accounts(this.db, ctx);
    const now = new Date();
    try {
      if (!user) {
        const id = newRecordId();
        await users.insert({
          id,
          siteId: ctx.siteId,
          userName: change.userName,
          userNameKey: userNameKey(change.userName),
          email: change.email ?? null,
          passwordHash: change.passwordHash ?? null,
          isGlobalAdmin: false,
          created: now,
          updated: now,
        });
        return id;
      }
      await users.update(user.id, {
        userName: change.userName,
        userNameKey: userNameKey(change.userName),
        ...(change.email !== undefined ? { email: change.email } : {}),
        // A new password ends every token issued before it (docs/identity-and-tenancy.md, "Tokens").
        ...(change.passwordHash !== undefined
          ? { passwordHash: change.passwordHash, tokenGeneration: () => 'token_generation + 1', tokensRevokedAt: now }
          : {}),
        updated: now,
      });
      return user.id;
    } catch (e) {
      if (isUniqueViolation(e)) throw duplicateUserName(change.userName);
      throw e;
    }
  }

  /**
   * Keeps the primary membership in step with PrimaryOrganizationID and PrimaryTitle. On a move
   * the old primary row is re-pointed to the new organization; when the individual already
   * belongs to the new one, that row becomes the primary one and the old row is removed.
   */
  private async movePrimaryMembership(tx: TenantTx, individualId: string, oldOrgId: string | null, newOrgId: string, title: string | null): Promise<void> {
    const members = tx.repo(OrganizationMemberEntity, 'OrganizationMember');
    const orgIds = oldOrgId && oldOrgId !== newOrgId ? [oldOrgId, newOrgId] : [newOrgId];
    // Locked and kept, so the change below does not read them again (read ahead for a bulk chunk: `membershipsOf`).
    const rows = (await this.membershipsOf(tx.ctx, individualId)).filter((r) => orgIds.includes(r.organizationId));
    const target = rows.find((r) => r.organizationId === newOrgId);
    const old = oldOrgId !== newOrgId ? rows.find((r) => r.organizationId === oldOrgId) : undefined;
    if (target) {
      await members.update(target.id, { title });
      if (old) await members.deleteWhere({ id: old.id });
    } else if (old) {
      await members.update(old.id, { organizationId: newOrgId, title });
    } else {
      await members.insert({ individualId, organizationId: newOrgId, title, deletedByRef: false });
    }
  }
}
