import { Injectable } from '@nestjs/common';
import type { RequestContext } from '../../common/context/request-context.js';
import { NotFoundError } from '../../common/errors/errors.js';
import { SCIM_SCHEMA, ScimError } from './scim-protocol.js';
import type { RawBody } from '../../http/pipeline/wire-writer.js';
import { LIMITS } from '../../common/limits.js';
import { SecurityGroupEntity } from '../../database/entities/security-group.entity.js';
import { TenantDb } from '../../database/tenant-db.js';
import { SecurityGroupsService } from '../security-groups/security-groups.service.js';
import { asScimError } from './scim-errors.js';
import { equalityAttribute, type FilterAttributes, textAttribute } from './scim-filter.js';
import { applyPatch, type Json, type MemberChange, readPatch, splitMemberOperations } from './scim-patch.js';
import { NO_CONTENT, assertIfMatch, excludes, type ListOf, listPage, metaOf, projectionOf, resourceAnswer } from './scim-wire.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const lower = (v: string) => v.toLowerCase();
const isMember = (p: string) => `EXISTS (SELECT 1 FROM security_group_members m WHERE m.site_id = g.site_id AND m.group_id = g.id AND m.individual_id = ${p})`;

/** What a Group filter may name, in SQL over `security_groups g` (docs/identity.md, "Filters"). */
const GROUP_ATTRIBUTES: FilterAttributes = {
  id: equalityAttribute((p) => `g.id = ${p}`, lower),
  displayname: textAttribute('g.name'),
  externalid: textAttribute('g.external_id', { caseExact: true }),
  members: equalityAttribute(isMember, lower),
  'members.value': equalityAttribute(isMember, lower),
};

const GROUPS: ListOf = { attributes: GROUP_ATTRIBUTES, schemaUrns: [SCIM_SCHEMA.group], orderBy: 'g.id' };

type Members = Map<string, { value: string; display: string | null }[]> | null;

/**
 * SCIM Groups (docs/identity.md, "SCIM provisioning"): the site's security groups, whose members
 * are Users. Membership changes go through SecurityGroupsService.changeMembers, which locks the
 * group, so concurrent PATCHes of one group each land; a group's Permission records apply to its
 * members as they change.
 */
@Injectable()
export class ScimGroupsService {
  private readonly groups = this.db.scoped(SecurityGroupEntity, 'Group');

  constructor(
    private readonly db: TenantDb,
    private readonly securityGroups: SecurityGroupsService,
  ) {}

  /** `GET /Groups`: a filtered page; members are not read at all when `excludedAttributes=members`. */
  async list(ctx: RequestContext, q: Record<string, unknown>): Promise<RawBody> {
    const resources = async (rows: SecurityGroupEntity[]) => {
      const members = await this.membersOf(ctx, rows, q);
      return rows.map((g) => toScimGroup(g, members));
    };
    return listPage(this.groups(ctx).qb('g'), q, GROUPS, resources, projectionOf(q));
  }

  async get(ctx: RequestContext, id: string, q: Record<string, unknown>): Promise<RawBody> {
    return this.answer(ctx, await this.find(ctx, id, false), q);
  }

  /** `POST /Groups` (201): a security group named displayName, with the members the body lists. */
  async create(ctx: RequestContext, body: unknown, q: Record<string, unknown>): Promise<RawBody> {
    const input = readGroup(body);
    return asScimError(() =>
      this.db.transaction(ctx, async () => {
        const created = await this.securityGroups.create(ctx, { Name: input.displayName } as Parameters<SecurityGroupsService['create']>[1]);
        if (input.externalId) await this.groups(ctx).update(created.ID, { externalId: input.externalId });
        if (input.members?.size) await this.securityGroups.changeMembers(ctx, created.ID, { replace: null, add: input.members, remove: new Set() });
        return this.answer(ctx, await this.find(ctx, created.ID, false), q, true);
      }),
    );
  }

  /** `PUT /Groups/{id}`: displayName replaced; `members` given replaces the members, absent keeps them; externalId likewise. */
  async replace(ctx: RequestContext, id: string, body: unknown, q: Record<string, unknown>): Promise<RawBody> {
    const input = readGroup(body);
    return asScimError(() =>
      this.db.transaction(ctx, async () => {
        const group = await this.find(ctx, id, true);
        assertIfMatch(ctx, group.version);
        await this.write(ctx, group, input.displayName, input.externalId, input.members ? { replace: input.members, add: new Set(), remove: new Set() } : null);
        return this.answer(ctx, await this.find(ctx, id, false), q);
      }),
    );
  }

  /**
   * `PATCH /Groups/{id}`: operations on members change the stored memberships (Okta's
   * `members[value eq "…"]`, Entra's remove with a value list), the others apply to displayName
   * and externalId.
   */
  async patch(ctx: RequestContext, id: string, body: unknown, q: Record<string, unknown>): Promise<RawBody> {
    const { others, members } = splitMemberOperations(readPatch(body, SCIM_SCHEMA.group));
    return asScimError(() =>
      this.db.transaction(ctx, async () => {
        const group = await this.find(ctx, id, true);
        assertIfMatch(ctx, group.version);
        let name = group.name;
        let externalId: string | null | undefined;
        if (others.length) {
          const current: Json = {
            schemas: [SCIM_SCHEMA.group],
            id,
            displayName: group.name,
            ...(group.externalId ? { externalId: group.externalId } : {}),
            meta: {},
          };
          const patched = applyPatch(current, others);
          const input = readGroup({ ...patched, members: undefined });
          name = input.displayName;
          externalId = input.externalId ?? null;
        }
        await this.write(ctx, group, name, externalId, members);
        return this.answer(ctx, await this.find(ctx, id, false), q);
      }),
    );
  }

