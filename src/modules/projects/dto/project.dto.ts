import { InputField, WireField, WireType } from '../../../common/http/wire.js';
import { SoftDeletedWire, WireAudit, softDeleteOf } from '../../../common/http/wire-audit.js';
import type { ProjectEntity } from '../project.entity.js';

/** Description has no limit in the spec; 10,000 characters keeps it inside a MySQL TEXT column. */
export const PROJECT_DESCRIPTION_MAX = 10000;

/** A project (DESIGN §5). */
@WireType('Project')
@WireAudit({ softDelete: true })
export class ProjectDto extends SoftDeletedWire {
  @WireField('guid', { access: 'ReqUpd' })
  ID: string;

  @WireField('string', { access: 'Req', max: 255, description: 'Must not be blank.' })
  Name: string;

  @WireField('string', { nullable: true, access: '-', max: PROJECT_DESCRIPTION_MAX })
  Description: string | null;

  @WireField('guid', {
    access: 'ReqCre',
    description:
      'The individual who owns the project: a live individual of the site. Required on create; on update absent keeps it and null is 400. Changing it needs the right to manage both the current and the new owner.',
  })
  OwnerID: string;

  @WireField('guid', { nullable: true, access: '-', description: 'An organization or department of the site, or null.' })
  OrganizationID: string | null;

  @WireField('date', { nullable: true, access: '-' })
  StartDate: Date | null;

  @WireField('date', { nullable: true, access: '-', description: 'Not before StartDate. Every move of a set due date counts in DueDateChanges.' })
  DueDate: Date | null;

  @WireField('date', { nullable: true, access: '-', description: 'Set when the project is completed; not before StartDate.' })
  CompletedDate: Date | null;

  @WireField('int', {
    access: 'RO',
    description:
      'How many times DueDate was moved after it was first set (a change to another date, or clearing it). Setting the first due date is not a move.',
  })
  DueDateChanges: number;

  @WireField('guid', { access: 'RO' })
  SiteID: string;

  static from(e: ProjectEntity): ProjectDto {
    return Object.assign(new ProjectDto(), {
      ID: e.id,
      Name: e.name,
      Description: e.description,
      OwnerID: e.ownerId,
      OrganizationID: e.organizationId,
      StartDate: e.startDate,
      DueDate: e.dueDate,
      CompletedDate: e.completedDate,
      DueDateChanges: e.dueDateChanges,
      SiteID: e.siteId,
      ...softDeleteOf(e),
    });
  }
}

export class CreateProjectDto {
  @InputField('guid', { description: 'Optional; generated when absent or all zeros; 409 id-taken when already used.' })
  ID?: string | null;

  @InputField('string', { required: true, max: 255, min: 1 })
  Name: string;

  @InputField('string', { max: PROJECT_DESCRIPTION_MAX })
  Description?: string | null;

  @InputField('guid', { required: true, description: 'A live individual of the site the caller may manage.' })
  OwnerID: string;

  @InputField('guid', { description: 'A live organization or department of the site.' })
  OrganizationID?: string | null;

  @InputField('date')
  StartDate?: Date | null;

  @InputField('date')
  DueDate?: Date | null;

  @InputField('date')
  CompletedDate?: Date | null;
}

/** On update absent optional fields keep their value and an explicit null clears them. */
export class UpdateProjectDto {
  @InputField('guid', { required: true, description: 'Must equal the id in the path.' })
  ID: string;

  @InputField('string', { required: true, max: 255, min: 1 })
  Name: string;

  @InputField('string', { max: PROJECT_DESCRIPTION_MAX })
  Description?: string | null;

  @InputField('guid', { description: 'Absent keeps the owner; null is 400 (a project always has an owner).' })
  OwnerID?: string | null;

  @InputField('guid')
  OrganizationID?: string | null;

  @InputField('date')
  StartDate?: Date | null;

  @InputField('date')
  DueDate?: Date | null;

  @InputField('date')
  CompletedDate?: Date | null;
}
