import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from '../../database/db-errors.js';
import { randomUUID } from 'node:crypto';
import { In } from 'typeorm';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../../common/auth/password.js';
import { RequestContext } from '../../common/context/request-context.js';
import { ConflictError, FieldError, ForbiddenError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { assertIfMatch } from '../../common/http/etag.js';
import { Page, pageOf } from '../../common/pagination/pagination.js';
import { assertBodyId } from '../../common/validation/ids.js';
import { TenantDb, TenantTx } from '../../database/tenant-db.js';
import { UserEntity } from '../auth/user.entity.js';
import { lastCommentsFor } from '../comments/last-comment.query.js';
import { OrganizationMemberEntity } from '../organizations/organization-member.entity.js';
import { OrganizationEntity } from '../organizations/organization.entity.js';
import { AccessService } from '../permissions/access.service.js';
import { SitesService } from '../sites/sites.service.js';
import { CreateIndividualDto, IndividualDto, IndividualListQuery, UpdateIndividualDto } from './dto/individual.dto.js';
import { cascadeIndividualDeletion } from './individual-cascade.js';
import { readIndividual, readIndividualPage } from './individual.read.js';
import { IndividualEntity } from './individual.entity.js';

const LABEL = 'Individual';

const duplicateUserName = (userName: string) => new ConflictError(`The user name "${userName}" is already taken`, 'duplicate-username');

/**
 * Individuals (spec "Individual", DESIGN §3–§5). The login data (UserName, password, UserEmail)
 * live on the linked account (`users`); the primary organization is mirrored by a membership
 * row. Reads build every answer with a fixed number of batched queries, whatever the page size.
 * The decisions the spec leaves open are in docs/individuals.md.
 */
@Injectable()
export class IndividualsService {
  constructor(
    private readonly db: TenantDb,
    private readonly access: AccessService,
    private readonly sites: SitesService,
  ) {}

  // ------------------------------------------------------------------ reads

  async list(ctx: RequestContext, q: IndividualListQuery): Promise<Page<IndividualDto>> {
    const { items, total } = await readIndividualPage(this.db, ctx, { deleted: q.deleted, ...pageOf(q) });
    return Page.of(items, total, q);
  }

  /** `/sites/{siteid}/individuals`: the own site, or any site for a global administrator. */
  async listForSite(ctx: RequestContext, siteId: string, q: IndividualListQuery): Promise<Page<IndividualDto>> {
    return this.list(await this.sites.scopeTo(ctx, siteId), q);
  }

  /** One individual of the caller's site, deleted ones included (DESIGN §5); one statement (individual.read.ts). */
  async get(ctx: RequestContext, id: string): Promise<IndividualDto> {
    const dto = await readIndividual(this.db, ctx, id);
    if (!dto) throw new NotFoundError(LABEL, id);
    return dto;
  }

  /** The caller's own individual (404 when the caller has none in the acting site). */
  async me(ctx: RequestContext): Promise<IndividualDto> {
    const id = ctx.user.individualId;
    const dto = id ? await readIndividual(this.db, ctx, id) : null;
    if (!dto) throw new NotFoundError(LABEL, 'of the caller in this site');
    return dto;
  }

  /**
   * The wire form of a batch of individuals: organization names, accounts, last comments and
   * the caller's rights each come from one query for the whole batch (no N+1).
   */
  private async toDtos(ctx: RequestContext, rows: IndividualEntity[]): Promise<IndividualDto[]> {
    if (rows.length === 0) return [];
    const orgIds = [...new Set(rows.map((r) => r.primaryOrganizationId).filter((v): v is string => !!v))];
    const userIds = [...new Set(rows.map((r) => r.userId).filter((v): v is string => !!v))];
    const ids = rows.map((r) => r.id);
    const [orgs, users, comments, rights] = await Promise.all([
      orgIds.length
        ? this.db.repo(ctx, OrganizationEntity, 'Organization').qb('o').select(['o.id', 'o.name']).andWhere('o.id IN (:...orgIds)', { orgIds }).getMany()
        : Promise.resolve([]),
      userIds.length ? this.users().findBy({ id: In(userIds), siteId: ctx.siteId }) : Promise.resolve([]),
      lastCommentsFor(this.db, ctx, ids),
      this.access.rightsOn(ctx, rows),
    ]);
    const orgName = new Map(orgs.map((o) => [o.id, o.name]));
    const userById = new Map(users.map((u) => [u.id, u]));
    return rows.map((r) =>
      IndividualDto.from(r, {
        user: (r.userId && userById.get(r.userId)) || null,
        organizationName: (r.primaryOrganizationId && orgName.get(r.primaryOrganizationId)) || null,
        lastComment: comments.get(r.id) ?? null,
        rights: rights.get(r.id) ?? { read: true, update: false, delete: false, delegate: false },
      }),
    );
  }

  // ------------------------------------------------------------------ writes

  async create(ctx: RequestContext, dto: CreateIndividualDto): Promise<IndividualDto> {
    const userName = dto.UserName.trim();
    const errors: FieldError[] = [];
    const org = await this.liveOrganization(ctx, dto.PrimaryOrganizationID);
    if (!org) errors.push(this.missingOrganization(dto.PrimaryOrganizationID));
    if (dto.PrimaryReportsTo) {
      const problem = await this.checkManager(ctx, dto.PrimaryReportsTo);
      if (problem) errors.push(problem);
    }
    const passwordError = this.checkPassword(dto.Password);
    if (passwordError) errors.push(passwordError);
    if (errors.length) throw new ValidationError(errors);

    if (await this.userNameTaken(userName, null)) throw duplicateUserName(userName);
    const id = dto.ID ?? randomUUID();
    const passwordHash = dto.Password ? await hashPassword(dto.Password) : null;

    await this.db.transaction(ctx, async (tx) => {
      const now = new Date();
      const userId = randomUUID();
      try {
        await tx.manager.getRepository(UserEntity).insert({
          id: userId,
          siteId: ctx.siteId,
          userName,
          userNameKey: userName.toLowerCase(),
          email: dto.UserEmail,
          passwordHash,
          isGlobalAdmin: false,
          created: now,
          updated: now,
        });
      } catch (e) {
        if (isUniqueViolation(e)) throw duplicateUserName(userName);
        throw e;
      }
      await tx.repo(IndividualEntity, LABEL).insert({
        id,
        userId,
        isAdmin: dto.IsAdmin ?? false,
        prefix: dto.Prefix ?? null,
        suffix: dto.Suffix ?? null,
        firstName: dto.FirstName.trim(),
        lastName: dto.LastName.trim(),
        userDefined1: dto.UserDefined1 ?? null,
        userDefined2: dto.UserDefined2 ?? null,
        userDefined3: dto.UserDefined3 ?? null,
        userDefined4: dto.UserDefined4 ?? null,
        email: dto.Email,
        primaryOrganizationId: dto.PrimaryOrganizationID,
        primaryTitle: dto.PrimaryTitle,
        primaryReportsTo: dto.PrimaryReportsTo ?? null,
        hireDate: dto.HireDate ?? null,
        sendEvalSurvey: false,
        deleted: false,
        deletedByRef: false,
      });
      await tx.repo(OrganizationMemberEntity, 'OrganizationMember').insert({
        individualId: id,
        organizationId: dto.PrimaryOrganizationID,
        title: dto.PrimaryTitle,
        deletedByRef: false,
      });
    });
    return this.get(ctx, id);
  }

  async update(ctx: RequestContext, id: string, dto: UpdateIndividualDto): Promise<IndividualDto> {
    assertBodyId(id, dto.ID);
    const current = await this.db.repo(ctx, IndividualEntity, LABEL).get(id);
    await this.access.assertCanManageIndividual(ctx, id);
    if (current.deleted) throw new ConflictError(`Individual ${id} is deleted; undelete it before changing it`, 'deleted');
    if (ctx.ifMatch) assertIfMatch(ctx, (await this.toDtos(ctx, [current]))[0]);

    const me = ctx.user;
    const isSelf = me.individualId === id;
    const user = current.userId ? await this.users().findOneBy({ id: current.userId, siteId: ctx.siteId }) : null;
    const userName = dto.UserName.trim();
    const userNameChanges = !user || user.userName !== userName;
    const userEmailChanges = dto.UserEmail !== undefined && dto.UserEmail !== (user?.email ?? null);
    const passwordChanges = !!dto.Password;

    // Who may change what: IsAdmin only an administrator; the login data only the person or an administrator.
    if (dto.IsAdmin !== undefined && dto.IsAdmin !== null && dto.IsAdmin !== current.isAdmin && !me.isAdmin) {
      throw new ForbiddenError('Only an administrator may change IsAdmin');
    }
    if ((userNameChanges || userEmailChanges || passwordChanges) && !me.isAdmin && !isSelf) {
      throw new ForbiddenError('Only the individual or an administrator may change UserName, UserEmail or Password');
    }

    const errors: FieldError[] = [];
    const newOrgId = dto.PrimaryOrganizationID ?? current.primaryOrganizationId;
    if (newOrgId !== current.primaryOrganizationId && !(await this.liveOrganization(ctx, newOrgId))) errors.push(this.missingOrganization(newOrgId));
    const newReportsTo = dto.PrimaryReportsTo === undefined ? current.primaryReportsTo : dto.PrimaryReportsTo;
    const reportsToChanges = newReportsTo !== current.primaryReportsTo && newReportsTo !== null;
    if (reportsToChanges && newReportsTo !== id) {
      const problem = await this.checkManager(ctx, newReportsTo);
      if (problem) errors.push(problem);
    }
    const passwordError = this.checkPassword(dto.Password);
    if (passwordError) errors.push(passwordError);
    if (errors.length) throw new ValidationError(errors);
    if (reportsToChanges && (newReportsTo === id || (await this.access.reportsTo(ctx, newReportsTo, id)))) {
      throw new ConflictError(`PrimaryReportsTo ${newReportsTo} would make a reporting cycle`, 'cycle');
    }
    if (userNameChanges && (await this.userNameTaken(userName, user?.id ?? null))) throw duplicateUserName(userName);
    const passwordHash = passwordChanges ? await hashPassword(dto.Password as string) : undefined;

    const newTitle = dto.PrimaryTitle === undefined ? current.primaryTitle : dto.PrimaryTitle;
    const membershipChanges = newOrgId !== current.primaryOrganizationId || newTitle !== current.primaryTitle;
    const oldOrgId = current.primaryOrganizationId;

    await this.db.transaction(ctx, async (tx) => {
      let userId = current.userId;
      if (userNameChanges || userEmailChanges || passwordChanges)
        userId = await this.writeAccount(tx, ctx, user, { userName, email: dto.UserEmail, passwordHash });
      await tx.repo(IndividualEntity, LABEL).update(current, {
        userId,
        isAdmin: dto.IsAdmin ?? undefined,
        prefix: dto.Prefix,
        suffix: dto.Suffix,
        firstName: dto.FirstName.trim(),
        lastName: dto.LastName.trim(),
        userDefined1: dto.UserDefined1,
        userDefined2: dto.UserDefined2,
        userDefined3: dto.UserDefined3,
        userDefined4: dto.UserDefined4,
        email: dto.Email,
        primaryOrganizationId: newOrgId,
        primaryTitle: newTitle,
        primaryReportsTo: newReportsTo,
        hireDate: dto.HireDate,
      });
      if (membershipChanges && newOrgId) await this.movePrimaryMembership(tx, id, oldOrgId, newOrgId, newTitle);
    });
    return this.get(ctx, id);
  }

  /** Soft delete (DESIGN §5): idempotent; memberships and other owned rows follow by reference. */
  async remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    const repo = this.db.repo(ctx, IndividualEntity, LABEL);
    const current = await repo.get(id);
    if (ctx.ifMatch) assertIfMatch(ctx, (await this.toDtos(ctx, [current]))[0]);
    if (current.deleted) return {};
    if (ctx.user.individualId === id) throw new ForbiddenError('An administrator cannot delete their own individual (it would lock them out)');
    await this.db.transaction(ctx, async (tx) => {
      await tx.repo(IndividualEntity, LABEL).update(current, { deleted: true });
      await cascadeIndividualDeletion(tx, id, true);
    });
    return {};
  }

  /** Restores the individual and what its deletion took down by reference; idempotent. */
  async undelete(ctx: RequestContext, id: string): Promise<IndividualDto> {
    const current = await this.db.repo(ctx, IndividualEntity, LABEL).get(id);
    if (current.deleted) {
      await this.db.transaction(ctx, async (tx) => {
        await tx.repo(IndividualEntity, LABEL).update(current, { deleted: false });
        await cascadeIndividualDeletion(tx, id, false);
      });
    }
    return this.get(ctx, id);
  }

  // ------------------------------------------------------------------ helpers

  /** Login accounts: not a tenant table (user names are unique across all sites, DESIGN §3). */
  private users() {
    return this.db.dataSource.getRepository(UserEntity);
  }

  private async userNameTaken(userName: string, exceptUserId: string | null): Promise<boolean> {
    const other = await this.users().findOne({ where: { userNameKey: userName.toLowerCase() }, select: { id: true } });
    return !!other && other.id !== exceptUserId;
  }

  private liveOrganization(ctx: RequestContext, id: string | null): Promise<OrganizationEntity | null> {
    if (!id) return Promise.resolve(null);
    return this.db.repo(ctx, OrganizationEntity, 'Organization').findOne({ id, deleted: false });
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

  /** Null or "" leave the password alone (a client PUTting back what it read sends null). */
  private checkPassword(password: string | null | undefined): FieldError | null {
    if (!password || [...password].length >= MIN_PASSWORD_LENGTH) return null;
    return { field: 'Password', message: `Password must be at least ${MIN_PASSWORD_LENGTH} characters` };
  }

  /** Updates the login account (or creates one for an individual that has none); answers its id. */
  private async writeAccount(
    tx: TenantTx,
    ctx: RequestContext,
    user: UserEntity | null,
    change: { userName: string; email: string | null | undefined; passwordHash: string | undefined },
  ): Promise<string> {
    const users = tx.manager.getRepository(UserEntity);
    const now = new Date();
    try {
      if (!user) {
        const id = randomUUID();
        await users.insert({
          id,
          siteId: ctx.siteId,
          userName: change.userName,
          userNameKey: change.userName.toLowerCase(),
          email: change.email ?? null,
          passwordHash: change.passwordHash ?? null,
          isGlobalAdmin: false,
          created: now,
          updated: now,
        });
        return id;
      }
      await users.update(
        { id: user.id },
        {
          userName: change.userName,
          userNameKey: change.userName.toLowerCase(),
          ...(change.email !== undefined ? { email: change.email } : {}),
          ...(change.passwordHash !== undefined ? { passwordHash: change.passwordHash } : {}),
          updated: now,
        },
      );
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
    const rows = await members.find({ where: { individualId, organizationId: In(orgIds) } });
    const target = rows.find((r) => r.organizationId === newOrgId);
    const old = oldOrgId !== newOrgId ? rows.find((r) => r.organizationId === oldOrgId) : undefined;
    if (target) {
      await members.update(target, { title });
      if (old) await members.deleteWhere({ id: old.id });
    } else if (old) {
      await members.update(old, { organizationId: newOrgId, title });
    } else {
      await members.insert({ individualId, organizationId: newOrgId, title, deletedByRef: false });
    }
  }
}
