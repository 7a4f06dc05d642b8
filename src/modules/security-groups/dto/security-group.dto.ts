import { LIMITS, field, resource, trim } from '../../../http/wire/resource.js';
import type { SecurityGroupEntity } from '../../../database/entities/security-group.entity.js';
import { declareExamples } from '../../../http/wire/examples.js';
import { InputField } from '../../../http/wire/wire.js';
import { bulkRequestOf, type BulkRequest } from '../../../http/wire/bulk.js';

export const SECURITY_GROUP_DESCRIPTION_MAX = 4000;

export interface MemberRow {
  individualId: string;
  fullName: string | null;
}

/** One entry of `SecurityGroup.Members`; XML element `SecurityGroupMember`. */
export const SecurityGroupMember = resource<MemberRow>()('SecurityGroupMember', {
  fields: {
    IndividualID: field.guid('RO', { column: 'individualId', description: 'An individual of the site.' }),
    FullName: field.string('RO', { nullable: true, column: 'fullName', description: 'First Last.' }),
  },
});
export const SecurityGroupMemberDto = SecurityGroupMember.Response;
export type SecurityGroupMemberDto = InstanceType<typeof SecurityGroupMemberDto>;

export interface SecurityGroupExtras {
  members: ReadonlyMap<string, readonly MemberRow[]>;
}

/**
 * A security group (docs/authorization.md): a named set of individuals that Permission records can
 * name as their principal. Members are changed through their own paths.
 */
export const SecurityGroup = resource<SecurityGroupEntity, SecurityGroupExtras>()('SecurityGroup', {
  audit: 'audit',
  fields: {
    ID: { ...field.id(), query: { filter: true } },
    Name: field.string('Req', { query: { filter: true, sort: true }, max: LIMITS.name, min: 1, write: trim, description: 'Must not be blank.' }),
    Description: field.optional.string({ max: SECURITY_GROUP_DESCRIPTION_MAX }),
    Members: field.array('RO', {
      nested: () => SecurityGroupMemberDto,
      column: null,
      description:
        'The members, ordered by last and first name. Change them with PUT and DELETE /securitygroups/{id}/members/{individualid}. In XML one SecurityGroupMember element each.',
      from: (g: SecurityGroupEntity, x: SecurityGroupExtras) => (x.members.get(g.id) ?? []).map((m) => SecurityGroupMember.toWire(m)),
    }),
    SiteID: field.guid('RO'),
  },
});

export const { Response: SecurityGroupDto, Create: CreateSecurityGroupDto, Update: UpdateSecurityGroupDto } = SecurityGroup;
export type SecurityGroupDto = InstanceType<typeof SecurityGroupDto>;
export type CreateSecurityGroupDto = InstanceType<typeof CreateSecurityGroupDto>;
export type UpdateSecurityGroupDto = InstanceType<typeof UpdateSecurityGroupDto>;

/**
 * A bulk item's Record adding an individual to a security group (POST /securitygroups/members/bulk,
 * docs/bulk.md): the pair PUT /securitygroups/{id}/members/{individualid} names.
 */
export class AddSecurityGroupMemberInput {
  @InputField('guid', { description: 'Ignored: a membership is named by its pair when it is added.' })
  ID?: string;

  @InputField('guid', { required: true, description: 'A security group of the site (else 404, as the single write).' })
  SecurityGroupID: string;

  @InputField('guid', { required: true, description: 'A live individual of the site (else 404; 409 deleted when deleted).' })
  IndividualID: string;
}

/** A bulk item's Record naming a membership by its ID: a membership does not move, so the pair is ignored. */
export class SecurityGroupMemberInput {
  @InputField('guid', { required: true, description: 'The membership.' })
  ID: string;

  @InputField('guid', { description: 'Ignored: a membership does not move.' })
  SecurityGroupID?: string;

  @InputField('guid', { description: 'Ignored: a membership does not move.' })
  IndividualID?: string;
}

/**
 * The body of POST /securitygroups/members/bulk: each item adds an individual to a group; the group
 * may be given by its ExternalID (the SCIM client's externalId), the individual by theirs.
 */
export const BulkSecurityGroupMembers = bulkRequestOf('SecurityGroupMember', {
  create: 'AddSecurityGroupMemberInput',
  update: 'SecurityGroupMemberInput',
  refs: ['IndividualID', 'SecurityGroupID'],
  // A membership has no ETag of its own; PUT …/members/{individualid} takes no If-Match.
  ifMatch: false,
});
export type BulkSecurityGroupMembers = BulkRequest;

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  BulkRequestOfSecurityGroupMember: {
    body: {
      Items: [{ Op: 'upsert', Record: { IndividualID: 'INDIVIDUAL_ID' }, ExternalRefs: { SecurityGroupID: 'HR-PARTNERS' } }],
    },
  },
  PatchSecurityGroupDto: { body: { Description: 'Read the records of the individuals they support.' } },
  CreateSecurityGroupDto: { body: { Name: 'HR partners', Description: 'Read the records of every individual they support.' } },
  UpdateSecurityGroupDto: {
    body: { ID: 'PATH_ID', Name: 'HR business partners', Description: 'Read and update the records of the individuals they support.' },
  },
});
