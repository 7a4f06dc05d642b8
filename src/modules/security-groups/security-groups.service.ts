import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { ConflictError, ValidationError } from '../../common/errors/errors.js';
import { fullName } from '../../common/names.js';
import { Page, pageOf, QueriedPage, QueriedPageQuery } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { isUniqueViolation } from '../../common/errors/db-errors.js';
import { TenantDb } from '../../database/tenant-db.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { PermissionEntity } from '../../database/entities/permission.entity.js';
import {
  AddSecurityGroupMemberInput,
  CreateSecurityGroupDto,
  SecurityGroup,
  SecurityGroupDto,
  SecurityGroupMemberInput,
  UpdateSecurityGroupDto,
  type MemberRow,
} from './dto/security-group.dto.js';
import { SecurityGroupEntity, SecurityGroupMemberEntity } from '../../database/entities/security-group.entity.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';
import { DeclaresBulkWrites } from '../../database/registries/bulk-writers.js';
import { answerBulk, applyBulk, type BulkOptions, type BulkPlan, type BulkRun } from '../../database/bulk-write.js';
import type { BulkItemInput, BulkQuery, BulkRequest, BulkResultsDto } from '../../http/wire/bulk.js';

const LABEL = 'SecurityGroup';
/** The plain list's order for a queried list without sort=: Name, then ID (ix_security_groups_site_name). */
const BY_NAME = [{ field: SecurityGroup.queryable.get('name')!, desc: false }] as const;

/**
 * Security groups (docs/authorization.md): administrators manage them and their members; a
 * Permission record naming a group applies to each of its members. Deleting a group removes its
 * memberships and the Permission records naming it, in one transaction. Every change reaches the
 * rights of the members on the next request (the caller cache is emptied by these writes).
 */
@Injectable()
@DeclaresRecordKind<SecurityGroupsService>({ path: 'securitygroups', kind: 'security-group', access: 'admin', read: (s, ctx, id) => s.get(ctx, id) })
@DeclaresBulkWrites<SecurityGroupsService>({
  path: 'securitygroups/members',
  records: [AddSecurityGroupMemberInput, SecurityGroupMemberInput],
  apply: (s, ctx, items, opts) => s.applyMembers(ctx, items, opts),
})
export class SecurityGroupsService {
  constructor(
    private readonly db: TenantDb,
    private readonly queries: ListQueries,
  ) {}

  private readonly groups = this.db.scoped(SecurityGroupEntity, LABEL);

  private readonly members = this.db.scoped(SecurityGroupMemberEntity, 'SecurityGroupMember');

  /** GET /securitygroups (the route is for administrators): the site's groups, by Name. */
  async list(ctx: RequestContext, q: QueriedPageQuery): Promise<Page<SecurityGroupDto>> {
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the site's groups only; the members as the plain list answers them.
      const query = this.queries.read(ctx, SecurityGroup, q);
      const { take, skip } = pageOf(q);
      const page = await readQueriedRows(this.db, ctx, SecurityGroupEntity, {}, query, BY_NAME, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(await this.toDtos(ctx, page.rows), page.total, take, skip, query.fields, next);
    }
    const [rows, total] = await this.groups(ctx).findAndCount({ order: { name: 'ASC', id: 'ASC' }, ...pageOf(q) });
    return Page.of(await this.toDtos(ctx, rows), total, q);
  }

  async get(ctx: RequestContext, id: string): Promise<SecurityGroupDto> {
    return this.one(ctx, await this.groups(ctx).get(id));
  }

  async create(ctx: RequestContext, dto: CreateSecurityGroupDto): Promise<SecurityGroupDto> {
    const row = await this.groups(ctx).insert(SecurityGroup.toColumns(dto, 'create'));
    return this.one(ctx, row);
  }

