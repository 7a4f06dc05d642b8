import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';
import { MIN_PASSWORD_LENGTH } from '../../../common/auth/password.js';
import { InputField, isGuid, WireField, WireType, ZERO_GUID } from '../../../common/http/wire.js';
import { DeletedQuery } from '../../../common/pagination/pagination.js';
import type { Rights } from '../../permissions/access.service.js';
import type { LastComment } from '../../comments/last-comment.query.js';
import type { UserEntity } from '../../auth/user.entity.js';
import type { IndividualEntity } from '../individual.entity.js';

/** Limits of the spec's Limits table (and of the account columns for the deprecated fields). */
export const INDIVIDUAL_LIMITS = {
  prefix: 25,
  suffix: 25,
  name: 50,
  text: 255,
  /** Not in the spec: a bound so a huge body cannot make scrypt work on megabytes. */
  password: 256,
} as const;

/** What `IndividualDto.from` needs beyond the row itself, loaded in batches by the service. */
export interface IndividualExtras {
  user: UserEntity | null;
  organizationName: string | null;
  lastComment: LastComment | null;
  rights: Rights;
}

const present = (s: string | null | undefined): s is string => typeof s === 'string' && s.trim() !== '';

/** "First Last". */
export function fullName(first: string | null, last: string | null): string {
  return [first, last].filter(present).join(' ');
}

/** "Prefix First Last, Suffix", with only the parts that are present. */
export function formalName(prefix: string | null, first: string | null, last: string | null, suffix: string | null): string {
  const main = [prefix, first, last].filter(present).join(' ');
  return present(suffix) ? (main ? `${main}, ${suffix}` : suffix) : main;
}

/** "Last, First" (just the one that is present when the other is blank). */
export function fullOrderedName(first: string | null, last: string | null): string {
  return [last, first].filter(present).join(', ');
}

@WireType('Individual')
export class IndividualDto {
  @WireField('guid', {
    access: 'ReqUpd',
    description: 'Id of the individual. Optional on create (used if free, else 409 id-taken); on update it must equal the id in the path.',
  })
  ID: string;

  @WireField('guid', { access: 'RO', description: 'The site (tenant) of the individual.' })
  SiteID: string;

  @WireField('bool', {
    access: '-',
    description:
      'Site administrator. Default false. Only an administrator may change it: a non-administrator may send the current value (403 for a different one).',
  })
  IsAdmin: boolean;

  @WireField('guid', { nullable: true, access: 'RO', description: 'Id of the login account (the PrincipalID of this user in Permission records).' })
  UserID: string | null;

  @WireField('string', { nullable: true, access: '-', max: INDIVIDUAL_LIMITS.prefix, description: 'Name prefix, e.g. "Dr.".' })
  Prefix: string | null;

  @WireField('string', { nullable: true, access: '-', max: INDIVIDUAL_LIMITS.suffix, description: 'Name suffix, e.g. "Jr.".' })
  Suffix: string | null;

  @WireField('string', { access: 'Req', max: INDIVIDUAL_LIMITS.name, description: 'Given name; not blank.' })
  FirstName: string;

  @WireField('string', { access: 'Req', max: INDIVIDUAL_LIMITS.name, description: 'Family name; not blank.' })
  LastName: string;

  @WireField('string', { nullable: true, access: '-', max: INDIVIDUAL_LIMITS.text, description: 'Free field for the integrator.' })
  UserDefined1: string | null;

  @WireField('string', { nullable: true, access: '-', max: INDIVIDUAL_LIMITS.text, description: 'Free field for the integrator.' })
  UserDefined2: string | null;

  @WireField('string', { nullable: true, access: '-', max: INDIVIDUAL_LIMITS.text, description: 'Free field for the integrator.' })
  UserDefined3: string | null;

  @WireField('string', { nullable: true, access: '-', max: INDIVIDUAL_LIMITS.text, description: 'Free field for the integrator.' })
  UserDefined4: string | null;

  @WireField('string', {
    nullable: true,
    access: 'ReqCre',
    max: INDIVIDUAL_LIMITS.text,
    description: 'Work e-mail address of the individual. On update: absent keeps it, null clears it.',
  })
  Email: string | null;

  @WireField('guid', {
    nullable: true,
    access: 'ReqCre',
    description:
      'Primary organization or department: a live one of the same site (else 400). Creating the individual creates this primary membership; changing it moves the membership. On update absent, null or all zeros keep the current value.',
  })
  PrimaryOrganizationID: string | null;

  @WireField('string', {
    nullable: true,
    access: 'ReqCre',
    max: INDIVIDUAL_LIMITS.text,
    description: 'Title in the primary organization (also the Title of the primary membership).',
  })
  PrimaryTitle: string | null;

  @WireField('guid', {
    nullable: true,
    access: 'ReqCre',
    description:
      'The individual this one reports to, of the same site (else 400). Null or the all-zero guid means nobody. A reporting cycle (including the individual itself) is 409 with code cycle.',
  })
  PrimaryReportsTo: string | null;

