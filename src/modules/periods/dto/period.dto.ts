import { LIMITS, field, resource, trim } from '../../../http/wire/resource.js';
import type { PeriodEntity } from '../../../database/entities/period.entity.js';
import { declareExamples, exampleDate } from '../../../http/wire/examples.js';

/**
 * Period (docs/periods-projects.md), the span goals, commitments and dashboards are counted in: every field
 * declared once (docs/adding-a-resource.md). Integer ids are always generated: create does not
 * take ID (a supplied one is ignored).
 */
export const Period = resource<PeriodEntity>()('Period', {
  audit: 'audit',
  // Lists may filter and sort on Updated (docs/queries.md); the fields say their own.
  auditQuery: { Updated: { filter: true, sort: true } },
  fields: {
    ID: { ...field.intId('Integer id, generated on create.', { zeroIsNull: true }), query: { filter: true } },
    Name: field.string('Req', { query: { filter: true, sort: true }, max: LIMITS.name, min: 1, write: trim, description: 'Must not be blank.' }),
    StartDate: field.date('Req', { query: { filter: true, sort: true }, description: 'First instant of the period.' }),
    EndDate: field.date('Req', {
      query: { filter: true, sort: true },
      description: 'Last instant of the period; not before StartDate (400).',
      create: { description: 'Not before StartDate.' },
      update: { description: 'Not before StartDate.' },
    }),
    Closed: field.bool('RO', {
      query: { filter: true },
      description: 'Set by PUT /periods/{id}/close; a closed period cannot be changed or deleted (409 closed).',
    }),
    SiteID: field.guid('RO'),
  },
});

export const { Response: PeriodDto, Create: CreatePeriodDto, Update: UpdatePeriodDto } = Period;
export type PeriodDto = InstanceType<typeof PeriodDto>;
export type CreatePeriodDto = InstanceType<typeof CreatePeriodDto>;
export type UpdatePeriodDto = InstanceType<typeof UpdatePeriodDto>;

/** The request-body examples of the OpenAPI document (docs/openapi.md), executed by the examples test. */
declareExamples({
  PatchPeriodDto: { body: { Name: 'FY 2027 (audited)' } },
  CreatePeriodDto: { body: { Name: 'FY 2027', StartDate: exampleDate('2027-01-01'), EndDate: '2027-12-31T23:59:59.999+00:00' } },
  UpdatePeriodDto: { body: { ID: 'PATH_ID', Name: 'Fiscal year 2027', StartDate: exampleDate('2027-01-01'), EndDate: '2027-12-31T23:59:59.999+00:00' } },
});