  /** `DELETE /Groups/{id}` (204): the group, its memberships and the Permission records naming it. */
  async remove(ctx: RequestContext, id: string): Promise<RawBody> {
    await asScimError(() =>
      this.db.transaction(ctx, async () => {
        const group = await this.find(ctx, id, true);
        assertIfMatch(ctx, group.version);
        await this.securityGroups.remove(ctx, group.id);
      }),
    );
    return NO_CONTENT;
  }

  // ------------------------------------------------------------------ helpers

  private async find(ctx: RequestContext, id: string, lock: boolean): Promise<SecurityGroupEntity> {
    if (!GUID.test(id)) throw new NotFoundError('Group', id);
    const row = lock ? await this.groups(ctx).lock(id.toLowerCase()) : await this.groups(ctx).findById(id.toLowerCase());
    if (!row) throw new NotFoundError('Group', id);
    return row;
  }

  /** Name (through SecurityGroupsService, If-Match on the row), external id and members, each only when it changes. */
  private async write(
    ctx: RequestContext,
    group: SecurityGroupEntity,
    name: string,
    externalId: string | null | undefined,
    members: MemberChange | null,
  ): Promise<void> {
    if (name !== group.name) await this.securityGroups.update(ctx, group.id, { ID: group.id, Name: name } as Parameters<SecurityGroupsService['update']>[2]);
    if (externalId !== undefined && externalId !== group.externalId) await this.groups(ctx).update(group.id, { externalId });
    if (members) await this.securityGroups.changeMembers(ctx, group.id, members);
  }

  private async membersOf(ctx: RequestContext, rows: SecurityGroupEntity[], q: Record<string, unknown>): Promise<Members> {
    if (excludes(q, 'members') || rows.length === 0) return null;
    const described = await this.securityGroups.describe(ctx, rows);
    type Member = { IndividualID: string; FullName: string | null };
    return new Map(described.map((g) => [g.ID, (g.Members as Member[]).map((m) => ({ value: m.IndividualID, display: m.FullName }))]));
  }

  private async answer(ctx: RequestContext, group: SecurityGroupEntity, q: Record<string, unknown>, created = false): Promise<RawBody> {
    const resource = toScimGroup(group, await this.membersOf(ctx, [group], q));
    return resourceAnswer(resource, group.version, { location: created, select: projectionOf(q) });
  }
}

/** The SCIM Group of a security group (members left out when they were not read). */
function toScimGroup(group: SecurityGroupEntity, members: Members): Json {
  return {
    schemas: [SCIM_SCHEMA.group],
    id: group.id,
    ...(group.externalId ? { externalId: group.externalId } : {}),
    displayName: group.name,
    ...(members
      ? {
          members: (members.get(group.id) ?? []).map((m) => ({
            value: m.value,
            ...(m.display ? { display: m.display } : {}),
            $ref: `/scim/v2/Users/${m.value}`,
            type: 'User',
          })),
        }
      : {}),
    meta: metaOf('Group', group.id, group.created, group.updated),
  };
}

/** A Group body read: displayName (required, at most 255 characters), externalId, members (ids). */
function readGroup(body: unknown): { displayName: string; externalId: string | null | undefined; members: Set<string> | null } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ScimError(400, 'invalidSyntax', 'The body must be a Group object');
  const b = body as Json;
  const displayName = typeof b.displayName === 'string' ? b.displayName.trim() : '';
  if (!displayName) throw new ScimError(400, 'invalidValue', 'displayName is required');
  if ([...displayName].length > LIMITS.name) throw new ScimError(400, 'invalidValue', `displayName must be at most ${LIMITS.name} characters`);
  if (b.externalId !== undefined && b.externalId !== null && (typeof b.externalId !== 'string' || [...b.externalId].length > LIMITS.name))
    throw new ScimError(400, 'invalidValue', `externalId must be a string of at most ${LIMITS.name} characters`);
  let members: Set<string> | null = null;
  if (b.members !== undefined && b.members !== null) {
    if (!Array.isArray(b.members)) throw new ScimError(400, 'invalidValue', 'members must be a list of { "value": "<User id>" }');
    members = new Set(
      b.members.map((m: unknown) => {
        const v = m && typeof m === 'object' ? (m as Json).value : undefined;
        if (typeof v !== 'string' || !v.trim()) throw new ScimError(400, 'invalidValue', 'each member must be { "value": "<User id>" }');
        return v.trim().toLowerCase();
      }),
    );
  }
  const externalId = typeof b.externalId === 'string' ? b.externalId.trim() || null : b.externalId === null ? null : undefined;
  return { displayName, externalId, members };
}
