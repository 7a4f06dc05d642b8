import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { userNameKey } from '../../auth/user-name.js';
import type { RequestContext } from '../../common/context/request-context.js';
import { NotFoundError } from '../../common/errors/errors.js';
import { SCIM_SCHEMA, ScimError } from './scim-protocol.js';
import type { RawBody } from '../../http/pipeline/wire-writer.js';
import { LIMITS } from '../../common/limits.js';
import { fullName } from '../../common/names.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { UserEntity } from '../../database/entities/user.entity.js';
import { accounts, defaultOrganizationId, endTokens } from '../../database/queries/accounts.js';
import { TenantDb } from '../../database/tenant-db.js';
import { IndividualsService } from '../individuals/individuals.service.js';
import { booleanAttribute, equalityAttribute, type FilterAttributes, presenceAttribute, textAttribute } from './scim-filter.js';
import { applyPatch, booleanOf, type Json, managerIdOf, readPatch } from './scim-patch.js';
import { asScimError } from './scim-errors.js';
import { NO_CONTENT, assertIfMatch, type ListOf, listPage, metaOf, projectionOf, resourceAnswer } from './scim-wire.js';
import { guardExternalId } from '../../http/wire/external-id.js';

const ENTERPRISE = SCIM_SCHEMA.enterpriseUser;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FULL_NAME = "CONCAT(i.first_name, ' ', i.last_name)";
const lower = (v: string) => v.toLowerCase();

/** What a User filter may name (docs/identity.md, "Filters"), in SQL over `individuals i` joined to `users u`. */
const USER_ATTRIBUTES: FilterAttributes = {
  id: equalityAttribute((p) => `i.id = ${p}`, lower),
  username: textAttribute('u.user_name_key', { normalise: userNameKey }),
  externalid: textAttribute('i.external_id', { caseExact: true }),
  emails: textAttribute('i.email'),
  'emails.value': textAttribute('i.email'),
  // The one address kept is the work address, and the primary one.
  'emails.type': equalityAttribute((p) => `(i.email IS NOT NULL AND ${p} = 'work')`, lower),
  'emails.primary': presenceAttribute('i.email'),
  'name.givenname': textAttribute('i.first_name'),
  'name.familyname': textAttribute('i.last_name'),
  'name.formatted': textAttribute(FULL_NAME),
  displayname: textAttribute(FULL_NAME),
  title: textAttribute('i.primary_title'),
  active: booleanAttribute('u.active'),
  manager: equalityAttribute((p) => `i.primary_reports_to = ${p}`, lower),
  'manager.value': equalityAttribute((p) => `i.primary_reports_to = ${p}`, lower),
};

const USERS: ListOf = { attributes: USER_ATTRIBUTES, schemaUrns: [SCIM_SCHEMA.user, ENTERPRISE], orderBy: 'i.id' };

/** A User as the request gives it (POST, PUT, or a patched resource), checked. `undefined`: keep. */
interface UserInput {
  userName: string;
  givenName: string;
  familyName: string;
  email: string | null;
  title: string | null;
  managerId: string | null;
  externalId: string | null | undefined;
  active: boolean | undefined;
}

type PersonFields = Parameters<IndividualsService['update']>[2];

/**
 * SCIM Users (docs/identity.md, "SCIM provisioning"): the people of the token's site — each an
 * individual with its login account — as RFC 7643 Users. Writes go through IndividualsService,
 * so a provisioned person passes every rule of a PUT /v4/individuals (user-name identity and
 * uniqueness, a manager of the site, no reporting cycle) in one transaction with what SCIM adds:
 * `externalId`, and `active`, whose false ends every token of the person and refuses their
 * sign-in until it is true again. DELETE deactivates the same way and detaches the account from
 * provisioning: the individual and everything recorded about them stay.
 */
@Injectable()
export class ScimUsersService {
  private readonly individuals = this.db.scoped(IndividualEntity, 'User');

  constructor(
    private readonly db: TenantDb,
    private readonly people: IndividualsService,
  ) {}

  // ------------------------------------------------------------------ reads

