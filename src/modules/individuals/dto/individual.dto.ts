import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';
import { MIN_PASSWORD_LENGTH } from '../../../auth/password.js';
import { ID_DOC, LIMITS, field, resource, trim } from '../../../http/wire/resource.js';
import { isGuid, ZERO_GUID } from '../../../http/wire/wire.js';
import { formalName, fullName, fullOrderedName } from '../../../common/names.js';
import type { Rights } from '../../../authorization/access.service.js';
import type { LastComment } from '../../../database/queries/last-comment.js';
import type { UserEntity } from '../../../database/entities/user.entity.js';
import type { IndividualEntity } from '../../../database/entities/individual.entity.js';
import { declareExamples, exampleDate } from '../../../http/wire/examples.js';
import { externalIdField } from '../../../http/wire/external-id.js';
import { bulkRequestOf, type BulkRequest } from '../../../http/wire/bulk.js';

/** A bound of this service (docs/operations.md, input limits) so a huge body cannot make scrypt work on megabytes. */
export const PASSWORD_MAX = 256;

/** What the derived members need beyond the row itself, loaded in batches by the service. */
export interface IndividualExtras {
  user: UserEntity | null;
  organizationName: string | null;
  lastComment: LastComment | null;
  rights: Rights;
}

type E = IndividualEntity;
type X = IndividualExtras;

/** A member of the newest live comment on the individual, null when there is none (the four LastComment… fields). */
function ofLastComment(key: 'created'): (_e: E, x: X) => Date | null;
function ofLastComment(key: 'body' | 'authorId' | 'authorName'): (_e: E, x: X) => string | null;
function ofLastComment(key: keyof LastComment) {
  return (_e: E, x: X) => x.lastComment?.[key] ?? null;
}

/**
 * A guid that must be sent (the key present), where null and the all-zero guid mean "nobody".
 * `@InputField` cannot say that: its optional fields skip validation when null or absent alike.
 */
function RequiredGuidOrNobody(description: string): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => {
      if (typeof value !== 'string') return value;
      const v = value.trim().toLowerCase();
      if (v === '' || v === ZERO_GUID) return null;
      return isGuid(v) ? v : value;
    }),
    ValidateBy({
      name: 'is-guid-or-nobody',
      validator: {
        validate: (value: unknown) => value === null || isGuid(value),
        defaultMessage: (args) => {
          const field = args?.property ?? 'value';
          return args?.value === undefined
            ? `${field} is required (null or the all-zero guid for nobody)`
            : `${field} must be a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)`;
        },
      },
    }),
    ApiProperty({ type: String, format: 'uuid', required: true, nullable: true, description }),
  ) as PropertyDecorator;
}

const IS_ADMIN_INPUT = 'Site administrator. Default false on create; only an administrator may change it.';
const HIRE_DATE_INPUT = 'Date of hire. Absent keeps it on update, null clears it.';
const USER_NAME_INPUT = 'Login name; unique across all sites, case-insensitive.';
const KEEP_OR_CLEAR = 'Absent keeps the value; null clears it.';
const FREE_FIELD = { nullable: true, max: LIMITS.name, description: 'Free field for the integrator.' } as const;
const PASSWORD_DOC = `Deprecated, may be removed. Write-only: sets the login password, at least ${MIN_PASSWORD_LENGTH} characters (400 otherwise). Null or an empty string leave the password unchanged.`;
/** Documented only: without a validation decorator the global pipe drops it whatever it holds. */
const PARENT_INPUT = ApiProperty({
  // No format: it is never validated, so the document admits any text (as the service does).
  type: String,
  required: false,
  nullable: true,
  deprecated: true,
  description: 'Deprecated and unused: accepted and ignored (never validated, never stored).',
});

/**
 * Individual (docs/individuals.md): every field declared once (docs/adding-a-resource.md). The login data
 * (UserName, Password, UserEmail) live on the account, not in a column: the service writes them.
 */
