import { LIMITS, field, resource, trim } from '../../../common/http/resource.js';
import type { PeriodEntity } from '../../../database/entities/period.entity.js';

/**
 * Period (docs/periods-projects.md), the span goals, commitments and dashboards are counted in: every field
 * declared once (docs/adding-a-resource.md). Integer ids are always generated: create does not
 * take ID (a supplied one is ignored).
 */
export const Period = resource<PeriodEntity>()('Period', {
  audit: 'audit',
  fields: {
    ID: field.intId('Integer id, generated on create.', { zeroIsNull: true }),
    Name: field.string('Req', { max: LIMITS.name, min: 1, write: trim, description: 'Must not be blank.' }),
    StartDate: field.date('Req', { description: 'First instant of the period.' }),
    EndDate: field.date('Req', {
      description: 'Last instant of the period; not before StartDate (400).',
      create: { description: 'Not before StartDate.' },
      update: { description: 'Not before StartDate.' },
    }),
    Closed: field.bool('RO', { description: 'Set by PUT /periods/{id}/close; a closed period cannot be changed or deleted (409 closed).' }),
    SiteID: field.guid('RO'),
  },
});

export const { Response: PeriodDto, Create: CreatePeriodDto, Update: UpdatePeriodDto } = Period;
export type PeriodDto = InstanceType<typeof PeriodDto>;
export type CreatePeriodDto = InstanceType<typeof CreatePeriodDto>;
export type UpdatePeriodDto = InstanceType<typeof UpdatePeriodDto>;