  /** `GET /Users`: a filtered page, counted and read in three statements whatever its size. */
  async list(ctx: RequestContext, q: Record<string, unknown>): Promise<RawBody> {
    const qb = this.individuals(ctx)
      .qb('i')
      .innerJoin(UserEntity, 'u', 'u.id = i.user_id AND u.site_id = i.site_id')
      .andWhere('i.deleted = 0')
      .andWhere('u.deprovisioned IS NULL')
      // A global administrator is no provisioned person (docs/security.md).
      .andWhere('u.is_global_admin = 0');
    const resources = async (rows: IndividualEntity[]) => {
      const accounts = await this.accounts(ctx, rows);
      return rows.map((r) => toScimUser(r, accounts.get(r.userId!)!));
    };
    return listPage(qb, q, USERS, resources, projectionOf(q, ENTERPRISE));
  }

  /** `GET /Users/{id}`: 404 for an id that is not a provisioned person of the site. */
  async get(ctx: RequestContext, id: string, q: Record<string, unknown>): Promise<RawBody> {
    const { person, account } = await this.find(ctx, id, false);
    return resourceAnswer(toScimUser(person, account), person.version, { select: projectionOf(q, ENTERPRISE) });
  }

  // ------------------------------------------------------------------ writes

  /**
   * `POST /Users` (201): a person in the site's first organization, with a login account without
   * a password (they sign in with single sign-on). The userName of an account a DELETE detached
   * brings that person back (a rehire) with what the request says; any other taken userName is
   * 409 uniqueness.
   */
  async create(ctx: RequestContext, body: unknown): Promise<RawBody> {
    const input = readUser(body, 'create');
    return asScimError(() =>
      this.db.transaction(ctx, async () => {
        const key = userNameKey(input.userName);
        const taken = await this.db.global(ctx, UserEntity).findOneBy({ userNameKey: key });
        if (taken && taken.userNameKey === key && taken.siteId === ctx.siteId && taken.deprovisioned) {
          const person = await this.individuals(ctx).findOne({ userId: taken.id, deleted: false });
          if (person) {
            await accounts(this.db, ctx).update(taken.id, { deprovisioned: null, updated: new Date() });
            return this.write(ctx, person.id, { ...input, active: input.active ?? true }, { created: true });
          }
        }
        const organizationId = await defaultOrganizationId(this.db, ctx);
        if (!organizationId) throw new ScimError(400, null, 'The site has no organization to place a new person in: create one first');
        const created = await this.people.create(ctx, {
          ...personFields(input),
          PrimaryOrganizationID: organizationId,
        } as unknown as Parameters<IndividualsService['create']>[1]);
        return this.write(ctx, created.ID, input, { created: true, fresh: true });
      }),
    );
  }

  /** `PUT /Users/{id}`: the attributes the body gives replace the person's; `externalId` and `active` absent keep theirs. */
  async replace(ctx: RequestContext, id: string, body: unknown): Promise<RawBody> {
    const input = readUser(body, 'replace');
    return asScimError(() => this.db.transaction(ctx, () => this.write(ctx, id, input, {})));
  }

  /** `PATCH /Users/{id}`: the operations applied to the person as read, then written as a PUT of the result. */
  async patch(ctx: RequestContext, id: string, body: unknown): Promise<RawBody> {
    const ops = readPatch(body, SCIM_SCHEMA.user);
    return asScimError(() =>
      this.db.transaction(ctx, async () => {
        const { person, account } = await this.find(ctx, id, true);
        assertIfMatch(ctx, person.version);
        const current = toScimUser(person, account);
        const patched = applyPatch(current, ops);
        const input = readUser(patched, 'patch');
        return this.write(ctx, id, input, {});
      }),
    );
  }

  /**
   * `DELETE /Users/{id}` (204): the account is deactivated (its tokens end, sign-in is refused)
   * and detached from provisioning — no longer a SCIM resource — while the individual and their
   * records stay (docs/identity.md, "Deleting a User").
   */
  async remove(ctx: RequestContext, id: string): Promise<RawBody> {
    await asScimError(() =>
      this.db.transaction(ctx, async () => {
        const { person, account } = await this.find(ctx, id, true);
        assertIfMatch(ctx, person.version);
        await accounts(this.db, ctx).update(account.id, { active: false, deprovisioned: new Date(), updated: new Date() });
        await endTokens(this.db, ctx, account.id);
        await this.individuals(ctx).update(id, {});
      }),
    );
    return NO_CONTENT;
  }

