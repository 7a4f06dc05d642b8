import { LIMITS, field, resource, trim } from '../../../common/http/resource.js';
import type { SecurityGroupEntity } from '../../../database/entities/security-group.entity.js';

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
    ID: field.id(),
    Name: field.string('Req', { max: LIMITS.name, min: 1, write: trim, description: 'Must not be blank.' }),
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
