import { LIMITS, field, resource, trim } from '../../../common/http/resource.js';
import type { ProjectEntity } from '../../../database/entities/project.entity.js';

/** Description has no documented limit (docs/periods-projects.md); 10,000 characters keeps it inside a MySQL TEXT column. */
export const PROJECT_DESCRIPTION_MAX = 10000;

/**
 * Project (docs/periods-projects.md): every field declared once (docs/adding-a-resource.md). On update absent
 * optional fields keep their value and an explicit null clears them.
 */
export const Project = resource<ProjectEntity>()('Project', {
  audit: 'softDelete',
  fields: {
    ID: field.id(),
    Name: field.string('Req', { max: LIMITS.name, min: 1, write: trim, description: 'Must not be blank.' }),
    Description: field.string('-', { nullable: true, max: PROJECT_DESCRIPTION_MAX }),
    OwnerID: field.guid('ReqCre', {
      description:
        'The individual who owns the project: a live individual of the site. Required on create; on update absent keeps it and null is 400. Changing it needs the right to manage both the current and the new owner.',
      create: { description: 'A live individual of the site the caller may manage.' },
      update: { description: 'Absent keeps the owner; null is 400 (a project always has an owner).' },
    }),
    OrganizationID: field.guid('-', {
      nullable: true,
      description: 'An organization or department of the site, or null.',
      create: { description: 'A live organization or department of the site.' },
    }),
    StartDate: field.date('-', { nullable: true }),
    DueDate: field.date('-', { nullable: true, description: 'Not before StartDate. Every move of a set due date counts in DueDateChanges.' }),
    CompletedDate: field.date('-', { nullable: true, description: 'Set when the project is completed; not before StartDate.' }),
    DueDateChanges: field.int('RO', {
      description:
        'How many times DueDate was moved after it was first set (a change to another date, or clearing it). Setting the first due date is not a move.',
    }),
    SiteID: field.guid('RO'),
  },
});

export const { Response: ProjectDto, Create: CreateProjectDto, Update: UpdateProjectDto } = Project;
export type ProjectDto = InstanceType<typeof ProjectDto>;
export type CreateProjectDto = InstanceType<typeof CreateProjectDto>;
export type UpdateProjectDto = InstanceType<typeof UpdateProjectDto>;