  @WireField('string', {
    nullable: true,
    access: 'Req',
    max: INDIVIDUAL_LIMITS.text,
    description: 'Login name; unique across all sites, case-insensitive (409 duplicate-username).',
  })
  UserName: string | null;

  @WireField('string', {
    nullable: true,
    access: '-',
    description: `Deprecated, may be removed. Write-only: sets the account password (at least ${MIN_PASSWORD_LENGTH} characters); always answered null.`,
  })
  Password: null;

  @WireField('guid', { nullable: true, access: 'ReqCre', description: 'Deprecated and unused: accepted on input and ignored, always answered null.' })
  ParentID: null;

  @WireField('string', { nullable: true, access: 'RO', description: 'Name of the primary organization or department.' })
  PrimaryOrganizationName: string | null;

  @WireField('string', { access: 'RO', description: '"First Last".' })
  FullName: string;

  @WireField('string', { access: 'RO', description: '"Prefix First Last, Suffix" with only the parts that are present.' })
  FormalName: string;

  @WireField('string', { access: 'RO', description: '"Last, First".' })
  FullOrderedName: string;

  @WireField('bool', {
    access: 'RO',
    description: 'Soft-deleted (DELETE /individuals/{id}); undone by PUT /individuals/{id}/undelete. A deleted individual cannot log in.',
  })
  Deleted: boolean;

  @WireField('bool', { access: 'RO', description: 'Deleted by reference (through the deletion of a record it belongs to).' })
  DeletedByRef: boolean;

  @WireField('date', { access: 'RO' })
  Created: Date;

  @WireField('date', { access: 'RO' })
  Updated: Date;

  @WireField('guid', { nullable: true, access: 'RO', description: 'Individual id of the creator.' })
  CreatedBy: string | null;

  @WireField('guid', { nullable: true, access: 'RO', description: 'Individual id of the last writer.' })
  UpdatedBy: string | null;

  @WireField('bool', { access: 'RO', description: 'The login account is a global administrator (all sites).' })
  IsGlobalAdmin: boolean;

  @WireField('string', {
    nullable: true,
    access: 'ReqCre',
    max: INDIVIDUAL_LIMITS.text,
    description: 'Deprecated, may be removed. E-mail address of the login account. On update: absent keeps it, null clears it.',
  })
  UserEmail: string | null;

  @WireField('string', { nullable: true, access: 'RO', description: 'Body of the newest live comment on the individual.' })
  LastComment: string | null;

  @WireField('dateTimeOffset', { nullable: true, access: 'RO', description: 'When the newest live comment on the individual was written.' })
  LastCommentDate: Date | null;

  @WireField('guid', { nullable: true, access: 'RO', description: 'Individual id of the author of the newest comment.' })
  LastCommentByID: string | null;

  @WireField('string', { nullable: true, access: 'RO', description: 'Name ("First Last") of the author of the newest comment.' })
  LastCommentBy: string | null;

  @WireField('bool', { access: 'RO', description: 'The caller may read this individual.' })
  CanRead: boolean;

  @WireField('bool', {
    access: 'RO',
    description: 'The caller may update this individual (administrator, the individual, or someone above them in the PrimaryReportsTo chain).',
  })
  CanUpdate: boolean;

  @WireField('bool', { access: 'RO', description: 'The caller may delete this individual (administrators).' })
  CanDelete: boolean;

  @WireField('bool', { access: 'RO', description: 'The caller may manage Permission records on this individual.' })
  CanDelegate: boolean;

  @WireField('bool', { access: 'RO', description: 'Whether evaluation surveys are sent to the individual (set by the service).' })
  SendEvalSurvey: boolean;

  @WireField('date', { nullable: true, access: '-', description: 'Date of hire.' })
  HireDate: Date | null;