export const Individual = resource<E, X>()('Individual', {
  fields: {
    ID: field.guid('ReqUpd', {
      query: { filter: true },
      description: 'Id of the individual. Optional on create (used if free, else 409 id-taken); on update it must equal the id in the path.',
      create: { description: ID_DOC.create },
      update: { description: ID_DOC.update },
    }),
    SiteID: field.guid('RO', { description: 'The site (tenant) of the individual.' }),
    IsAdmin: field.bool('-', {
      description:
        'Site administrator. Default false. Only an administrator may change it: a non-administrator may send the current value (403 for a different one).',
      nullIsAbsent: true,
      create: { description: IS_ADMIN_INPUT },
      update: { description: IS_ADMIN_INPUT },
    }),
    UserID: field.guid('RO', { nullable: true, description: 'Id of the login account (the PrincipalID of this user in Permission records).' }),
    Prefix: field.string('-', { nullable: true, max: LIMITS.affix, description: 'Name prefix, e.g. "Dr.".' }),
    Suffix: field.string('-', { nullable: true, max: LIMITS.affix, description: 'Name suffix, e.g. "Jr.".' }),
    FirstName: field.string('Req', {
      query: { filter: true, sort: true },
      max: LIMITS.personName,
      min: 1,
      write: trim,
      description: 'Given name; not blank.',
    }),
    LastName: field.string('Req', {
      query: { filter: true, sort: true, then: ['firstName'] },
      max: LIMITS.personName,
      min: 1,
      write: trim,
      description: 'Family name; not blank.',
    }),
    UserDefined1: field.string('-', FREE_FIELD),
    UserDefined2: field.string('-', FREE_FIELD),
    UserDefined3: field.string('-', FREE_FIELD),
    UserDefined4: field.string('-', FREE_FIELD),
    Email: field.string('ReqCre', {
      query: { filter: true, sort: true },
      nullable: true,
      max: LIMITS.name,
      description: 'Work e-mail address of the individual. On update: absent keeps it, null clears it.',
      create: { min: 1 },
      update: { description: KEEP_OR_CLEAR },
    }),
    PrimaryOrganizationID: field.guid('ReqCre', {
      query: { filter: true },
      nullable: true,
      description:
        'Primary organization or department: a live one of the same site (else 400). Creating the individual creates this primary membership; changing it moves the membership. On update absent, null or all zeros keep the current value.',
      nullIsAbsent: true,
      create: { description: 'A live organization or department of the site.' },
      update: { description: 'Absent, null or all zeros keep the value; another id moves the primary membership.' },
    }),
    PrimaryTitle: field.string('ReqCre', {
      nullable: true,
      max: LIMITS.name,
      description: 'Title in the primary organization (also the Title of the primary membership).',
      update: { description: KEEP_OR_CLEAR },
    }),
    PrimaryReportsTo: field.guid('ReqCre', {
      query: { filter: true },
      nullable: true,
      description:
        'The individual this one reports to, of the same site (else 400). Null or the all-zero guid means nobody. A reporting cycle (including the individual itself) is 409 with code cycle.',
      create: {
        decorator: RequiredGuidOrNobody(
          'Required (ReqCre): the field must be sent, but null (i:nil) or the all-zero guid are accepted and mean "reports to nobody" (the top of the chart). Otherwise an individual of the same site (else 400).',
        ),
      },
      update: { description: 'Absent keeps the value; null or the all-zero guid mean nobody.' },
    }),
    UserName: field.string('Req', {
      nullable: true,
      max: LIMITS.name,
      min: 1,
      column: null,
      from: (_e: E, x: X) => x.user?.userName ?? null,
      description: 'Login name; unique across all sites, case-insensitive (409 duplicate-username).',
      create: { description: USER_NAME_INPUT },
      update: { description: USER_NAME_INPUT },
    }),
    Password: field.string('-', {
      nullable: true,
      column: null,
      description: `Deprecated, may be removed. Write-only: sets the account password (at least ${MIN_PASSWORD_LENGTH} characters); always answered null.`,
      create: { max: PASSWORD_MAX, description: PASSWORD_DOC },
      update: { max: PASSWORD_MAX, description: PASSWORD_DOC },
    }),
    ParentID: field.guid('ReqCre', {
      nullable: true,
      column: null,
      description: 'Deprecated and unused: accepted on input and ignored, always answered null.',
      create: { decorator: PARENT_INPUT },
      update: { decorator: PARENT_INPUT },
    }),
    PrimaryOrganizationName: field.string('RO', {
      nullable: true,
      from: (_e: E, x: X) => x.organizationName,
      description: 'Name of the primary organization or department.',
    }),
    FullName: field.string('RO', { from: (e: E) => fullName(e.firstName, e.lastName), description: '"First Last".' }),
    FormalName: field.string('RO', {
      from: (e: E) => formalName(e.prefix, e.firstName, e.lastName, e.suffix),
      description: '"Prefix First Last, Suffix" with only the parts that are present.',
    }),
    FullOrderedName: field.string('RO', { from: (e: E) => fullOrderedName(e.firstName, e.lastName), description: '"Last, First".' }),
    // The audit members stand here, not at the end, in this record (JSON keeps this order).
    Deleted: field.bool('RO', {
      query: { filter: true },
      description: 'Soft-deleted (DELETE /individuals/{id}); undone by PUT /individuals/{id}/undelete. A deleted individual cannot log in.',
    }),
    DeletedByRef: field.bool('RO', { description: 'Deleted by reference (through the deletion of a record it belongs to).' }),
    Created: field.date('RO'),
    Updated: field.date('RO', { query: { filter: true, sort: true } }),
    CreatedBy: field.guid('RO', { nullable: true, description: 'Individual id of the creator.' }),
    UpdatedBy: field.guid('RO', { nullable: true, description: 'Individual id of the last writer.' }),
    IsGlobalAdmin: field.bool('RO', {
      from: (_e: E, x: X) => x.user?.isGlobalAdmin ?? false,
      description: 'The login account is a global administrator (all sites).',
    }),
    UserEmail: field.string('ReqCre', {
      nullable: true,
      max: LIMITS.name,
      column: null,
      from: (_e: E, x: X) => x.user?.email ?? null,
      description: 'Deprecated, may be removed. E-mail address of the login account. On update: absent keeps it, null clears it.',
      create: { description: 'Deprecated, may be removed. E-mail address of the login account.' },
      update: { description: 'Deprecated. Absent keeps the value; null clears it.' },
    }),
    LastComment: field.string('RO', { nullable: true, from: ofLastComment('body'), description: 'Body of the newest live comment on the individual.' }),
    LastCommentDate: field.dateTimeOffset('RO', {
      nullable: true,
      from: ofLastComment('created'),
      description: 'When the newest live comment on the individual was written.',
    }),
    LastCommentByID: field.guid('RO', { nullable: true, from: ofLastComment('authorId'), description: 'Individual id of the author of the newest comment.' }),
    LastCommentBy: field.string('RO', {
      nullable: true,
      from: ofLastComment('authorName'),
      description: 'Name ("First Last") of the author of the newest comment.',
    }),
    CanRead: field.bool('RO', { from: (_e: E, x: X) => x.rights.read, description: 'The caller may read this individual.' }),
    CanUpdate: field.bool('RO', {
      from: (_e: E, x: X) => x.rights.update,
      description: 'The caller may update this individual (administrator, the individual, or someone above them in the PrimaryReportsTo chain).',
    }),
    CanDelete: field.bool('RO', { from: (_e: E, x: X) => x.rights.delete, description: 'The caller may delete this individual (administrators).' }),
    CanDelegate: field.bool('RO', { from: (_e: E, x: X) => x.rights.delegate, description: 'The caller may manage Permission records on this individual.' }),
    SendEvalSurvey: field.bool('RO', { description: 'Whether evaluation surveys are sent to the individual (set by the service).' }),
    HireDate: field.date('-', {
      query: { filter: true, sort: true },
      nullable: true,
      description: 'Date of hire.',
      create: { description: HIRE_DATE_INPUT },
      update: { description: HIRE_DATE_INPUT },
    }),
    ExternalID: externalIdField('individual'),
  },
});

