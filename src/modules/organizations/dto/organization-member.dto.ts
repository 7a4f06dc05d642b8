import { InputField, WireField, WireType } from '../../../common/http/wire.js';
import { AuditedWire, WireAudit, auditOf } from '../../../common/http/wire-audit.js';
import type { IndividualEntity } from '../../individuals/individual.entity.js';
import type { OrganizationEntity } from '../organization.entity.js';
import type { OrganizationMemberEntity } from '../organization-member.entity.js';

@WireType('OrganizationMember')
@WireAudit()
export class OrganizationMemberDto extends AuditedWire {
  @WireField('guid', { access: 'ReqUpd', description: 'Id of the membership (the relationship between department and individual).' })
  ID: string;

  @WireField('guid', { access: 'RO' })
  SiteID: string;

  @WireField('guid', { access: 'ReqCre', description: 'The member. Cannot be changed on update (ignored).' })
  IndividualID: string;

  @WireField('guid', { access: 'ReqCre', description: 'The organization or department. Cannot be changed on update (ignored).' })
  OrganizationID: string;

  @WireField('string', { nullable: true, access: '-', max: 255, description: 'The member’s title in this department.' })
  Title: string | null;

  @WireField('bool', {
    access: 'RO',
    description:
      'Derived: true when OrganizationID is the individual’s PrimaryOrganizationID. The primary membership cannot be removed (409, problem type urn:pms:problem:primary-membership).',
  })
  IsPrimary: boolean;

  @WireField('string', { nullable: true, access: 'RO', description: 'Convenience: the member’s full name (First Last).' })
  IndividualName: string | null;

  @WireField('string', { nullable: true, access: 'RO', description: 'Convenience: the name of the organization or department.' })
  OrganizationName: string | null;

  static from(e: OrganizationMemberEntity, individual: IndividualEntity | undefined, organization: OrganizationEntity | undefined): OrganizationMemberDto {
    return Object.assign(new OrganizationMemberDto(), {
      ID: e.id,
      SiteID: e.siteId,
      IndividualID: e.individualId,
      OrganizationID: e.organizationId,
      Title: e.title,
      IsPrimary: individual?.primaryOrganizationId === e.organizationId,
      IndividualName: individual ? `${individual.firstName} ${individual.lastName}`.trim() : null,
      OrganizationName: organization?.name ?? null,
      ...auditOf(e),
    });
  }
}

/** Body of POST /departmentmembers: both ends of the membership are required. */
export class CreateOrganizationMemberDto {
  @InputField('guid', { description: 'Optional; generated when absent or all zeros. 409 (id-taken) when already used.' })
  ID?: string | null;

  @InputField('guid', { required: true, description: 'A live individual of the site (else 400).' })
  IndividualID: string;

  @InputField('guid', { required: true, description: 'A live organization or department of the site (else 400).' })
  OrganizationID: string;

  @InputField('string', { max: 255 })
  Title?: string | null;
}

/** Body of POST on a `{pair}` path: the path names both ends; body ids, when given, must match it. */
export class CreatePairMemberDto {
  @InputField('guid', { description: 'Optional; generated when absent or all zeros. 409 (id-taken) when already used.' })
  ID?: string | null;

  @InputField('guid', { description: 'Optional; when given it must equal the individual of the path (else 400).' })
  IndividualID?: string | null;

  @InputField('guid', { description: 'Optional; when given it must equal the department of the path (else 400).' })
  OrganizationID?: string | null;

  @InputField('string', { max: 255 })
  Title?: string | null;
}

/** Body of PUT: only Title changes. IndividualID and OrganizationID are ignored (a membership never moves). */
export class UpdateOrganizationMemberDto {
  @InputField('guid', {
    description:
      'Required on PUT /departmentmembers/{id} and must equal the path id; on a {pair} path optional, and when given it must be the id of that membership.',
  })
  ID?: string | null;

  @InputField('string', { max: 255, description: 'Absent keeps the title; null clears it.' })
  Title?: string | null;
}