  // ------------------------------------------------------------------ helpers

  /** The person and account of a SCIM id (locked in a write), or 404. */
  private async find(ctx: RequestContext, id: string, lock: boolean): Promise<{ person: IndividualEntity; account: UserEntity }> {
    const gone = () => new NotFoundError('User', id);
    if (!GUID.test(id)) throw gone();
    const person = lock ? await this.individuals(ctx).lock(id.toLowerCase()) : await this.individuals(ctx).findById(id.toLowerCase());
    if (!person || person.deleted || !person.userId) throw gone();
    const account = await this.db.global(ctx, UserEntity).findOneBy({ id: person.userId });
    // A global administrator is not a User of provisioning: never read, changed or deactivated by it.
    if (!account || account.siteId !== ctx.siteId || account.deprovisioned || account.isGlobalAdmin) throw gone();
    return { person, account };
  }

  /** The accounts of these people, in one statement. */
  private async accounts(ctx: RequestContext, people: IndividualEntity[]): Promise<Map<string, UserEntity>> {
    const ids = people.map((p) => p.userId).filter((v): v is string => !!v);
    if (ids.length === 0) return new Map();
    const rows = await this.db.global(ctx, UserEntity).findBy({ id: In(ids), siteId: ctx.siteId });
    return new Map(rows.map((u) => [u.id, u]));
  }

  /**
   * Writes a User's attributes to the person `id` inside the caller's transaction: the person's
   * own fields through IndividualsService (every rule of a PUT, If-Match on the row), then the
   * external id and the sign-in switch. Answers the resource as stored (201 for a create).
   */
  private async write(ctx: RequestContext, id: string, input: UserInput, opts: { created?: boolean; fresh?: boolean }): Promise<RawBody> {
    const { person, account } = await this.find(ctx, id, true);
    if (!opts.fresh) {
      assertIfMatch(ctx, person.version);
      // Provisioning never moves an administrator's sign-in name or e-mail (docs/security.md, "Privileges").
      if (person.isAdmin && (userNameKey(input.userName) !== account.userNameKey || (input.email !== person.email && input.email !== account.email)))
        throw new ScimError(403, null, 'The userName and e-mail of a site administrator are managed in pms-api, not by provisioning');
      // The address is written only when it changes: the account's sign-in e-mail may differ from
      // the work address answered (single sign-on matches by it), and a PATCH of `active` must not move it.
      const fields = input.email === person.email ? { ...personFields(input), Email: undefined, UserEmail: undefined } : personFields(input);
      await this.people.update(ctx, person.id, { ID: person.id, ...fields } as PersonFields);
    }
    if (input.externalId !== undefined && input.externalId !== person.externalId)
      await guardExternalId('individual', input.externalId, () => this.individuals(ctx).update(person.id, { externalId: input.externalId }));
    if (input.active !== undefined && input.active !== account.active) {
      await accounts(this.db, ctx).update(account.id, { active: input.active, updated: new Date() });
      // Deactivation ends every token the person holds, on every instance (docs/identity.md, "Revocation").
      if (!input.active) await endTokens(this.db, ctx, account.id);
      await this.individuals(ctx).update(person.id, {});
    }
    const now = await this.find(ctx, id, false);
    return resourceAnswer(toScimUser(now.person, now.account), now.person.version, { location: opts.created });
  }
}

/** The individual's fields a User sets, as IndividualsService takes them. */
function personFields(input: UserInput) {
  return {
    UserName: input.userName,
    FirstName: input.givenName,
    LastName: input.familyName,
    Email: input.email,
    UserEmail: input.email,
    PrimaryTitle: input.title,
    PrimaryReportsTo: input.managerId,
  };
}