  async update(ctx: RequestContext, id: string, dto: UpdateSecurityGroupDto): Promise<SecurityGroupDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async () => {
      await this.groups(ctx).lock(id);
      return this.one(ctx, await this.groups(ctx).update(id, SecurityGroup.toColumns(dto, 'update'), { ifMatch: true }));
    });
  }

  /** PATCH: the group, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<SecurityGroupDto> {
    const show = (row: SecurityGroupEntity) => this.one(ctx, row);
    return patchResource(this.db, ctx, patch, SecurityGroup, this.groups(ctx), id, (dto) => this.update(ctx, id, dto), show);
  }

  /** Removes the group, its memberships and the Permission records naming it; answers `{}`. */
  async remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    await this.db.transaction(ctx, async () => {
      await this.groups(ctx).lock(id);
      await this.db.repo(ctx, PermissionEntity, 'Permission').deleteWhere({ principalId: id });
      await this.members(ctx).deleteWhere({ groupId: id });
      await this.groups(ctx).remove(id, { ifMatch: true });
    });
    return {};
  }

  /**
   * `PUT /securitygroups/{id}/members/{individualid}`: adds the individual (a live individual of the
   * site: 404 when not of the site, 409 deleted when deleted); idempotent. Answers the group.
   */
  async addMember(ctx: RequestContext, id: string, individualId: string): Promise<SecurityGroupDto> {
    return this.db.transaction(ctx, async () => {
      const group = await this.groups(ctx).lock(id);
      const person = await this.db.repo(ctx, IndividualEntity, 'Individual').get(individualId);
      if (person.deleted) throw new ConflictError(`Individual ${individualId} is deleted; undelete it before adding it to a group`, 'deleted');
      if (!(await this.members(ctx).exists({ groupId: id, individualId }))) {
        try {
          await this.members(ctx).insert({ groupId: id, individualId });
        } catch (e) {
          if (!isUniqueViolation(e)) throw e;
        }
      }
      return this.one(ctx, group);
    });
  }

  /**
   * A batch of memberships to add (docs/bulk.md), each through `addMember`: what
   * `POST /securitygroups/members/bulk` and a file import run. An item names the pair (the group and
   * the individual, each by ID or ExternalID) or a membership's ID; adding a member twice is the
   * single write's idempotent 200. A membership has nothing to change: an update of one answers it.
   */
  applyMembers(ctx: RequestContext, items: readonly BulkItemInput[], opts: BulkOptions): Promise<BulkRun> {
    return applyBulk(this.db, ctx, items, (c) => this.membersPlan(c), opts);
  }

  /** `POST /securitygroups/members/bulk`. */
  bulkMembers(ctx: RequestContext, body: BulkRequest, q: BulkQuery): Promise<BulkResultsDto> {
    return answerBulk(this.db, ctx, body, q, (c) => this.membersPlan(c));
  }

  private membersPlan(ctx: RequestContext): BulkPlan<AddSecurityGroupMemberInput, SecurityGroupMemberInput> {
    const idOf = async (groupId: string, individualId: string) => (await this.members(ctx).findOne({ groupId, individualId }))?.id ?? null;
    return {
      label: 'SecurityGroupMember',
      entity: SecurityGroupMemberEntity,
      externalIds: false,
      // A membership has no ETag of its own and addMember takes no If-Match.
      conditional: false,
      create: AddSecurityGroupMemberInput,
      update: SecurityGroupMemberInput,
      // The single write's route is for administrators (a file import is held to it too).
      createRule: 'admin',
      updateRule: 'admin',
      refs: { SecurityGroupID: SecurityGroupEntity, IndividualID: IndividualEntity },
      match: {
        fields: ['SecurityGroupID', 'IndividualID'],
        find: (record) => idOf(String(record.SecurityGroupID).trim().toLowerCase(), String(record.IndividualID).trim().toLowerCase()),
      },
      createOne: async (dto) => {
        await this.addMember(ctx, dto.SecurityGroupID, dto.IndividualID);
        return { ID: await idOf(dto.SecurityGroupID, dto.IndividualID) };
      },
      updateOne: async (id) => {
        const m = await this.members(ctx).get(id);
        await this.addMember(ctx, m.groupId, m.individualId);
        return { ID: m.id };
      },
      read: async (id) => {
        const m = await this.members(ctx).get(id);
        return { ID: m.id, SecurityGroupID: m.groupId, IndividualID: m.individualId };
      },
    };
  }

  /** `DELETE /securitygroups/{id}/members/{individualid}`: removes the membership if there is one; answers the group. */
  async removeMember(ctx: RequestContext, id: string, individualId: string): Promise<SecurityGroupDto> {
    return this.db.transaction(ctx, async () => {
      const group = await this.groups(ctx).lock(id);
      await this.db.repo(ctx, IndividualEntity, 'Individual').get(individualId);
      await this.members(ctx).deleteWhere({ groupId: id, individualId });
      return this.one(ctx, group);
    });
  }

  /**
   * Changes the members of a group in one go (SCIM provisioning, docs/identity.md): with `replace`,
   * the members become exactly `replace` plus `add` minus `remove`; without, `remove` leave and
   * `add` join. The group is locked first, so concurrent changes of one group run one after the
   * other and none is lost; an id to add that is not a live individual of the site is 400 naming
   * it (nothing changes). A few statements whatever the number of members; the group's version
   * moves on (its ETag changes).
   */
  async changeMembers(
    ctx: RequestContext,
    id: string,
    change: { replace: ReadonlySet<string> | null; add: ReadonlySet<string>; remove: ReadonlySet<string> },
  ): Promise<void> {
    await this.db.transaction(ctx, async () => {
      await this.groups(ctx).lock(id);
      const target = change.replace ? new Set([...change.replace, ...change.add].filter((m) => !change.remove.has(m))) : new Set(change.add);
      // Whom the caller does not see (a global administrator, for an API token) it neither adds nor removes.
      const unseen = new Set(ctx.user.unseen ?? []);
      const current = (await this.members(ctx).find({ where: { groupId: id } })).map((m) => m.individualId).filter((m) => !unseen.has(m));
      const have = new Set(current);
      const joining = [...target].filter((m) => !have.has(m));
      const live = new Set(
        (await this.db.repo(ctx, IndividualEntity, 'Individual').findByIds(joining)).filter((p) => !p.deleted && !unseen.has(p.id)).map((p) => p.id),
      );
      const unknown = joining.filter((m) => !live.has(m));
      if (unknown.length)
        throw new ValidationError(
          unknown.slice(0, 20).map((m) => ({ field: 'members', message: `${m} is not a live individual of this site` })),
          `members: ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? '…' : ''} ${unknown.length === 1 ? 'is not a live individual' : 'are not live individuals'} of this site`,
        );
      const leaving = change.replace ? current.filter((m) => !target.has(m)) : current.filter((m) => change.remove.has(m));
      for (let i = 0; i < leaving.length; i += 500) await this.members(ctx).deleteWhere({ groupId: id, individualId: In(leaving.slice(i, i + 500)) });
      await this.members(ctx).insertMany(joining.map((individualId) => ({ groupId: id, individualId })));
      await this.groups(ctx).update(id, {});
    });
  }

  /** Wire records of these groups with their members (two statements for any number), for SCIM's Groups. */
  describe(ctx: RequestContext, rows: SecurityGroupEntity[]): Promise<SecurityGroupDto[]> {
    return this.toDtos(ctx, rows);
  }

  private async one(ctx: RequestContext, row: SecurityGroupEntity): Promise<SecurityGroupDto> {
    return (await this.toDtos(ctx, [row]))[0];
  }

  /** Wire records with their members: two statements for any page. */
  private async toDtos(ctx: RequestContext, rows: SecurityGroupEntity[]): Promise<SecurityGroupDto[]> {
    if (rows.length === 0) return [];
    const unseen = new Set(ctx.user.unseen ?? []);
    const memberships = (await this.members(ctx).find({ where: { groupId: In(rows.map((r) => r.id)) } })).filter((m) => !unseen.has(m.individualId));
    const people = await this.db.repo(ctx, IndividualEntity, 'Individual').findByIds([...new Set(memberships.map((m) => m.individualId))]);
    const byId = new Map(people.map((p) => [p.id, p]));
    const sortKey = (id: string) => `${byId.get(id)?.lastName ?? ''}\u0000${byId.get(id)?.firstName ?? ''}\u0000${id}`;
    memberships.sort((a, b) => (sortKey(a.individualId) < sortKey(b.individualId) ? -1 : 1));
    const members = new Map<string, MemberRow[]>();
    for (const m of memberships) {
      const p = byId.get(m.individualId);
      const list = members.get(m.groupId) ?? [];
      list.push({ individualId: m.individualId, fullName: p ? fullName(p.firstName, p.lastName) : null });
      members.set(m.groupId, list);
    }
    return rows.map((r) => SecurityGroup.toWire(r, { members }));
  }
}