  static from(e: IndividualEntity, x: IndividualExtras): IndividualDto {
    return Object.assign(new IndividualDto(), {
      ID: e.id,
      SiteID: e.siteId,
      IsAdmin: e.isAdmin,
      UserID: e.userId,
      Prefix: e.prefix,
      Suffix: e.suffix,
      FirstName: e.firstName,
      LastName: e.lastName,
      UserDefined1: e.userDefined1,
      UserDefined2: e.userDefined2,
      UserDefined3: e.userDefined3,
      UserDefined4: e.userDefined4,
      Email: e.email,
      PrimaryOrganizationID: e.primaryOrganizationId,
      PrimaryTitle: e.primaryTitle,
      PrimaryReportsTo: e.primaryReportsTo,
      UserName: x.user?.userName ?? null,
      Password: null,
      ParentID: null,
      PrimaryOrganizationName: x.organizationName,
      FullName: fullName(e.firstName, e.lastName),
      FormalName: formalName(e.prefix, e.firstName, e.lastName, e.suffix),
      FullOrderedName: fullOrderedName(e.firstName, e.lastName),
      Deleted: e.deleted,
      DeletedByRef: e.deletedByRef,
      Created: e.created,
      Updated: e.updated,
      CreatedBy: e.createdBy,
      UpdatedBy: e.updatedBy,
      IsGlobalAdmin: x.user?.isGlobalAdmin ?? false,
      UserEmail: x.user?.email ?? null,
      LastComment: x.lastComment?.body ?? null,
      LastCommentDate: x.lastComment?.created ?? null,
      LastCommentByID: x.lastComment?.authorId ?? null,
      LastCommentBy: x.lastComment?.authorName ?? null,
      CanRead: x.rights.read,
      CanUpdate: x.rights.update,
      CanDelete: x.rights.delete,
      CanDelegate: x.rights.delegate,
      SendEvalSurvey: e.sendEvalSurvey,
      HireDate: e.hireDate,
    });
  }
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

const PASSWORD_DOC = `Deprecated, may be removed. Write-only: sets the login password, at least ${MIN_PASSWORD_LENGTH} characters (400 otherwise). Null or an empty string leave the password unchanged.`;
const PARENT_DOC = 'Deprecated and unused: accepted and ignored (never validated, never stored).';

/** The fields create and update share (the writable ones besides the Req/ReqCre differences). */
abstract class IndividualWriteBase {
  @InputField('bool', { description: 'Site administrator. Default false on create; only an administrator may change it.' })
  IsAdmin?: boolean | null;

  @InputField('string', { max: INDIVIDUAL_LIMITS.prefix })
  Prefix?: string | null;

  @InputField('string', { max: INDIVIDUAL_LIMITS.suffix })
  Suffix?: string | null;

  @InputField('string', { required: true, max: INDIVIDUAL_LIMITS.name, min: 1 })
  FirstName: string;

  @InputField('string', { required: true, max: INDIVIDUAL_LIMITS.name, min: 1 })
  LastName: string;

  @InputField('string', { max: INDIVIDUAL_LIMITS.text })
  UserDefined1?: string | null;

  @InputField('string', { max: INDIVIDUAL_LIMITS.text })
  UserDefined2?: string | null;

  @InputField('string', { max: INDIVIDUAL_LIMITS.text })
  UserDefined3?: string | null;

  @InputField('string', { max: INDIVIDUAL_LIMITS.text })
  UserDefined4?: string | null;

  @InputField('string', { required: true, max: INDIVIDUAL_LIMITS.text, min: 1, description: 'Login name; unique across all sites, case-insensitive.' })
  UserName: string;

  @InputField('string', { max: INDIVIDUAL_LIMITS.password, description: PASSWORD_DOC })
  Password?: string | null;

  /** Documented only: without a validation decorator the global pipe drops it whatever it holds. */
  @ApiProperty({ type: String, format: 'uuid', required: false, nullable: true, deprecated: true, description: PARENT_DOC })
  ParentID?: unknown;

  @InputField('date', { description: 'Date of hire. Absent keeps it on update, null clears it.' })
  HireDate?: Date | null;
}

export class CreateIndividualDto extends IndividualWriteBase {
  @InputField('guid', { description: 'Optional; generated when absent or all zeros; 409 id-taken when already used.' })
  ID?: string | null;

  @InputField('string', { required: true, max: INDIVIDUAL_LIMITS.text, min: 1 })
  Email: string;

  @InputField('guid', { required: true, description: 'A live organization or department of the site.' })
  PrimaryOrganizationID: string;

  @InputField('string', { required: true, max: INDIVIDUAL_LIMITS.text })
  PrimaryTitle: string;

  @RequiredGuidOrNobody(
    'Required (ReqCre): the field must be sent, but null (i:nil) or the all-zero guid are accepted and mean "reports to nobody" (the top of the chart). Otherwise an individual of the same site (else 400).',
  )
  PrimaryReportsTo: string | null;

  @InputField('string', { required: true, max: INDIVIDUAL_LIMITS.text, description: 'Deprecated, may be removed. E-mail address of the login account.' })
  UserEmail: string;
}

export class UpdateIndividualDto extends IndividualWriteBase {
  @InputField('guid', { required: true, description: 'Must equal the id in the path.' })
  ID: string;

  @InputField('string', { max: INDIVIDUAL_LIMITS.text, description: 'Absent keeps the value; null clears it.' })
  Email?: string | null;

  @InputField('guid', { description: 'Absent, null or all zeros keep the value; another id moves the primary membership.' })
  PrimaryOrganizationID?: string | null;

  @InputField('string', { max: INDIVIDUAL_LIMITS.text, description: 'Absent keeps the value; null clears it.' })
  PrimaryTitle?: string | null;

  @InputField('guid', { description: 'Absent keeps the value; null or the all-zero guid mean nobody.' })
  PrimaryReportsTo?: string | null;

  @InputField('string', { max: INDIVIDUAL_LIMITS.text, description: 'Deprecated. Absent keeps the value; null clears it.' })
  UserEmail?: string | null;
}

/** `deleted` (typed byte in the spec: 0 not deleted, the default; 1 deleted; 2 all), `limit`, `offset`. */
export class IndividualListQuery extends DeletedQuery {}