export const { Response: IndividualDto, Create: CreateIndividualDto, Update: UpdateIndividualDto } = Individual;
export type IndividualDto = InstanceType<typeof IndividualDto>;
export type CreateIndividualDto = InstanceType<typeof CreateIndividualDto>;
export type UpdateIndividualDto = InstanceType<typeof UpdateIndividualDto>;

/** The body of POST /individuals/bulk (docs/bulk.md): the manager and the primary organization may be named by ExternalID. */
export const BulkIndividuals = bulkRequestOf('Individual', {
  create: 'CreateIndividualDto',
  update: 'UpdateIndividualDto',
  refs: ['PrimaryOrganizationID', 'PrimaryReportsTo'],
});
export type BulkIndividuals = BulkRequest;

/** `deleted` (a byte, docs/http-and-xml.md: 0 not deleted, the default; 1 deleted; 2 all), `limit`, `offset`. */

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchIndividualDto: { body: { PrimaryTitle: 'Team lead', UserDefined1: null } },
  CreateIndividualDto: {
    body: {
      FirstName: 'Jane',
      LastName: 'Doe',
      UserName: 'jane.doe',
      Password: 'choose-a-good-password',
      Email: 'jane.doe@example.com',
      UserEmail: 'jane.doe@example.com',
      PrimaryOrganizationID: 'ORGANIZATION_ID',
      PrimaryTitle: 'Account Executive',
      PrimaryReportsTo: null,
      HireDate: exampleDate('2026-03-01'),
      IsAdmin: false,
    },
  },
  BulkRequestOfIndividual: {
    body: {
      Items: [
        {
          Op: 'upsert',
          Record: {
            ExternalID: 'HR-1001',
            FirstName: 'Jane',
            LastName: 'Doe',
            UserName: 'jane.doe.hr1001',
            Email: 'jane.doe@example.com',
            UserEmail: 'jane.doe@example.com',
            PrimaryOrganizationID: 'ORGANIZATION_ID',
            PrimaryTitle: 'Account Executive',
            PrimaryReportsTo: null,
          },
          ExternalRefs: { PrimaryReportsTo: 'HR-1000' },
        },
        {
          Op: 'upsert',
          Record: {
            ExternalID: 'HR-1000',
            FirstName: 'John',
            LastName: 'Roe',
            UserName: 'john.roe.hr1000',
            Email: 'john.roe@example.com',
            UserEmail: 'john.roe@example.com',
            PrimaryOrganizationID: 'ORGANIZATION_ID',
            PrimaryTitle: 'Sales Director',
            PrimaryReportsTo: null,
          },
        },
      ],
    },
  },
  UpdateIndividualDto: { body: { ID: 'PATH_ID', FirstName: 'Jane', LastName: 'Doe-Smith', UserName: 'USER_NAME', PrimaryTitle: 'Senior Account Executive' } },
});
