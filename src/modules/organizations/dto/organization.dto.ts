import { LIMITS, field, resource, trim } from '../../../common/http/resource.js';
import { ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION, type OrganizationEntity } from '../../../database/entities/organization.entity.js';

/** The row types an Organization record takes (spec: organization 4, department 56). */
export const ORGANIZATION_ROW_TYPES = [ROW_TYPE_ORGANIZATION, ROW_TYPE_DEPARTMENT] as const;

/** Description is stored as TEXT: 10,000 characters stay within MySQL's 64 KiB even in 4-byte UTF-8. */
export const DESCRIPTION_MAX = 10_000;

/** Input description of an optional guid ID on create (organizations and memberships). */
export const OPTIONAL_ID_DOC = 'Optional; generated when absent or all zeros. 409 (id-taken) when already used.';

/** Organization, for organizations and departments (docs/organizations.md): every field declared once (docs/adding-a-resource.md). */
export const Organization = resource<OrganizationEntity>()('Organization', {
  audit: 'softDelete',
  fields: {
    ID: field.guid('ReqUpd', { create: { description: OPTIONAL_ID_DOC }, update: { description: 'Must equal the id of the path.' } }),
    SiteID: field.guid('RO'),
    ParentID: field.guid('-', {
      nullable: true,
      description:
        'The parent organization or department (null for a top-level record). Must name a live organization or department of the site (else 400) and never make the record its own ancestor (409, problem type urn:pms:problem:cycle).',
      create: { description: 'Parent organization or department; null or absent for a top-level record.' },
      update: { description: 'Absent keeps the parent; null makes the record top-level. Changing it requires an administrator.' },
    }),
    Name: field.string('Req', { max: LIMITS.name, min: 1, write: trim }),
    Description: field.string('-', { nullable: true, max: DESCRIPTION_MAX, update: { description: 'Absent keeps the value; null clears it.' } }),
    RowType: field.int('-', {
      enum: ORGANIZATION_ROW_TYPES,
      description: 'Row type: 4 organization, 56 department. Default 56 when created through /departments.',
      createDefault: ROW_TYPE_DEPARTMENT,
      nullIsAbsent: true,
      create: { description: '4 organization, 56 department (default).' },
      update: { description: 'Absent or null keeps the value. Changing it requires an administrator.' },
    }),
    ManagerID: field.guid('-', {
      nullable: true,
      description: 'Individual who manages it. Must name a live individual of the site (else 400).',
      update: { description: 'Absent keeps the manager; null clears it. Changing it requires an administrator.' },
    }),
    Rank: field.rank('Sort order: lists are ordered by Rank, then Name. Default 0.', { update: 'Absent keeps the value; null sets 0.' }),
  },
});

export const { Response: OrganizationDto, Create: CreateOrganizationDto, Update: UpdateOrganizationDto } = Organization;
export type OrganizationDto = InstanceType<typeof OrganizationDto>;
export type CreateOrganizationDto = InstanceType<typeof CreateOrganizationDto>;
export type UpdateOrganizationDto = InstanceType<typeof UpdateOrganizationDto>;
