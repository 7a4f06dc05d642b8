import { InputField, WireField, WireType } from '../../../common/http/wire.js';
import { SoftDeletedWire, WireAudit, softDeleteOf } from '../../../common/http/wire-audit.js';
import { ROW_TYPE_DEPARTMENT, ROW_TYPE_ORGANIZATION, type OrganizationEntity } from '../organization.entity.js';

/** The row types an Organization record takes (spec: organization 4, department 56). */
export const ORGANIZATION_ROW_TYPES = [ROW_TYPE_ORGANIZATION, ROW_TYPE_DEPARTMENT] as const;

/** Description is stored as TEXT: 10,000 characters stay within MySQL's 64 KiB even in 4-byte UTF-8. */
export const DESCRIPTION_MAX = 10_000;

@WireType('Organization')
@WireAudit({ softDelete: true })
export class OrganizationDto extends SoftDeletedWire {
  @WireField('guid', { access: 'ReqUpd' })
  ID: string;

  @WireField('guid', { access: 'RO' })
  SiteID: string;

  @WireField('guid', {
    nullable: true,
    access: '-',
    description:
      'The parent organization or department (null for a top-level record). Must name a live organization or department of the site (else 400) and never make the record its own ancestor (409, problem type urn:pms:problem:cycle).',
  })
  ParentID: string | null;

  @WireField('string', { access: 'Req', max: 255 })
  Name: string;

  @WireField('string', { nullable: true, access: '-', max: DESCRIPTION_MAX })
  Description: string | null;

  @WireField('int', {
    access: '-',
    enum: ORGANIZATION_ROW_TYPES,
    description: 'Row type: 4 organization, 56 department. Default 56 when created through /departments.',
  })
  RowType: number;

  @WireField('guid', { nullable: true, access: '-', description: 'Individual who manages it. Must name a live individual of the site (else 400).' })
  ManagerID: string | null;

  @WireField('int', { access: '-', description: 'Sort order: lists are ordered by Rank, then Name. Default 0.' })
  Rank: number;

  static from(e: OrganizationEntity): OrganizationDto {
    return Object.assign(new OrganizationDto(), {
      ID: e.id,
      SiteID: e.siteId,
      ParentID: e.parentId,
      Name: e.name,
      Description: e.description,
      RowType: e.rowType,
      ManagerID: e.managerId,
      Rank: e.rank,
      ...softDeleteOf(e),
    });
  }
}

export class CreateOrganizationDto {
  @InputField('guid', { description: 'Optional; generated when absent or all zeros. 409 (id-taken) when already used.' })
  ID?: string | null;

  @InputField('guid', { description: 'Parent organization or department; null or absent for a top-level record.' })
  ParentID?: string | null;

  @InputField('string', { required: true, max: 255, min: 1 })
  Name: string;

  @InputField('string', { max: DESCRIPTION_MAX })
  Description?: string | null;

  @InputField('int', { enum: ORGANIZATION_ROW_TYPES, description: '4 organization, 56 department (default).' })
  RowType?: number | null;

  @InputField('guid')
  ManagerID?: string | null;

  @InputField('int', { description: 'Default 0.' })
  Rank?: number | null;
}

export class UpdateOrganizationDto {
  @InputField('guid', { required: true, description: 'Must equal the id of the path.' })
  ID: string;

  @InputField('guid', { description: 'Absent keeps the parent; null makes the record top-level. Changing it requires an administrator.' })
  ParentID?: string | null;

  @InputField('string', { required: true, max: 255, min: 1 })
  Name: string;

  @InputField('string', { max: DESCRIPTION_MAX, description: 'Absent keeps the value; null clears it.' })
  Description?: string | null;

  @InputField('int', { enum: ORGANIZATION_ROW_TYPES, description: 'Absent or null keeps the value. Changing it requires an administrator.' })
  RowType?: number | null;

  @InputField('guid', { description: 'Absent keeps the manager; null clears it. Changing it requires an administrator.' })
  ManagerID?: string | null;

  @InputField('int', { description: 'Absent keeps the value; null sets 0.' })
  Rank?: number | null;
}
