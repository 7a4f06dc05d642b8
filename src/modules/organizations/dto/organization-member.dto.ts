import { LIMITS, field, inputVariant, resource } from '../../../http/wire/resource.js';
import { nameOf } from '../../../common/names.js';
import type { IndividualEntity } from '../../../database/entities/individual.entity.js';
import type { OrganizationEntity } from '../../../database/entities/organization.entity.js';
import type { OrganizationMemberEntity } from '../../../database/entities/organization-member.entity.js';
import { OPTIONAL_ID_DOC } from './organization.dto.js';
import { declareExamples, declareOperationExamples } from '../../../http/wire/examples.js';
import { bulkRequestOf, type BulkRequest } from '../../../http/wire/bulk.js';

/** The two ends of a membership, loaded in batches by the service: IsPrimary and the names come from them. */
export interface MembershipEnds {
  individual: IndividualEntity | undefined;
  organization: OrganizationEntity | undefined;
}

/**
 * OrganizationMember, a department membership (docs/organizations.md): every field declared once
 * (docs/adding-a-resource.md). A membership never moves: update takes only Title (and ID).
 */
export const OrganizationMember = resource<OrganizationMemberEntity, MembershipEnds>()('OrganizationMember', {
  audit: 'audit',
  fields: {
    ID: field.guid('ReqUpd', {
      query: { filter: true },
      description: 'Id of the membership (the relationship between department and individual).',
      create: { description: OPTIONAL_ID_DOC },
      update: {
        required: false,
        description:
          'Required on PUT /departmentmembers/{id} and must equal the path id; on a {pair} path optional, and when given it must be the id of that membership.',
      },
    }),
    SiteID: field.guid('RO'),
    IndividualID: field.fixed.guid('The member. Cannot be changed on update (ignored).', 'A live individual of the site (else 400).', {
      query: { filter: true },
    }),
    OrganizationID: field.fixed.guid(
      'The organization or department. Cannot be changed on update (ignored).',
      'A live organization or department of the site (else 400).',
      { query: { filter: true } },
    ),
    Title: field.string('-', {
      query: { filter: true, sort: true },
      nullable: true,
      max: LIMITS.name,
      description: 'The member’s title in this department.',
      update: { description: 'Absent keeps the title; null clears it.' },
    }),
    IsPrimary: field.bool('RO', {
      from: (e: OrganizationMemberEntity, x: MembershipEnds) => x.individual?.primaryOrganizationId === e.organizationId,
      description:
        'Derived: true when OrganizationID is the individual’s PrimaryOrganizationID. The primary membership cannot be removed (409, problem type urn:pms:problem:primary-membership).',
    }),
    IndividualName: field.string('RO', {
      nullable: true,
      from: (_e: OrganizationMemberEntity, x: MembershipEnds) => nameOf(x.individual),
      description: 'Convenience: the member’s full name (First Last).',
    }),
    OrganizationName: field.string('RO', {
      nullable: true,
      from: (_e: OrganizationMemberEntity, x: MembershipEnds) => x.organization?.name ?? null,
      description: 'Convenience: the name of the organization or department.',
    }),
  },
});

export const OrganizationMemberDto = OrganizationMember.Response;
export type OrganizationMemberDto = InstanceType<typeof OrganizationMemberDto>;
/** Body of POST /departmentmembers: both ends of the membership are required. */
export const CreateOrganizationMemberDto = OrganizationMember.Create;
export type CreateOrganizationMemberDto = InstanceType<typeof CreateOrganizationMemberDto>;
/** Body of PUT: only Title changes. IndividualID and OrganizationID are ignored (a membership never moves). */
export const UpdateOrganizationMemberDto = OrganizationMember.Update;
export type UpdateOrganizationMemberDto = InstanceType<typeof UpdateOrganizationMemberDto>;

/** Body of POST on a `{pair}` path: the path names both ends; body ids, when given, must match it. */
export const CreatePairMemberDto = inputVariant(OrganizationMember, 'CreatePairMemberDto', 'create', {
  IndividualID: { required: false, description: 'Optional; when given it must equal the individual of the path (else 400).' },
  OrganizationID: { required: false, description: 'Optional; when given it must equal the department of the path (else 400).' },
});
export type CreatePairMemberDto = InstanceType<typeof CreatePairMemberDto>;

/**
 * The body of POST /departmentmembers/bulk (docs/bulk.md): a membership is named by its ID, or by
 * its individual and department, each of which may be given by ExternalID.
 */
export const BulkOrganizationMembers = bulkRequestOf('OrganizationMember', {
  create: 'CreateOrganizationMemberDto',
  update: 'UpdateOrganizationMemberDto',
  refs: ['IndividualID', 'OrganizationID'],
});
export type BulkOrganizationMembers = BulkRequest;

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  BulkRequestOfOrganizationMember: {
    body: {
      Items: [
        { Op: 'upsert', Record: { Title: 'Account Executive' }, ExternalRefs: { IndividualID: 'HR-1001', OrganizationID: 'D-110' } },
        { Op: 'upsert', Record: { IndividualID: 'INDIVIDUAL_ID', OrganizationID: 'DEPARTMENT_ID', Title: 'Project lead' } },
      ],
    },
  },
  PatchOrganizationMemberDto: { body: { Title: 'Interim project lead' } },
  CreateOrganizationMemberDto: { body: { IndividualID: 'INDIVIDUAL_ID', OrganizationID: 'DEPARTMENT_ID', Title: 'Project lead' } },
  CreatePairMemberDto: { body: { Title: 'Project lead' } },
  UpdateOrganizationMemberDto: { body: { Title: 'Senior project lead' } },
});

// The membership-by-id route wants the body ID equal to the path id; the pair routes do not.
declareOperationExamples({ 'PUT /v4/departmentmembers/{id}': { body: { ID: 'PATH_ID', Title: 'Senior project lead' } } });