/** The SCIM User of a person and their account (absent attributes left out, as SCIM writes them). */
export function toScimUser(person: IndividualEntity, account: UserEntity): Json {
  const user: Json = {
    schemas: person.primaryReportsTo ? [SCIM_SCHEMA.user, ENTERPRISE] : [SCIM_SCHEMA.user],
    id: person.id,
    ...(person.externalId ? { externalId: person.externalId } : {}),
    userName: account.userName,
    name: { formatted: fullName(person.firstName, person.lastName), familyName: person.lastName, givenName: person.firstName },
    displayName: fullName(person.firstName, person.lastName),
    ...(person.email ? { emails: [{ value: person.email, type: 'work', primary: true }] } : {}),
    ...(person.primaryTitle ? { title: person.primaryTitle } : {}),
    active: !!account.active,
  };
  if (person.primaryReportsTo) user[ENTERPRISE] = { manager: { value: person.primaryReportsTo, $ref: `/scim/v2/Users/${person.primaryReportsTo}` } };
  user.meta = metaOf('User', person.id, person.created, person.updated);
  return user;
}

// ------------------------------------------------------------------ reading a User body

const invalid = (detail: string) => new ScimError(400, 'invalidValue', detail);

function text(value: unknown, attribute: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid(`${attribute} must be a string`);
  const v = value.trim();
  if ([...v].length > max) throw invalid(`${attribute} must be at most ${max} characters`);
  return v || null;
}

/** The address kept of `emails`: the primary one, else the work one, else the first. */
function emailOf(emails: unknown): string | null {
  if (emails === undefined || emails === null) return null;
  if (!Array.isArray(emails)) throw invalid('emails must be a list of { value, type, primary }');
  const list = emails.filter((e): e is Json => !!e && typeof e === 'object');
  const chosen = list.find((e) => booleanOf(e.primary) === true) ?? list.find((e) => String(e.type ?? '').toLowerCase() === 'work') ?? list[0];
  return chosen ? text(chosen.value, 'emails.value', LIMITS.name) : null;
}

/**
 * A User body (or a patched resource) read into what the service stores, or 400 invalidValue
 * naming the attribute. Names missing from `name` come from `name.formatted` or `displayName`
 * ("Given Family"), else the userName; attributes the service does not keep (phoneNumbers,
 * addresses, password…) are ignored.
 */
export function readUser(body: unknown, mode: 'create' | 'replace' | 'patch'): UserInput {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ScimError(400, 'invalidSyntax', 'The body must be a User object');
  const b = body as Json;
  const userName = text(b.userName, 'userName', LIMITS.name);
  if (!userName) throw invalid('userName is required');
  const name = (b.name && typeof b.name === 'object' ? b.name : {}) as Json;
  const whole = text(name.formatted, 'name.formatted', 2 * LIMITS.personName + 1) ?? text(b.displayName, 'displayName', LIMITS.name);
  const parts = whole?.split(/\s+/) ?? [];
  const givenName =
    text(name.givenName, 'name.givenName', LIMITS.personName) ?? (parts.length > 1 ? parts.slice(0, -1).join(' ') : parts[0]) ?? userName.split('@')[0];
  const familyName = text(name.familyName, 'name.familyName', LIMITS.personName) ?? (parts.length > 1 ? parts.at(-1)! : '-');
  for (const [attribute, v] of [
    ['name.givenName', givenName],
    ['name.familyName', familyName],
  ] as const) {
    if ([...v].length > LIMITS.personName) throw invalid(`${attribute} must be at most ${LIMITS.personName} characters`);
  }
  const managerId = managerIdOf(b) ?? null;
  if (managerId !== null && !GUID.test(managerId)) throw invalid(`manager.value ${managerId} is not the id of a User of this site`);
  const active = booleanOf(b.active);
  if (active !== undefined && active !== null && typeof active !== 'boolean') throw invalid('active must be true or false');
  const externalId = text(b.externalId, 'externalId', LIMITS.name);
  return {
    userName,
    givenName,
    familyName,
    email: emailOf(b.emails),
    title: text(b.title, 'title', LIMITS.name),
    managerId: managerId?.toLowerCase() ?? null,
    // A PUT that leaves externalId out keeps it; a PATCH that removed it clears it.
    externalId: externalId ?? (mode === 'patch' || b.externalId === null ? null : undefined),
    active: typeof active === 'boolean' ? active : undefined,
  };
}
