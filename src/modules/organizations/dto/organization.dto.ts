import { LIMITS, field, resource, trim } from '../../../http/wire/resource.js';
import { ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION, type OrganizationEntity } from '../../../database/entities/organization.entity.js';
import { declareExamples } from '../../../http/wire/examples.js';
import { externalIdField } from '../../../http/wire/external-id.js';
import { bulkRequestOf, type BulkRequest } from '../../../http/wire/bulk.js';

/** The row types an Organization record takes (spec: organization 4, department 56). */
export const ORGANIZATION_ROW_TYPES = [ROW_TYPE_ORGANIZATION, ROW_TYPE_DEPARTMENT] as const;

/** Description is stored as TEXT: 10,000 characters stay within MySQL's 64 KiB even in 4-byte UTF-8. */
export const DESCRIPTION_MAX = 10_000;

/** Input description of an optional guid ID on create (organizations and memberships). */
export const OPTIONAL_ID_DOC = 'Optional; generated when absent or all zeros. 409 (id-taken) when already used.';

/** Organization, for organizations and departments (docs/organizations.md): every field declared once (docs/adding-a-resource.md). */
export const Organization = resource<OrganizationEntity>()('Organization', {
  audit: 'softDelete',
  // Lists may filter on Deleted and filter and sort on Updated (docs/queries.md).
  auditQuery: { Deleted: { filter: true }, Updated: { filter: true, sort: true } },
  fields: {
    ID: field.guid('ReqUpd', { query: { filter: true }, create: { description: OPTIONAL_ID_DOC }, update: { description: 'Must equal the id of the path.' } }),
    SiteID: field.guid('RO'),
    ParentID: field.guid('-', {
      query: { filter: true },
      nullable: true,
      description:
        'The parent organization or department (null for a top-level record). Must name a live organization or department of the site (else 400) and never make the record its own ancestor (409, problem type urn:pms:problem:cycle).',
      create: { description: 'Parent organization or department; null or absent for a top-level record.' },
      update: { description: 'Absent keeps the parent; null makes the record top-level. Changing it requires an administrator.' },
    }),
    Name: field.string('Req', { query: { filter: true, sort: true }, max: LIMITS.name, min: 1, write: trim }),
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
    Rank: {
      ...field.rank('Sort order: lists are ordered by Rank, then Name. Default 0.', { update: 'Absent keeps the value; null sets 0.' }),
      query: { filter: true, sort: true, then: ['name'] },
    },
    ExternalID: externalIdField('organization or department', 'organizations and departments'),
  },
});

export const { Response: OrganizationDto, Create: CreateOrganizationDto, Update: UpdateOrganizationDto } = Organization;
export type OrganizationDto = InstanceType<typeof OrganizationDto>;
export type CreateOrganizationDto = InstanceType<typeof CreateOrganizationDto>;
export type UpdateOrganizationDto = InstanceType<typeof UpdateOrganizationDto>;

/** The body of POST /departments/bulk (docs/bulk.md): the parent and the manager may be named by ExternalID. */
export const BulkOrganizations = bulkRequestOf('Organization', {
  create: 'CreateOrganizationDto',
  update: 'UpdateOrganizationDto',
  refs: ['ManagerID', 'ParentID'],
});
export type BulkOrganizations = BulkRequest;

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchOrganizationDto: { body: { Description: 'New business, renewals and partner sales' } },
  BulkRequestOfOrganization: {
    body: {
      Items: [
        { Op: 'upsert', Record: { Name: 'Inside Sales', ExternalID: 'D-110', RowType: 56 }, ExternalRefs: { ParentID: 'D-100' } },
        { Op: 'upsert', Record: { Name: 'Sales', ExternalID: 'D-100', RowType: 56 } },
      ],
    },
  },
  CreateOrganizationDto: { body: { Name: 'Sales', Description: 'New business and renewals', RowType: 56, Rank: 1 } },
  UpdateOrganizationDto: { body: { ID: 'PATH_ID', Name: 'Sales and Marketing', Description: 'New business, renewals and campaigns', Rank: 1 } },
});
