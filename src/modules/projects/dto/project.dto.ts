import { LIMITS, field, resource, trim } from '../../../http/wire/resource.js';
import type { ProjectEntity } from '../../../database/entities/project.entity.js';
import { declareExamples, exampleDate } from '../../../http/wire/examples.js';

/** Description has no documented limit (docs/periods-projects.md); 10,000 characters keeps it inside a MySQL TEXT column. */
export const PROJECT_DESCRIPTION_MAX = 10000;

/**
 * Project (docs/periods-projects.md): every field declared once (docs/adding-a-resource.md). On update absent
 * optional fields keep their value and an explicit null clears them.
 */
export const Project = resource<ProjectEntity>()('Project', {
  audit: 'softDelete',
  // Lists may filter on Deleted (docs/queries.md); the fields say their own.
  auditQuery: { Deleted: { filter: true } },
  fields: {
    ID: { ...field.id(), query: { filter: true } },
    Name: field.string('Req', { query: { filter: true, sort: true }, max: LIMITS.name, min: 1, write: trim, description: 'Must not be blank.' }),
    Description: field.string('-', { nullable: true, max: PROJECT_DESCRIPTION_MAX }),
    OwnerID: field.guid('ReqCre', {
      query: { filter: true },
      description:
        'The individual who owns the project: a live individual of the site. Required on create; on update absent keeps it and null is 400. Changing it needs the right to manage both the current and the new owner.',
      create: { description: 'A live individual of the site the caller may manage.' },
      update: { description: 'Absent keeps the owner; null is 400 (a project always has an owner).' },
    }),
    OrganizationID: field.guid('-', {
      query: { filter: true },
      nullable: true,
      description: 'An organization or department of the site, or null.',
      create: { description: 'A live organization or department of the site.' },
    }),
    StartDate: field.date('-', { nullable: true }),
    DueDate: field.date('-', {
      query: { filter: true, sort: true },
      nullable: true,
      description: 'Not before StartDate. Every move of a set due date counts in DueDateChanges.',
    }),
    CompletedDate: field.date('-', { query: { filter: true }, nullable: true, description: 'Set when the project is completed; not before StartDate.' }),
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

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchProjectDto: { body: { DueDate: exampleDate('2027-08-31'), CompletedDate: null } },
  CreateProjectDto: {
    body: {
      Name: 'Website relaunch',
      Description: 'New site and shop',
      OwnerID: 'INDIVIDUAL_ID',
      StartDate: exampleDate('2027-01-04'),
      DueDate: exampleDate('2027-06-30'),
    },
  },
  UpdateProjectDto: { body: { ID: 'PATH_ID', Name: 'Website relaunch', Description: 'New site, shop and blog', DueDate: exampleDate('2027-07-31') } },
});
